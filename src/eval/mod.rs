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
//! position do not nest at all. Past [`MAX_CALL_DEPTH`] calls (tail calls
//! included) it stops with a diagnostic.

mod builtins;
mod dot;
mod error;
mod interp;
mod machine;
mod pattern;
pub mod print;
mod process;
mod seq;
mod sets;
pub mod value;

use std::cell::{Cell, OnceCell, RefCell};
use std::sync::Arc;

use crate::script::Script;
use crate::script::ir::FuncId;

pub use error::{EvalError, EvalResult};
pub use interp::Frame;
pub use value::{Proc, Seq, Set, Value};

/// How deep calls may nest before evaluation stops with "recursion too
/// deep" (a tail call counts as a level, though it takes no room). Each
/// nested level costs about 400 bytes of heap in a release build, so the
/// limit bounds it near 400 MB.
pub const MAX_CALL_DEPTH: usize = 1_000_000;

/// The most elements a set or sequence may be built with.
pub const MAX_ELEMENTS: usize = 50_000_000;

/// Evaluates expressions of one script, remembering the values of its
/// constants, channel types and datatype sets.
pub struct Evaluator<'s> {
    script: &'s Script,
    globals: Vec<OnceCell<Value>>,
    forcing: Vec<Cell<bool>>,
    channel_fields: Vec<OnceCell<Arc<[Set]>>>,
    ctor_fields: Vec<OnceCell<Arc<[Set]>>>,
    events: OnceCell<Arc<Set>>,
    depth: Cell<usize>,
    call_limit: usize,
    /// The evaluation loop's stacks, reused from run to run.
    stacks: RefCell<Vec<machine::Stacks>>,
}

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
            call_limit: MAX_CALL_DEPTH,
            stacks: RefCell::new(Vec::new()),
        }
    }

    /// Lowers (or raises) how deep calls may nest.
    pub fn with_call_limit(mut self, limit: usize) -> Self {
        self.call_limit = limit;
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

    /// The printed form of a value.
    pub fn show(&self, value: &Value) -> String {
        print::show(self.script, value)
    }
}
