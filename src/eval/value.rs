//! CSPM values.
//!
//! Big values are shared (`Arc`), never deep-copied: a sequence's tail is
//! a window on the same storage, a set is one sorted, deduplicated array.
//! Equality, order and hashing are total and structural, so values can be
//! set elements, map keys and parts of hash-consed process states;
//! closures compare by identity (CSPM forbids comparing them, and the
//! evaluator reports it before it could matter).

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, OnceLock};

use crate::script::builtins::Builtin;
use crate::script::ir::{ChannelId, CtorId, DataTypeId, FuncId};

pub use super::seq::Seq;

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

    /// What kind of value this is, for messages.
    pub fn is_function(&self) -> bool {
        matches!(
            self,
            Value::Closure(_) | Value::Builtin(_) | Value::Image(_)
        )
    }

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
            Value::Set(_) => "a set",
            Value::Map(_) => "a map",
            Value::Closure(_) | Value::Builtin(_) | Value::Image(_) => "a function",
            Value::Proc(_) => "a process",
            Value::Env(_) => "an environment",
        }
    }
}

/// A set of values. Finite sets are explicit; the infinite ones CSPM
/// names (`Int`, `{n..}`, `Seq(A)`, ...) are kept symbolic: membership
/// works, enumeration is an error.
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
    /// `Set(A)` over an infinite A (over a finite one it is explicit).
    Powerset(Arc<Set>),
    /// The values of a recursive datatype.
    DataType(DataTypeId),
    /// `Map(A, B)`: every map from A to B.
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

    pub fn as_finite(&self) -> Option<&[Value]> {
        match self {
            Set::Finite(values) => Some(values),
            _ => None,
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

impl PartialEq for Closure {
    fn eq(&self, other: &Closure) -> bool {
        std::ptr::eq(self, other)
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
        (self as *const Closure).cmp(&(other as *const Closure))
    }
}

impl Hash for Closure {
    fn hash<H: Hasher>(&self, state: &mut H) {
        (self as *const Closure).hash(state);
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
/// the environment of a recursive `let` group.
#[derive(Debug, Clone)]
pub enum Slot {
    Empty,
    Value(Value),
    Lazy(Arc<Thunk>),
    Group(Env),
}

/// A `let` constant, evaluated when first used and then remembered.
#[derive(Debug)]
pub struct Thunk {
    pub func: FuncId,
    pub env: Env,
    pub value: OnceLock<Value>,
    /// Set while it is being evaluated, to catch a constant defined in
    /// terms of itself.
    pub forcing: AtomicBool,
}

impl Thunk {
    pub fn new(func: FuncId, env: Env) -> Thunk {
        Thunk {
            func,
            env,
            value: OnceLock::new(),
            forcing: AtomicBool::new(false),
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
