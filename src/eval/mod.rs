//! The functional sub-language of CSPM: values, pattern matching, the dot
//! rules of events and datatypes, and every built-in function.
//!
//! Owns evaluation; uses the resolved [`Script`] and nothing after it.
//! Process expressions evaluate to process *values* (a control state and
//! its variables); what they do belongs to the process layer.
//!
//! Top-level constants and `let` constants are lazy and evaluated at most
//! once; function arguments are evaluated before the call (a deviation
//! from FDR's laziness that only shows when an unused argument fails).
//! Calls nest on a stack of continuations kept on the heap (`machine`),
//! so deep recursion evaluates rather than overflowing; calls in tail
//! position do not nest at all. A runaway recursion stops with a
//! diagnostic at one of the [`Limits`].

mod arith;
mod builtins;
mod dot;
mod error;
mod fields;
mod fold;
mod int_tails;
mod interp;
mod lazy;
mod machine;
mod pace;
mod pattern;
pub mod print;
mod process;
mod sets;
pub mod value;

// A value's sequences and streams are parts of it (they hold values).
use value::{seq, stream};

use std::cell::{Cell, OnceCell, RefCell};
use std::sync::Arc;

use crate::budget::Meter;
use crate::script::Script;
use crate::script::ir::FuncId;

pub use error::{EvalError, EvalResult};
pub use interp::{Frame, Order};
pub use value::{Proc, Seq, Set, Value};

/// Where evaluation gives up on a recursion, with "recursion too deep" or
/// "too long" naming the function: each bound is far beyond what a
/// terminating script of FDR's kind reaches (FDR's own evaluator recurses
/// as deep as memory allows), and keeps a runaway one to seconds. Memory
/// is the memory budget's: the heap that calls take is counted by the
/// allocator, the native stack charged as it grows, so a recursion that
/// would pass the budget stops there first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Calls nested in each other. A level costs about 400 bytes of heap
    /// in a release build: the default bounds it near 4 GB.
    pub nested_calls: usize,
    /// Levels nested through the constructs evaluated by native recursion
    /// (comprehensions, ranges, lambdas, `let` constants, top-level
    /// constants), which cost about 3.5 KB of stack each: the default
    /// bounds them near 4 GB.
    pub native_levels: usize,
    /// Calls in tail position made one after another without returning:
    /// they take no room, so this only bounds the time a loop that never
    /// reaches its base case runs.
    pub tail_calls: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            nested_calls: 10_000_000,
            native_levels: 1_000_000,
            tail_calls: 20_000_000,
        }
    }
}

/// The most elements a set or sequence may be built with.
pub const MAX_ELEMENTS: usize = 50_000_000;

/// `Set(A)` is built explicitly up to this many elements of `A`.
pub const MAX_POWERSET_BASE: usize = 20;

/// Evaluates expressions of one script, remembering the values of its
/// constants, channel types and datatype sets.
pub struct Evaluator<'s> {
    script: &'s Script,
    globals: Vec<OnceCell<Value>>,
    forcing: Vec<Cell<bool>>,
    channel_fields: Vec<OnceCell<Arc<fields::Fields>>>,
    ctor_fields: Vec<OnceCell<Arc<fields::Fields>>>,
    events: OnceCell<Arc<Set>>,
    /// Calls nested now, and levels nested natively.
    depth: Cell<usize>,
    native_depth: Cell<usize>,
    limits: Limits,
    /// The evaluation loop's stacks, reused from run to run.
    stacks: RefCell<Vec<machine::Stacks>>,
    /// Each expression's [`machine::Shape`], by id.
    shapes: Box<[machine::Shape]>,
    /// What stops a long evaluation (a time-out, a cancel, the memory
    /// budget), polled every [`POLL_STEPS`] steps.
    meter: Meter,
    /// Whether nested datatype values are complete (see
    /// [`Evaluator::is_complete`]).
    completeness: dot::Completeness,
    /// Steps (calls, comprehension bindings, elements built) until the
    /// next poll.
    until_poll: Cell<u32>,
}

/// Steps of evaluation between two polls of the meter: about a
/// millisecond of calls (a poll, a clock read and a few atomic loads,
/// costs a thousandth of that).
const POLL_STEPS: u32 = 1 << 10;

/// Calls (or native levels) nested from which a stop says how deep.
const DEEP: usize = 100_000;

impl<'s> Evaluator<'s> {
    pub fn new(script: &'s Script) -> Evaluator<'s> {
        Evaluator {
            script,
            globals: (0..script.globals.len()).map(|_| OnceCell::new()).collect(),
            forcing: (0..script.globals.len())
                .map(|_| Cell::new(false))
                .collect(),
            channel_fields: (0..script.channels.len())
                .map(|_| OnceCell::new())
                .collect(),
            ctor_fields: (0..script.ctors.len()).map(|_| OnceCell::new()).collect(),
            events: OnceCell::new(),
            depth: Cell::new(0),
            native_depth: Cell::new(0),
            limits: Limits::default(),
            stacks: RefCell::new(Vec::new()),
            shapes: machine::shapes(script),
            meter: Meter::unlimited(),
            completeness: dot::Completeness::default(),
            until_poll: Cell::new(POLL_STEPS),
        }
    }

    /// Evaluates within the limits of `meter` (a time-out, a cancel flag,
    /// the memory budget): past them evaluation stops with an error that
    /// says so ([`EvalError::stop_reason`]).
    pub fn with_meter(mut self, meter: Meter) -> Self {
        self.meter = meter;
        self
    }

    /// Replaces the meter evaluation polls, giving back the old one.
    pub fn replace_meter(&mut self, meter: Meter) -> Meter {
        std::mem::replace(&mut self.meter, meter)
    }

    /// The meter evaluation polls; work done on its behalf elsewhere
    /// (searches over its states) polls it too.
    pub fn meter(&self) -> &Meter {
        &self.meter
    }

    /// Counts `steps` of work (the evaluator's own, or work done for its
    /// script's states: a search for divergence counts the states it
    /// opens), polling the meter every [`POLL_STEPS`]: `Err` when the
    /// work must stop.
    #[inline]
    pub fn tick(&self, steps: u32) -> EvalResult<()> {
        let left = self.until_poll.get();
        if left > steps {
            self.until_poll.set(left - steps);
            return Ok(());
        }
        self.until_poll.set(POLL_STEPS);
        self.meter.poll().map_err(|stop| self.stopped(stop))
    }

    /// A stop, saying how deep evaluation was when it came in a deep
    /// recursion (a runaway one stopped by the memory budget or the
    /// clock before any of the [`Limits`]).
    #[cold]
    fn stopped(&self, stop: crate::budget::Stopped) -> EvalError {
        let (calls, native) = (self.depth.get(), self.native_depth.get());
        let error = EvalError::stopped(stop);
        if calls < DEEP && native < DEEP {
            return error;
        }
        error.with_note(format!(
            "evaluation was {calls} calls deep ({native} levels through comprehensions, \
             lambdas or `let` definitions) when it stopped: a function may call itself without \
             reaching its base case"
        ))
    }

    /// Lowers (or raises) where a recursion stops.
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    pub fn script(&self) -> &'s Script {
        self.script
    }

    /// Evaluates a constant of the script (a `print`, an assertion's
    /// operand, or an expression added with [`Script::add_expr`]).
    pub fn eval_constant(&self, func: FuncId) -> EvalResult<Value> {
        self.call_constant(func, Arc::from([]))
    }

    /// The printed form of a value; a process state that is not a call
    /// with what it holds worked out (`fold.rs`).
    pub fn show(&self, value: &Value) -> String {
        if let Value::Proc(proc) = value
            && let Proc::Node { func, vars } = &**proc
            && self.script.function(*func).call_form.is_none()
        {
            return print::show_folded(self.script, *func, vars, &self.folds(*func, vars));
        }
        print::show(self.script, value)
    }
}
