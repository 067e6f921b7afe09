//! A compressed component's behaviour as a run of the process it
//! compresses: the events it performed, with the τs the compression
//! removed put back, from a state its first compressed state stands for
//! to one its last stands for (stable where that one is stable, on a
//! τ-loop where that one diverges). The run is found breadth first over
//! the original's real transitions, so it is a behaviour of the
//! uncompressed process, and a shortest one.

use rustc_hash::FxHashMap;

use crate::eval::{EvalError, EvalResult};

use super::super::term::Place;
use super::super::{EventId, ProcId, Processes, TAU, Term, Transition};

/// What the end of a run must be, beyond standing for the last state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// Any state the last compressed state stands for.
    Any,
    /// A stable one (a deadlock or a refusal is seen in a stable state).
    Stable,
    /// One on a τ-loop, which the run then goes round once.
    Divergent,
}

/// A run of the original process behind a compressed component.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unwound {
    /// The original process's state the compression was computed from.
    pub of: ProcId,
    pub start: ProcId,
    pub steps: Vec<Transition>,
}

/// A point of the search: a state of the original, and how many of the
/// events it has performed.
type Point = (ProcId, usize);

/// States looked at between two polls of the meter.
const POLL_EVERY: usize = 1024;

impl Processes<'_> {
    /// The run of the original process behind compressed states `from`
    /// and `to` of one compression, performing `events` (the
    /// component's own visible events and ✓, in order); `None` when they
    /// are not states of one compressed process.
    pub fn unwind(
        &mut self,
        from: ProcId,
        events: &[EventId],
        to: ProcId,
        ending: Ending,
    ) -> EvalResult<Option<Unwound>> {
        let (
            Term::Compressed {
                compression,
                of,
                at: start_at,
            },
            Term::Compressed {
                compression: c2,
                of: of2,
                at: end_at,
            },
        ) = (self.term(from).clone(), self.term(to).clone())
        else {
            return Ok(None);
        };
        if (compression, of) != (c2, of2) {
            return Ok(None);
        }
        let table = self.compressed(compression, of)?;
        let members = |at: &Place<ProcId>| -> Vec<ProcId> {
            table
                .index(at)
                .map_or_else(Vec::new, |i| table.members[i as usize].to_vec())
        };
        // A run from the start begins where the original does.
        let sources = if table.index(&start_at) == Some(table.initial) {
            vec![of]
        } else {
            members(&start_at)
        };
        let targets: rustc_hash::FxHashSet<ProcId> = members(&end_at).into_iter().collect();
        // Breadth first over (state, events performed so far).
        let mut parent: FxHashMap<Point, Option<(Point, EventId)>> = FxHashMap::default();
        let mut queue: Vec<Point> = Vec::new();
        for s in sources {
            if parent.insert((s, 0), None).is_none() {
                queue.push((s, 0));
            }
        }
        let mut next = 0;
        while let Some(&(state, done)) = queue.get(next) {
            next += 1;
            if next % POLL_EVERY == 0 {
                self.meter().poll().map_err(EvalError::stopped)?;
            }
            if done == events.len() && targets.contains(&state) {
                let tail = match ending {
                    Ending::Any => Some(Vec::new()),
                    Ending::Stable => self
                        .transitions(state)?
                        .iter()
                        .all(|t| t.event != TAU)
                        .then(Vec::new),
                    Ending::Divergent => self.tau_cycle(state)?,
                };
                if let Some(tail) = tail {
                    let mut steps = tail;
                    steps.reverse();
                    let mut at = (state, done);
                    while let Some(&Some((before, event))) = parent.get(&at) {
                        steps.push(Transition {
                            event,
                            target: at.0,
                        });
                        at = before;
                    }
                    steps.reverse();
                    return Ok(Some(Unwound {
                        of,
                        start: at.0,
                        steps,
                    }));
                }
            }
            for t in self.transitions(state)?.iter() {
                let after = if t.event == TAU {
                    done
                } else if events.get(done) == Some(&t.event) {
                    done + 1
                } else {
                    continue;
                };
                let key = (t.target, after);
                if let std::collections::hash_map::Entry::Vacant(e) = parent.entry(key) {
                    e.insert(Some(((state, done), t.event)));
                    queue.push(key);
                }
            }
        }
        Ok(None)
    }

    /// A shortest way round a τ-loop through `state`, if it is on one.
    fn tau_cycle(&mut self, state: ProcId) -> EvalResult<Option<Vec<Transition>>> {
        let mut parent: FxHashMap<ProcId, ProcId> = FxHashMap::default();
        let mut queue = vec![state];
        let mut next = 0;
        while let Some(&s) = queue.get(next) {
            next += 1;
            if next % POLL_EVERY == 0 {
                self.meter().poll().map_err(EvalError::stopped)?;
            }
            for t in self.transitions(s)?.iter() {
                if t.event != TAU {
                    continue;
                }
                if t.target == state {
                    let mut steps = vec![Transition {
                        event: TAU,
                        target: state,
                    }];
                    let mut at = s;
                    while at != state {
                        steps.push(Transition {
                            event: TAU,
                            target: at,
                        });
                        at = parent[&at];
                    }
                    steps.reverse();
                    return Ok(Some(steps));
                }
                if let std::collections::hash_map::Entry::Vacant(e) = parent.entry(t.target) {
                    e.insert(s);
                    queue.push(t.target);
                }
            }
        }
        Ok(None)
    }
}
