//! CSPM values.
//!
//! Big values are shared (`Arc`), never deep-copied: a sequence's tail is
//! a window on the same storage, a set is one sorted, deduplicated array.
//! Equality, order and hashing are total and structural, so values can be
//! set elements, map keys and parts of hash-consed process states;
//! closures compare by their function and captured values (CSPM forbids
//! comparing them, and the evaluator reports it before it could matter;
//! process states holding them must still be told apart and together).

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, OnceLock};

use crate::script::builtins::Builtin;
use crate::script::ir::{ChannelId, CtorId, DataTypeId, FuncId};

pub mod bytes;
pub mod seq;
pub mod stream;

pub use seq::Seq;
pub use stream::{Rest, Stream, Suspended};

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Value {
    Int(i64),
    Bool(bool),
    Char(char),
    /// A datatype constructor on its own (`N0`, or `Node` before its
    /// fields are dotted on).
    Ctor(CtorId),
    /// A channel on its own (a complete event when it has no fields).
    Channel(ChannelId),
    /// A constructor or channel with some of its fields: `[head, f1, ...]`
    /// (at least one field), each a complete field except perhaps the
    /// last. `N.1`, `c.0.true`.
    Named(Arc<[Value]>),
    /// Any other dotted value `a.b.c`: a list of at least two parts, none
    /// itself a `Dot` (a part may be a constructor, `Leaf.1`).
    Dot(Arc<[Value]>),
    Tuple(Arc<[Value]>),
    Seq(Seq),
    /// An infinite sequence (`<1..>`), never built.
    Stream(Arc<Stream>),
    Set(Arc<Set>),
    Map(Arc<BTreeMap<Value, Value>>),
    Closure(Arc<Closure>),
    /// A built-in function used as a value (`Union`, `head`).
    Builtin(Builtin),
    /// The function `relational_image(R)` (or the inverse image): each
    /// value to the set it is related to.
    Image(Arc<BTreeMap<Value, Set>>),
    Proc(Arc<Proc>),
    /// The environment of a recursive `let` group, as a variable of a
    /// process state (`let P = a -> P within P` refers to `P` through
    /// it). Scripts never see it.
    Env(Arc<[Value]>),
}

impl Value {
    pub fn seq(items: Vec<Value>) -> Value {
        Value::Seq(Seq::from_vec(items))
    }

    pub fn set(set: Set) -> Value {
        Value::Set(Arc::new(set))
    }

    pub fn string(text: &str) -> Value {
        Value::seq(text.chars().map(Value::Char).collect())
    }

    /// Whether this value can be applied (a closure, a built-in, an
    /// image of a map).
    pub fn is_function(&self) -> bool {
        matches!(
            self,
            Value::Closure(_) | Value::Builtin(_) | Value::Image(_)
        )
    }

    /// What kind of value this is, for messages.
    pub fn kind_name(&self) -> &'static str {
        match self {
            Value::Int(_) => "an integer",
            Value::Bool(_) => "a boolean",
            Value::Char(_) => "a character",
            Value::Ctor(_) => "a datatype value",
            Value::Channel(_) => "an event",
            Value::Named(_) => "a datatype value or event",
            Value::Dot(_) => "a dotted value",
            Value::Tuple(_) => "a tuple",
            Value::Seq(_) => "a sequence",
            Value::Stream(_) => "an infinite sequence",
            Value::Set(_) => "a set",
            Value::Map(_) => "a map",
            Value::Closure(_) | Value::Builtin(_) | Value::Image(_) => "a function",
            Value::Proc(_) => "a process",
            Value::Env(_) => "an environment",
        }
    }
}

/// A set of values. Finite sets are explicit; the infinite ones CSPM
/// names (`Int`, `{n..}`, `Seq(A)`, ...), and `Set(A)` and `Map(A, B)`
/// too large to build, are kept symbolic: membership works, enumeration
/// is an error.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Set {
    /// Sorted, without duplicates.
    Finite(Vec<Value>),
    AllInts,
    IntsFrom(i64),
    AllChars,
    AllProcs,
    /// `Seq(A)`: every finite sequence over A.
    Seqs(Arc<Set>),
    /// `Set(A)` over an infinite A, or over a finite one with too many
    /// subsets to build (over a smaller one it is explicit).
    Powerset(Arc<Set>),
    /// The values of an infinite datatype: a recursive one, or one with
    /// a field of an infinite set.
    DataType(DataTypeId),
    /// `Map(A, B)`: every map from A to B (kept symbolic when there
    /// are too many to build).
    Maps(Arc<Set>, Arc<Set>),
}

impl Set {
    pub fn empty() -> Set {
        Set::Finite(Vec::new())
    }

    /// The set of the given values (in any order, duplicates allowed).
    pub fn from_values(mut values: Vec<Value>) -> Set {
        values.sort_unstable();
        values.dedup();
        Set::Finite(values)
    }

    /// Whether the set has infinitely many elements (a symbolic set may
    /// be finite: `Seq({})` is `{<>}`, `Set(A)` of a large finite `A`).
    pub fn is_infinite(&self) -> bool {
        let empty = |s: &Set| matches!(s, Set::Finite(values) if values.is_empty());
        match self {
            Set::Finite(_) => false,
            Set::AllInts | Set::IntsFrom(_) | Set::AllChars | Set::AllProcs | Set::DataType(_) => {
                true
            }
            Set::Seqs(of) => !empty(of),
            Set::Powerset(of) => of.is_infinite(),
            Set::Maps(keys, values) => !empty(keys) && (keys.is_infinite() || values.is_infinite()),
        }
    }

    pub fn as_finite(&self) -> Option<&[Value]> {
        match self {
            Set::Finite(values) => Some(values),
            _ => None,
        }
    }

    /// How many elements a set kept symbolic only for its size has
    /// (`Set(A)` and `Map(A, B)` over finite sets too large to build),
    /// as a power: `2^41`. `None` for a set that is really infinite.
    pub fn unlisted_size(&self) -> Option<String> {
        match self {
            Set::Powerset(base) => Some(format!("2^{}", base.size()?)),
            // A map takes each key to a value or leaves it out.
            Set::Maps(keys, values) => match (keys.as_finite(), values.as_finite()) {
                (Some(keys), Some(values)) => Some(format!("{}^{}", values.len() + 1, keys.len())),
                _ => Some(format!("({} + 1)^{}", values.size()?, keys.size()?)),
            },
            _ => None,
        }
    }

    /// How many elements a finite set has, as a number or a power in
    /// brackets; `None` for an infinite one.
    fn size(&self) -> Option<String> {
        match self {
            Set::Finite(values) => Some(values.len().to_string()),
            symbolic => Some(format!("({})", symbolic.unlisted_size()?)),
        }
    }
}

/// A function value: a function of the script with the environment it
/// captured, and the argument groups already applied (currying).
#[derive(Debug)]
pub struct Closure {
    pub func: FuncId,
    pub env: Env,
    /// The arguments of the groups applied so far, one after another.
    pub applied: Vec<Value>,
    /// How many groups `applied` holds.
    pub groups: usize,
}

// Closures compare by what they are made of (function, captured
// environment, arguments applied), never by address: two evaluations of
// the same lambda over the same values are one process-state variable,
// and a closure permuted by a symmetry equals the one the permuted
// state would have built. CSPM itself never compares functions (the
// evaluator reports it first).
impl PartialEq for Closure {
    fn eq(&self, other: &Closure) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Closure {}

impl PartialOrd for Closure {
    fn partial_cmp(&self, other: &Closure) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Closure {
    fn cmp(&self, other: &Closure) -> Ordering {
        if std::ptr::eq(self, other) {
            return Ordering::Equal;
        }
        (self.func, self.groups, &self.applied, &*self.env).cmp(&(
            other.func,
            other.groups,
            &other.applied,
            &*other.env,
        ))
    }
}

impl Hash for Closure {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.func.hash(state);
        self.groups.hash(state);
        self.applied.hash(state);
        self.env.hash(state);
    }
}

/// A process value: the handle the process layer gives meaning to.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Proc {
    /// A process expression of the script (its control state) with the
    /// values of exactly its free variables, in the function's capture
    /// order: the leaf label of DESIGN.md §3.
    Node { func: FuncId, vars: Arc<[Value]> },
    /// `STOP`, `SKIP`, `DIV`, `CHAOS(A)`, `RUN(A)` and the process
    /// functions (`normal(P)`, `prioritise(P, <A>)`), with their arguments.
    Builtin {
        builtin: Builtin,
        args: Arc<[Value]>,
    },
}

/// A captured environment: the variables a closure or thunk needs.
pub type Env = Arc<[Slot]>;

/// One variable's storage: a value, a lazily evaluated `let` constant, or
/// the environment of a recursive `let` group. Slots compare by content:
/// a `let` constant by its definition and environment, whether or not it
/// has been evaluated yet.
#[derive(Debug, Clone)]
pub enum Slot {
    Empty,
    Value(Value),
    Lazy(Arc<Thunk>),
    Group(Env),
}

impl Slot {
    /// What a slot is made of, for comparing: `(kind, function, values)`.
    fn key(&self) -> (u8, Option<FuncId>, Option<&Value>, Option<&[Slot]>) {
        match self {
            Slot::Empty => (0, None, None, None),
            Slot::Value(v) => (1, None, Some(v), None),
            Slot::Lazy(thunk) => (2, Some(thunk.func), None, Some(&thunk.env)),
            Slot::Group(env) => (3, None, None, Some(env)),
        }
    }
}

impl PartialEq for Slot {
    fn eq(&self, other: &Slot) -> bool {
        self.key() == other.key()
    }
}

impl Eq for Slot {}

impl PartialOrd for Slot {
    fn partial_cmp(&self, other: &Slot) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Slot {
    fn cmp(&self, other: &Slot) -> Ordering {
        self.key().cmp(&other.key())
    }
}

impl Hash for Slot {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.key().hash(state);
    }
}

/// A `let` constant, evaluated when first used and then remembered.
#[derive(Debug)]
pub struct Thunk {
    pub func: FuncId,
    pub env: Env,
    pub value: OnceLock<Value>,
}

impl Thunk {
    pub fn new(func: FuncId, env: Env) -> Thunk {
        Thunk {
            func,
            env,
            value: OnceLock::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_are_sorted_and_deduplicated() {
        let s = Set::from_values(vec![Value::Int(3), Value::Int(1), Value::Int(3)]);
        assert_eq!(s, Set::Finite(vec![Value::Int(1), Value::Int(3)]));
    }

    #[test]
    fn values_stay_small() {
        assert!(std::mem::size_of::<Value>() <= 24);
    }
}
