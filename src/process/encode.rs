//! Process states written as bytes: the encoding that crosses a process
//! boundary. A state is its term written out — the operator, then its
//! operands in turn, its event sets as ids and its relations as pairs,
//! its leaves as the values they hold ([`crate::eval::value::bytes`]) —
//! so another [`Processes`] of the same script reads it back as the same
//! state, whatever order it interned its own states in. Event ids need
//! no translation: every `Processes` of a script numbers events alike
//! (see [`super::key`]).
//!
//! Unlike a [`super::StateKey`], the bytes hold no evaluator's values,
//! so they can be sent to another process or machine; and equal states
//! have equal bytes, so a hash of the bytes places a state the same way
//! everywhere.

use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::eval::value::bytes::{DecodeResult, Reader, Writer};

use super::{Compression, EventId, EventRelation, EventSet, Place, ProcId, Processes, Term};

/// The tag of a subterm written before within the same state's
/// encoding, followed by its number (the terms' own tags are 0 to 25,
/// 27 and 28).
const REFERENCE: u8 = 26;

/// Every compression, numbered for the encoding.
const COMPRESSIONS: [Compression; 8] = [
    Compression::Normal,
    Compression::Sbisim,
    Compression::Wbisim,
    Compression::Dbisim,
    Compression::TauLoopFactor,
    Compression::Diamond,
    Compression::Explicate,
    Compression::ModelCompress,
];

impl Processes<'_> {
    /// Appends the encoding of state `id` to `out`. (A state of a
    /// compression that groups states names its class by a member every
    /// `Processes` picks alike: see `Processes::class_name`.)
    pub fn encode_state(&self, id: ProcId, out: &mut Vec<u8>) {
        self.write_encoded(id, &mut Writer { out });
    }

    /// The state `bytes` encode (all of them), interned here.
    pub fn decode_state(&mut self, bytes: &[u8]) -> DecodeResult<ProcId> {
        let script = self.script();
        let mut reader = Reader::new(script, bytes);
        let id = self.read_encoded(&mut reader)?;
        reader.finish()?;
        Ok(id)
    }

    /// Reads one state from `reader`, leaving what follows it.
    pub fn read_encoded(&mut self, reader: &mut Reader) -> DecodeResult<ProcId> {
        self.read_shared(reader, &mut Vec::new())
    }

    /// Writes one state to `writer`.
    pub fn write_encoded(&self, id: ProcId, w: &mut Writer) {
        self.write_shared(id, w, &mut FxHashMap::default());
    }

    /// Writes `id` within the encoding of one state, where `written`
    /// numbers the subterms written so far in the order they were
    /// begun: a subterm met again is written as a reference to its
    /// number ([`REFERENCE`]), so the bytes grow with the term's
    /// distinct subterms, not with its tree (halves composed and
    /// compressed level by level share one subterm per level). Equal
    /// states are still equal bytes: subterms are equal exactly when
    /// their ids are (terms are interned), and numbered in the order a
    /// walk of the term meets them, the same in every process.
    fn write_shared(&self, id: ProcId, w: &mut Writer, written: &mut FxHashMap<ProcId, u32>) {
        if let Some(&number) = written.get(&id) {
            w.tag(REFERENCE);
            w.u32(number);
            return;
        }
        let number = written.len() as u32;
        written.insert(id, number);
        stacker::maybe_grow(64 * 1024, 1024 * 1024, || {
            self.write_encoded_here(id, w, written)
        });
    }

    fn write_encoded_here(&self, id: ProcId, w: &mut Writer, written: &mut FxHashMap<ProcId, u32>) {
        let set = |w: &mut Writer, s: &u32| write_set(self.set(*s), w);
        let relation = |w: &mut Writer, r: &u32| write_relation(self.relation(*r), w);
        let all = |w: &mut Writer, ps: &[ProcId], written: &mut FxHashMap<ProcId, u32>| {
            w.count(ps.len());
            for &p in ps {
                self.write_shared(p, w, written);
            }
        };
        match self.term(id) {
            Term::Node(proc) => {
                w.tag(0);
                w.proc(proc);
            }
            Term::Stop => w.tag(1),
            Term::Skip => w.tag(2),
            Term::Div => w.tag(3),
            Term::Omega => w.tag(4),
            Term::Done(depth) => {
                w.tag(5);
                w.u32(*depth);
            }
            Term::Run(s) => {
                w.tag(6);
                set(w, s);
            }
            Term::Chaos(s) => {
                w.tag(7);
                set(w, s);
            }
            Term::ChaosOffer(s) => {
                w.tag(8);
                set(w, s);
            }
            Term::Chosen { prefix, choice } => {
                w.tag(9);
                self.write_shared(*prefix, w, written);
                w.values(choice.iter());
            }
            Term::ExternalChoice(ps) => {
                w.tag(10);
                all(w, ps, written);
            }
            Term::SequentialComposition(a, b)
            | Term::Interrupt(a, b)
            | Term::SlidingChoice(a, b) => {
                w.tag(match self.term(id) {
                    Term::SequentialComposition(..) => 11,
                    Term::Interrupt(..) => 12,
                    _ => 13,
                });
                self.write_shared(*a, w, written);
                self.write_shared(*b, w, written);
            }
            Term::Exception(a, s, b) | Term::SyncInterrupt(a, s, b) => {
                w.tag(if matches!(self.term(id), Term::Exception(..)) {
                    14
                } else {
                    15
                });
                self.write_shared(*a, w, written);
                set(w, s);
                self.write_shared(*b, w, written);
            }
            Term::SyncExternalChoice(s, ps) => {
                w.tag(16);
                set(w, s);
                all(w, ps, written);
            }
            Term::Hide(p, s) => {
                w.tag(17);
                self.write_shared(*p, w, written);
                set(w, s);
            }
            Term::Rename(p, r) => {
                w.tag(18);
                self.write_shared(*p, w, written);
                relation(w, r);
            }
            Term::Parallel(s, ps) => {
                w.tag(19);
                set(w, s);
                all(w, ps, written);
            }
            Term::AlphaParallel(pairs) => {
                w.tag(20);
                w.count(pairs.len());
                for (s, p) in pairs.iter() {
                    set(w, s);
                    self.write_shared(*p, w, written);
                }
            }
            Term::Linked(a, r, b) => {
                w.tag(21);
                self.write_shared(*a, w, written);
                relation(w, r);
                self.write_shared(*b, w, written);
            }
            Term::Loop(p) => {
                w.tag(22);
                self.write_shared(*p, w, written);
            }
            Term::Prioritise(p, levels) => {
                w.tag(23);
                self.write_shared(*p, w, written);
                w.count(levels.len());
                for s in levels.iter() {
                    set(w, s);
                }
            }
            Term::PrioritiseOrder(p, r) => {
                w.tag(27);
                self.write_shared(*p, w, written);
                relation(w, r);
            }
            Term::Buffer {
                capacity,
                links,
                queue,
            } => {
                w.tag(28);
                w.u32(*capacity);
                relation(w, links);
                w.count(queue.len());
                for &e in queue.iter() {
                    w.u32(e);
                }
            }
            Term::Chase(p) => {
                w.tag(24);
                self.write_shared(*p, w, written);
            }
            Term::Compressed {
                compression,
                of,
                at,
            } => {
                w.tag(25);
                let index = COMPRESSIONS.iter().position(|c| c == compression);
                w.count(index.expect("every compression is numbered"));
                self.write_shared(*of, w, written);
                match at {
                    Place::Member(p) => {
                        w.tag(0);
                        self.write_shared(*p, w, written);
                    }
                    Place::Numbered(n) => {
                        w.tag(1);
                        w.u32(*n);
                    }
                }
            }
        }
    }

    /// Reads one subterm of a state's encoding, where `read` holds the
    /// subterms read so far by number (see [`Processes::write_shared`]).
    fn read_shared(
        &mut self,
        r: &mut Reader,
        read: &mut Vec<Option<ProcId>>,
    ) -> DecodeResult<ProcId> {
        stacker::maybe_grow(64 * 1024, 1024 * 1024, || self.read_encoded_here(r, read))
    }

    fn read_encoded_here(
        &mut self,
        r: &mut Reader,
        read: &mut Vec<Option<ProcId>>,
    ) -> DecodeResult<ProcId> {
        let tag = r.tag()?;
        if tag == REFERENCE {
            let number = r.u32()? as usize;
            return match read.get(number) {
                Some(&Some(id)) => Ok(id),
                // Not begun, or begun and not finished: a term cannot
                // hold itself.
                _ => r.error(format!("a reference to subterm {number}")),
            };
        }
        let number = read.len();
        read.push(None);
        let term = match tag {
            0 => match r.proc()? {
                // A built-in process is a term of its own, never a leaf.
                proc @ crate::eval::Proc::Node { .. } => Term::Node(Arc::new(proc)),
                crate::eval::Proc::Builtin { .. } => {
                    return r.error("a built-in process as a control state");
                }
            },
            1 => Term::Stop,
            2 => Term::Skip,
            3 => Term::Div,
            4 => Term::Omega,
            5 => Term::Done(r.u32()?),
            tag @ 6..=8 => {
                let s = self.read_set(r)?;
                match tag {
                    6 => Term::Run(s),
                    7 => Term::Chaos(s),
                    _ => Term::ChaosOffer(s),
                }
            }
            9 => {
                let prefix = self.read_shared(r, read)?;
                if !matches!(self.term(prefix), Term::Node(_)) {
                    return r.error("a chosen prefix that is not a control state");
                }
                Term::Chosen {
                    prefix,
                    choice: r.values()?.into(),
                }
            }
            10 => Term::ExternalChoice(self.read_states(r, read)?),
            tag @ 11..=13 => {
                let a = self.read_shared(r, read)?;
                let b = self.read_shared(r, read)?;
                match tag {
                    11 => Term::SequentialComposition(a, b),
                    12 => Term::Interrupt(a, b),
                    _ => Term::SlidingChoice(a, b),
                }
            }
            tag @ 14..=15 => {
                let a = self.read_shared(r, read)?;
                let s = self.read_set(r)?;
                let b = self.read_shared(r, read)?;
                if tag == 14 {
                    Term::Exception(a, s, b)
                } else {
                    Term::SyncInterrupt(a, s, b)
                }
            }
            16 => {
                let s = self.read_set(r)?;
                Term::SyncExternalChoice(s, self.read_states(r, read)?)
            }
            17 => {
                let p = self.read_shared(r, read)?;
                Term::Hide(p, self.read_set(r)?)
            }
            18 => {
                let p = self.read_shared(r, read)?;
                Term::Rename(p, self.read_relation(r)?)
            }
            19 => {
                let s = self.read_set(r)?;
                Term::Parallel(s, self.read_states(r, read)?)
            }
            20 => {
                let n = r.count()?;
                let mut pairs = Vec::with_capacity(n);
                for _ in 0..n {
                    let s = self.read_set(r)?;
                    pairs.push((s, self.read_shared(r, read)?));
                }
                Term::AlphaParallel(pairs.into())
            }
            21 => {
                let a = self.read_shared(r, read)?;
                let relation = self.read_relation(r)?;
                Term::Linked(a, relation, self.read_shared(r, read)?)
            }
            22 => Term::Loop(self.read_shared(r, read)?),
            23 => {
                let p = self.read_shared(r, read)?;
                let n = r.count()?;
                let levels = (0..n)
                    .map(|_| self.read_set(r))
                    .collect::<DecodeResult<Arc<[u32]>>>()?;
                Term::Prioritise(p, levels)
            }
            24 => Term::Chase(self.read_shared(r, read)?),
            25 => {
                let index = r.count()?;
                let Some(&compression) = COMPRESSIONS.get(index) else {
                    return r.error(format!("compression {index}"));
                };
                let of = self.read_shared(r, read)?;
                let at = match r.tag()? {
                    0 => Place::Member(self.read_shared(r, read)?),
                    1 => Place::Numbered(r.u32()?),
                    tag => return r.error(format!("place tag {tag}")),
                };
                Term::Compressed {
                    compression,
                    of,
                    at,
                }
            }
            27 => {
                let p = self.read_shared(r, read)?;
                Term::PrioritiseOrder(p, self.read_relation(r)?)
            }
            28 => {
                let capacity = r.u32()?;
                let links = self.read_relation(r)?;
                let n = r.count()?;
                let queue = (0..n)
                    .map(|_| self.read_event(r))
                    .collect::<DecodeResult<Arc<[EventId]>>>()?;
                Term::Buffer {
                    capacity,
                    links,
                    queue,
                }
            }
            tag => return r.error(format!("term tag {tag}")),
        };
        let id = self.intern(term);
        read[number] = Some(id);
        Ok(id)
    }

    fn read_states(
        &mut self,
        r: &mut Reader,
        read: &mut Vec<Option<ProcId>>,
    ) -> DecodeResult<Arc<[ProcId]>> {
        let n = r.count()?;
        (0..n).map(|_| self.read_shared(r, read)).collect()
    }

    fn read_event(&self, r: &mut Reader) -> DecodeResult<u32> {
        let id = r.u32()?;
        if (id as usize) < self.events().id_count() {
            Ok(id)
        } else {
            r.error(format!("event {id}"))
        }
    }

    fn read_set(&mut self, r: &mut Reader) -> DecodeResult<u32> {
        let n = r.count()?;
        let ids = (0..n)
            .map(|_| self.read_event(r))
            .collect::<DecodeResult<Vec<_>>>()?;
        let set = EventSet::from_ids(ids, self.events().id_count());
        Ok(self.intern_set(set))
    }

    fn read_relation(&mut self, r: &mut Reader) -> DecodeResult<u32> {
        let n = r.count()?;
        let mut pairs = Vec::with_capacity(n);
        for _ in 0..n {
            let a = self.read_event(r)?;
            pairs.push((a, self.read_event(r)?));
        }
        Ok(self.intern_relation(EventRelation::new(pairs)))
    }
}

fn write_set(set: &EventSet, w: &mut Writer) {
    w.count(set.len());
    for id in set.iter() {
        w.u32(id);
    }
}

fn write_relation(relation: &EventRelation, w: &mut Writer) {
    w.count(relation.pairs().len());
    for &(a, b) in relation.pairs() {
        w.u32(a);
        w.u32(b);
    }
}
