//! Values written as bytes that another process loading the same script
//! reads back as an equal value: every id in a value (function,
//! constructor, channel, datatype, expression, built-in) is a number the
//! script's resolution gives alike in every process, and everything else
//! is written by content. Sharing is not kept: a value is written as the
//! tree it is equal to.
//!
//! Integers are LEB128 varints (signed ones zigzagged), so the small
//! numbers states are made of take a byte each. Reading checks every id
//! against the script and every length against the bytes left, so a
//! malformed message is an error, never a panic or a huge allocation.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use crate::script::Script;
use crate::script::builtins::Builtin;
use crate::script::ir::{ChannelId, CtorId, DataTypeId, ExprId, FuncId};

use super::stream::{Rest, Stream, Suspended};
use super::{Closure, Env, Proc, Seq, Set, Slot, Thunk, Value};

/// Bytes that do not read as what they should.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError(pub String);

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "malformed state encoding: {}", self.0)
    }
}

impl std::error::Error for DecodeError {}

pub type DecodeResult<T> = Result<T, DecodeError>;

/// How deep a value may nest when read: far beyond what a state holds,
/// and well within the stack the reader grows into.
const MAX_DEPTH: u32 = 100_000;

/// Appends the encodings of values (and their parts) to a buffer.
pub struct Writer<'b> {
    pub out: &'b mut Vec<u8>,
}

impl Writer<'_> {
    pub fn u64(&mut self, mut n: u64) {
        loop {
            let byte = (n & 0x7f) as u8;
            n >>= 7;
            if n == 0 {
                self.out.push(byte);
                return;
            }
            self.out.push(byte | 0x80);
        }
    }

    pub fn u32(&mut self, n: u32) {
        self.u64(n.into());
    }

    pub fn count(&mut self, n: usize) {
        self.u64(n as u64);
    }

    pub fn i64(&mut self, n: i64) {
        self.u64(((n << 1) ^ (n >> 63)) as u64);
    }

    pub fn tag(&mut self, tag: u8) {
        self.out.push(tag);
    }

    pub fn values<'v>(&mut self, values: impl ExactSizeIterator<Item = &'v Value>) {
        self.count(values.len());
        for v in values {
            self.value(v);
        }
    }

    pub fn value(&mut self, value: &Value) {
        stacker::maybe_grow(64 * 1024, 1024 * 1024, || self.value_here(value));
    }

    fn value_here(&mut self, value: &Value) {
        match value {
            Value::Int(n) => {
                self.tag(0);
                self.i64(*n);
            }
            Value::Bool(b) => self.tag(if *b { 2 } else { 1 }),
            Value::Char(c) => {
                self.tag(3);
                self.u32(*c as u32);
            }
            Value::Ctor(id) => {
                self.tag(4);
                self.u32(id.0);
            }
            Value::Channel(id) => {
                self.tag(5);
                self.u32(id.0);
            }
            Value::Named(parts) => {
                self.tag(6);
                self.values(parts.iter());
            }
            Value::Dot(parts) => {
                self.tag(7);
                self.values(parts.iter());
            }
            Value::Tuple(parts) => {
                self.tag(8);
                self.values(parts.iter());
            }
            Value::Seq(seq) => {
                self.tag(9);
                self.values(seq.iter());
            }
            Value::Stream(stream) => {
                self.tag(10);
                self.stream(stream);
            }
            Value::Set(set) => {
                self.tag(11);
                self.set(set);
            }
            Value::Map(map) => {
                self.tag(12);
                self.count(map.len());
                for (k, v) in map.iter() {
                    self.value(k);
                    self.value(v);
                }
            }
            Value::Closure(closure) => {
                self.tag(13);
                self.u32(closure.func.0);
                self.env(&closure.env);
                self.values(closure.applied.iter());
                self.count(closure.groups);
            }
            Value::Builtin(builtin) => {
                self.tag(14);
                self.u32(builtin.index().into());
            }
            Value::Image(image) => {
                self.tag(15);
                self.count(image.len());
                for (k, set) in image.iter() {
                    self.value(k);
                    self.set(set);
                }
            }
            Value::Proc(proc) => {
                self.tag(16);
                self.proc(proc);
            }
            Value::Env(values) => {
                self.tag(17);
                self.values(values.iter());
            }
        }
    }

    pub fn proc(&mut self, proc: &Proc) {
        match proc {
            Proc::Node { func, vars } => {
                self.tag(0);
                self.u32(func.0);
                self.values(vars.iter());
            }
            Proc::Builtin { builtin, args } => {
                self.tag(1);
                self.u32(builtin.index().into());
                self.values(args.iter());
            }
        }
    }

    pub fn set(&mut self, set: &Set) {
        match set {
            Set::Finite(values) => {
                self.tag(0);
                self.values(values.iter());
            }
            Set::AllInts => self.tag(1),
            Set::IntsFrom(n) => {
                self.tag(2);
                self.i64(*n);
            }
            Set::AllChars => self.tag(3),
            Set::AllProcs => self.tag(4),
            Set::Seqs(of) => {
                self.tag(5);
                self.set(of);
            }
            Set::Powerset(of) => {
                self.tag(6);
                self.set(of);
            }
            Set::DataType(id) => {
                self.tag(7);
                self.u32(id.0);
            }
            Set::Maps(keys, values) => {
                self.tag(8);
                self.set(keys);
                self.set(values);
            }
        }
    }

    fn stream(&mut self, stream: &Stream) {
        self.values(stream.prefix().iter());
        match stream.rest() {
            Rest::From(n) => {
                self.tag(0);
                self.i64(*n);
            }
            Rest::Comprehension(suspended) => {
                self.tag(1);
                self.u32(suspended.expr.0);
                self.count(suspended.generator);
                self.env(&suspended.env);
                self.env(&suspended.locals);
                self.stream(&suspended.source);
            }
        }
    }

    fn env(&mut self, env: &Env) {
        self.count(env.len());
        for slot in env.iter() {
            match slot {
                Slot::Empty => self.tag(0),
                Slot::Value(v) => {
                    self.tag(1);
                    self.value(v);
                }
                Slot::Lazy(thunk) => {
                    self.tag(2);
                    self.u32(thunk.func.0);
                    self.env(&thunk.env);
                }
                Slot::Group(env) => {
                    self.tag(3);
                    self.env(env);
                }
            }
        }
    }
}

/// How many arguments a built-in process takes; `None` for a built-in
/// that is not a process.
fn process_arity(builtin: Builtin) -> Option<usize> {
    match builtin {
        Builtin::Stop | Builtin::Skip | Builtin::Div => Some(0),
        Builtin::Run | Builtin::Chaos => Some(1),
        Builtin::Buffer => Some(2),
        Builtin::ProcessFunction(function) => Some(function.arity()),
        _ => None,
    }
}

/// Reads what a [`Writer`] wrote, against the script both sides loaded.
pub struct Reader<'b> {
    bytes: &'b [u8],
    at: usize,
    depth: u32,
    bounds: Bounds,
    /// Per function: how many variables it captures (a control state
    /// holds exactly those).
    captures: Vec<u32>,
}

/// How many of each kind of id the script has.
#[derive(Debug, Clone, Copy)]
struct Bounds {
    funcs: usize,
    exprs: usize,
    ctors: usize,
    channels: usize,
    datatypes: usize,
}

impl<'b> Reader<'b> {
    pub fn new(script: &Script, bytes: &'b [u8]) -> Reader<'b> {
        Reader {
            bytes,
            at: 0,
            depth: 0,
            bounds: Bounds {
                funcs: script.functions.len(),
                exprs: script.exprs.len(),
                ctors: script.ctors.len(),
                channels: script.channels.len(),
                datatypes: script.datatypes.len(),
            },
            captures: script
                .functions
                .iter()
                .map(|f| f.captures.len() as u32)
                .collect(),
        }
    }

    pub fn error<T>(&self, what: impl fmt::Display) -> DecodeResult<T> {
        Err(DecodeError(format!("{what} at byte {}", self.at)))
    }

    /// Whether every byte has been read.
    pub fn is_done(&self) -> bool {
        self.at == self.bytes.len()
    }

    /// How many bytes are still to be read.
    pub fn remaining(&self) -> usize {
        self.bytes.len() - self.at
    }

    /// Fails unless every byte has been read.
    pub fn finish(&self) -> DecodeResult<()> {
        if self.is_done() {
            Ok(())
        } else {
            self.error(format!("{} bytes left over", self.bytes.len() - self.at))
        }
    }

    pub fn tag(&mut self) -> DecodeResult<u8> {
        match self.bytes.get(self.at) {
            Some(&b) => {
                self.at += 1;
                Ok(b)
            }
            None => self.error("the bytes end early"),
        }
    }

    pub fn u64(&mut self) -> DecodeResult<u64> {
        let mut n = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = self.tag()?;
            n |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Ok(n);
            }
        }
        self.error("a number longer than 64 bits")
    }

    pub fn u32(&mut self) -> DecodeResult<u32> {
        let n = self.u64()?;
        u32::try_from(n).or_else(|_| self.error(format!("{n} does not fit 32 bits")))
    }

    pub fn i64(&mut self) -> DecodeResult<i64> {
        let n = self.u64()?;
        Ok(((n >> 1) as i64) ^ -((n & 1) as i64))
    }

    /// A count of things each at least a byte long: never more than the
    /// bytes left, so a corrupt length cannot ask for a huge allocation.
    pub fn count(&mut self) -> DecodeResult<usize> {
        let n = self.u64()?;
        let left = (self.bytes.len() - self.at) as u64;
        if n > left {
            return self.error(format!("a length of {n} with {left} bytes left"));
        }
        Ok(n as usize)
    }

    fn id(&mut self, what: &str, bound: usize) -> DecodeResult<u32> {
        let n = self.u32()?;
        if (n as usize) < bound {
            Ok(n)
        } else {
            self.error(format!("{what} {n} of {bound}"))
        }
    }

    pub fn func(&mut self) -> DecodeResult<FuncId> {
        self.id("function", self.bounds.funcs).map(FuncId)
    }

    fn builtin(&mut self) -> DecodeResult<Builtin> {
        let n = self.u32()?;
        u16::try_from(n)
            .ok()
            .and_then(Builtin::from_index)
            .map_or_else(|| self.error(format!("built-in {n}")), Ok)
    }

    pub fn values(&mut self) -> DecodeResult<Vec<Value>> {
        let n = self.count()?;
        (0..n).map(|_| self.value()).collect()
    }

    pub fn value(&mut self) -> DecodeResult<Value> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return self.error("values nested too deep");
        }
        let value = stacker::maybe_grow(64 * 1024, 1024 * 1024, || self.value_here());
        self.depth -= 1;
        value
    }

    fn value_here(&mut self) -> DecodeResult<Value> {
        Ok(match self.tag()? {
            0 => Value::Int(self.i64()?),
            1 => Value::Bool(false),
            2 => Value::Bool(true),
            3 => {
                let n = self.u32()?;
                Value::Char(char::from_u32(n).map_or_else(|| self.error("a character"), Ok)?)
            }
            4 => Value::Ctor(CtorId(self.id("constructor", self.bounds.ctors)?)),
            5 => Value::Channel(ChannelId(self.id("channel", self.bounds.channels)?)),
            6 => {
                let parts = self.values()?;
                if parts.len() < 2 || !matches!(parts[0], Value::Ctor(_) | Value::Channel(_)) {
                    return self.error("a datatype value or event without its head and a field");
                }
                Value::Named(parts.into())
            }
            7 => {
                let parts = self.values()?;
                if parts.len() < 2 || parts.iter().any(|p| matches!(p, Value::Dot(_))) {
                    return self.error("a dotted value of fewer than two parts, or nested");
                }
                Value::Dot(parts.into())
            }
            8 => {
                let parts = self.values()?;
                if parts.len() < 2 {
                    return self.error("a tuple of fewer than two values");
                }
                Value::Tuple(parts.into())
            }
            9 => Value::Seq(Seq::from_vec(self.values()?)),
            10 => Value::Stream(Arc::new(self.stream()?)),
            11 => Value::Set(Arc::new(self.set()?)),
            12 => {
                let n = self.count()?;
                let mut map = BTreeMap::new();
                for _ in 0..n {
                    let k = self.value()?;
                    map.insert(k, self.value()?);
                }
                Value::Map(Arc::new(map))
            }
            13 => {
                let func = self.func()?;
                let env = self.env()?;
                let applied = self.values()?;
                let groups = self.u64()? as usize;
                Value::Closure(Arc::new(Closure {
                    func,
                    env,
                    applied,
                    groups,
                }))
            }
            14 => Value::Builtin(self.builtin()?),
            15 => {
                let n = self.count()?;
                let mut image = BTreeMap::new();
                for _ in 0..n {
                    let k = self.value()?;
                    image.insert(k, self.set()?);
                }
                Value::Image(Arc::new(image))
            }
            16 => Value::Proc(Arc::new(self.proc()?)),
            17 => Value::Env(self.values()?.into()),
            tag => return self.error(format!("value tag {tag}")),
        })
    }

    pub fn proc(&mut self) -> DecodeResult<Proc> {
        Ok(match self.tag()? {
            0 => {
                let func = self.func()?;
                let vars = self.values()?;
                let captured = self.captures[func.index()] as usize;
                if vars.len() != captured {
                    return self.error(format!(
                        "a control state with {} variables where its process has {captured}",
                        vars.len()
                    ));
                }
                Proc::Node {
                    func,
                    vars: vars.into(),
                }
            }
            1 => {
                let builtin = self.builtin()?;
                let args = self.values()?;
                if process_arity(builtin) != Some(args.len()) {
                    return self.error(format!(
                        "the built-in process {} with {} arguments",
                        builtin.name(),
                        args.len()
                    ));
                }
                Proc::Builtin {
                    builtin,
                    args: args.into(),
                }
            }
            tag => return self.error(format!("process tag {tag}")),
        })
    }

    pub fn set(&mut self) -> DecodeResult<Set> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return self.error("sets nested too deep");
        }
        let set = match self.tag()? {
            0 => {
                let values = self.values()?;
                if values.windows(2).any(|w| w[0] >= w[1]) {
                    return self.error("a set not in order");
                }
                Set::Finite(values)
            }
            1 => Set::AllInts,
            2 => Set::IntsFrom(self.i64()?),
            3 => Set::AllChars,
            4 => Set::AllProcs,
            5 => Set::Seqs(Arc::new(self.set()?)),
            6 => Set::Powerset(Arc::new(self.set()?)),
            7 => Set::DataType(DataTypeId(self.id("datatype", self.bounds.datatypes)?)),
            8 => {
                let keys = self.set()?;
                Set::Maps(Arc::new(keys), Arc::new(self.set()?))
            }
            tag => return self.error(format!("set tag {tag}")),
        };
        self.depth -= 1;
        Ok(set)
    }

    fn stream(&mut self) -> DecodeResult<Stream> {
        let prefix = Seq::from_vec(self.values()?);
        let rest = match self.tag()? {
            0 => Rest::From(self.i64()?),
            1 => {
                let expr = ExprId(self.id("expression", self.bounds.exprs)?);
                let generator = self.u64()? as usize;
                let env = self.env()?;
                let locals = self.env()?;
                let source = Arc::new(self.stream()?);
                Rest::Comprehension(Arc::new(Suspended {
                    expr,
                    generator,
                    env,
                    locals,
                    source,
                }))
            }
            tag => return self.error(format!("stream tag {tag}")),
        };
        Ok(Stream::new(prefix, rest))
    }

    fn env(&mut self) -> DecodeResult<Env> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return self.error("environments nested too deep");
        }
        let n = self.count()?;
        let mut slots = Vec::with_capacity(n);
        for _ in 0..n {
            slots.push(match self.tag()? {
                0 => Slot::Empty,
                1 => Slot::Value(self.value()?),
                // Read back unevaluated: a thunk compares by its
                // definition and environment, so it is the same slot.
                2 => {
                    let func = self.func()?;
                    Slot::Lazy(Arc::new(Thunk::new(func, self.env()?)))
                }
                3 => Slot::Group(self.env()?),
                tag => return self.error(format!("slot tag {tag}")),
            });
        }
        self.depth -= 1;
        Ok(slots.into())
    }
}
