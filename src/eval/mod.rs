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

use std::cell::{Cell, RefCell};
use std::sync::{Arc, OnceLock};

use rustc_hash::FxHashSet;

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

/// What every evaluator of one script shares, each value worked out once
/// by whichever evaluator needs it first: the values of its top-level
/// names, the fields of its channels and constructors, `Events`. `Sync`:
/// evaluators on several threads read one ([`Evaluator::beside`]).
/// Evaluation is deterministic, so two threads that work out the same
/// value at once agree, and the first to finish keeps it.
struct Shared {
    /// The script's address: an evaluator is made only for the script
    /// whose values these are.
    script: usize,
    globals: Vec<OnceLock<Value>>,
    channel_fields: Vec<OnceLock<Arc<fields::Fields>>>,
    ctor_fields: Vec<OnceLock<Arc<fields::Fields>>>,
    events: OnceLock<Arc<Set>>,
}

/// Evaluates expressions of one script, remembering the values of its
/// constants, channel types and datatype sets (in a part every evaluator
/// of the script made [`Evaluator::beside`] it shares), with a context
/// of its own: how deep it is, its stacks, its meter.
pub struct Evaluator<'s> {
    script: &'s Script,
    shared: Arc<Shared>,
    /// Each expression's [`machine::Shape`], by id.
    shapes: Arc<[machine::Shape]>,
    /// The top-level constants this evaluator is working out now (a
    /// constant needed while it is worked out is defined in terms of
    /// itself; another thread working out the same one is not).
    forcing: Vec<Cell<bool>>,
    /// The `let` constants it is working out now, by address.
    forcing_thunks: RefCell<FxHashSet<usize>>,
    /// Calls nested now, and levels nested natively.
    depth: Cell<usize>,
    native_depth: Cell<usize>,
    limits: Limits,
    /// The evaluation loop's stacks, reused from run to run.
    stacks: RefCell<Vec<machine::Stacks>>,
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

/// What the evaluators of one script share (the values of its names,
/// its fields, `Events`, as each is worked out), to hand to another
/// thread: `Send` and `Sync`, and cheap to clone.
#[derive(Clone)]
pub struct Evaluation {
    shared: Arc<Shared>,
    shapes: Arc<[machine::Shape]>,
    limits: Limits,
}

// Evaluators on several threads share it.
const _: fn() = || {
    fn shared_between_threads<T: Send + Sync>() {}
    shared_between_threads::<Evaluation>();
};

impl Evaluation {
    /// An evaluator of `script` (the script this evaluation is of) that
    /// shares what every other of them worked out and will work out,
    /// with the same limits, no meter and a context of its own.
    pub fn evaluator<'s>(&self, script: &'s Script) -> Evaluator<'s> {
        assert_eq!(
            self.shared.script,
            std::ptr::from_ref(script) as usize,
            "an evaluation is shared only by evaluators of its own script"
        );
        Evaluator::with_shared(script, self.shared.clone(), self.shapes.clone())
            .with_limits(self.limits)
    }
}

/// Steps of evaluation between two polls of the meter: about a
/// millisecond of calls (a poll, a clock read and a few atomic loads,
/// costs a thousandth of that).
const POLL_STEPS: u32 = 1 << 10;

/// Calls (or native levels) nested from which a stop says how deep.
const DEEP: usize = 100_000;

impl<'s> Evaluator<'s> {
    pub fn new(script: &'s Script) -> Evaluator<'s> {
        let shared = Shared {
            script: std::ptr::from_ref(script) as usize,
            globals: (0..script.globals.len()).map(|_| OnceLock::new()).collect(),
            channel_fields: (0..script.channels.len())
                .map(|_| OnceLock::new())
                .collect(),
            ctor_fields: (0..script.ctors.len()).map(|_| OnceLock::new()).collect(),
            events: OnceLock::new(),
        };
        Evaluator::with_shared(script, Arc::new(shared), machine::shapes(script).into())
    }

    fn with_shared(
        script: &'s Script,
        shared: Arc<Shared>,
        shapes: Arc<[machine::Shape]>,
    ) -> Evaluator<'s> {
        Evaluator {
            script,
            forcing: (0..script.globals.len())
                .map(|_| Cell::new(false))
                .collect(),
            forcing_thunks: RefCell::default(),
            shared,
            shapes,
            depth: Cell::new(0),
            native_depth: Cell::new(0),
            limits: Limits::default(),
            stacks: RefCell::new(Vec::new()),
            meter: Meter::unlimited(),
            completeness: dot::Completeness::default(),
            until_poll: Cell::new(POLL_STEPS),
        }
    }

    /// What this evaluator shares with every evaluator of its script,
    /// to make more on other threads ([`Evaluation::evaluator`]).
    pub fn evaluation(&self) -> Evaluation {
        Evaluation {
            shared: self.shared.clone(),
            shapes: self.shapes.clone(),
            limits: self.limits,
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
            && let function = self.script.function(*func)
            && function.call_form.is_none()
            && function.shown_call.is_none()
        {
            return print::show_folded(self.script, *func, vars, &self.folds(*func, vars));
        }
        print::show(self.script, value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Evaluators on several threads read one evaluation: a `let`
    /// constant that a function of the script captured, worked out by
    /// four threads at once, is no constant "defined in terms of
    /// itself" (each thread's own work says so, not another's), and all
    /// agree with one evaluator on its own.
    #[test]
    fn evaluators_on_several_threads_share_one_evaluation() {
        let text = "F = let y = card({x * x % 1000003 | x <- {0..300000}}) within \\ z @ y + z\n";
        let mut script = Script::load_str("shared.csp", text).expect("loads");
        let calls: Vec<FuncId> = (0..4)
            .map(|i| {
                script
                    .add_expr("<call>", &format!("F({i})"))
                    .expect("resolves")
            })
            .collect();
        let evaluation = Evaluator::new(&script).evaluation();
        let barrier = std::sync::Barrier::new(calls.len());
        let values: Vec<Value> = std::thread::scope(|threads| {
            let running: Vec<_> = calls
                .iter()
                .map(|&call| {
                    let (script, evaluation, barrier) = (&script, &evaluation, &barrier);
                    threads.spawn(move || {
                        let evaluator = evaluation.evaluator(script);
                        barrier.wait();
                        evaluator.eval_constant(call)
                    })
                })
                .collect();
            running
                .into_iter()
                .map(|thread| thread.join().expect("no panic").expect("evaluates"))
                .collect()
        });
        let alone = Evaluator::new(&script);
        let expected: Vec<Value> = calls
            .iter()
            .map(|&call| alone.eval_constant(call).expect("evaluates"))
            .collect();
        assert_eq!(values, expected);
        assert!(matches!(expected[0], Value::Int(n) if n > 100_000));
    }
}
