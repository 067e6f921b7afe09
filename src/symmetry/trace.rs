//! A given trace under symmetry: the reduced `:[has trace]:`.
//!
//! A trace names particular values, so it is not symmetric itself; but
//! the states after a prefix `t` are closed under every permutation that
//! fixes the values `t` names. The reduced walk therefore keeps, beside
//! each representative `q`, a *partial* bijection φ from the values the
//! trace has named so far to values of `q`: the pair (q, φ) stands for
//! every raw state `r` with `σ(r) = q` for some σ agreeing with φ. A move
//! of `q` with event `f` takes the trace's next event `e` when `f` is `e`
//! with its values mapped by φ, extended injectively to values `e` names
//! first; the target's representative (permutation π) gets π∘φ. This is
//! sound and complete: a raw state reached after `t` has such a pair, and
//! a pair's raw state can be chosen, by the closure above, to agree with
//! any injective extension of φ.
//!
//! Two pairs that differ only in images the state does not hold stand
//! for the same raw states (a permutation of values a state does not
//! hold fixes it), so such images are renamed to the least free values
//! ([`TraceMatcher::free`]). What the walk counts is then the orbits of
//! the raw states under the permutations that fix the values the trace
//! has named.
//!
//! The bijection is a row of numbers, one per distinct value the trace
//! names (its image's [`Atom::raw`], or [`UNSET`]), so the search stores
//! it as extra columns.

use rustc_hash::FxHashMap;

use crate::eval::Value;
use crate::process::{EventId, Processes};

use super::apply::{Collapse, Movable, map_value};
use super::perm::Permutation;
use super::spec::{Atom, Symmetry};

/// A value of the trace not named yet.
pub const UNSET: u32 = u32::MAX;

/// An event as the matcher reads it: its shape (every distinguished
/// value the first of its type) and its distinguished values in order.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Pattern {
    shape: Value,
    atoms: Vec<Atom>,
}

/// The trace's events read once, and the events of the system read as
/// they are met.
pub struct TraceMatcher {
    /// The distinct values the trace names, by first appearance.
    names: Vec<Atom>,
    /// Per trace event: its shape, and the place in `names` of each of
    /// its values in order.
    steps: Vec<(Value, Vec<usize>)>,
    patterns: FxHashMap<EventId, Option<Pattern>>,
    movable: Movable,
}

impl TraceMatcher {
    /// Reads `trace`; `None` when an event holds a distinguished value
    /// where no position names it (inside a set, a map, a function), so
    /// matching by position would not be exact.
    pub fn new(symmetry: &Symmetry, procs: &Processes, trace: &[EventId]) -> Option<TraceMatcher> {
        let movable = Movable::new(symmetry, procs.events());
        let mut names: Vec<Atom> = Vec::new();
        let mut steps = Vec::with_capacity(trace.len());
        for &e in trace {
            let pattern = pattern(symmetry, &movable, procs, e)?;
            let places = pattern
                .atoms
                .iter()
                .map(|&a| match names.iter().position(|&n| n == a) {
                    Some(k) => k,
                    None => {
                        names.push(a);
                        names.len() - 1
                    }
                })
                .collect();
            steps.push((pattern.shape, places));
        }
        Some(TraceMatcher {
            names,
            steps,
            patterns: FxHashMap::default(),
            movable,
        })
    }

    /// The columns the bijection takes: one per distinct value named.
    pub fn columns(&self) -> usize {
        self.names.len()
    }

    /// The bijection after the trace's `k`-th event (from 0) is matched
    /// by a move with event `f`, from `images`: `None` when `f` is not
    /// the event under any extension of `images`.
    pub fn step(
        &mut self,
        symmetry: &Symmetry,
        procs: &Processes,
        k: usize,
        images: &[u32],
        f: EventId,
    ) -> Option<Vec<u32>> {
        let movable = &self.movable;
        let found = self
            .patterns
            .entry(f)
            .or_insert_with(|| pattern(symmetry, movable, procs, f));
        let found = found.as_ref()?;
        let (shape, places) = &self.steps[k];
        if found.shape != *shape {
            return None;
        }
        let mut next = images.to_vec();
        for (&place, &value) in places.iter().zip(&found.atoms) {
            match next[place] {
                UNSET if next.contains(&value.raw()) => return None,
                UNSET => next[place] = value.raw(),
                image if image != value.raw() => return None,
                _ => {}
            }
        }
        Some(next)
    }

    /// The bijection's images under `perm`.
    pub fn permute(images: &mut [u32], perm: &Permutation) {
        for image in images.iter_mut().filter(|i| **i != UNSET) {
            *image = perm.apply(Atom::from_raw(*image)).raw();
        }
    }

    /// Renames the images the state does not hold (`held`: every value it
    /// holds) to the least values of their types it does not hold, in
    /// the order of the images: a permutation moving only values a state
    /// does not hold fixes the state, so the pair stands for the same
    /// raw states, and pairs that differ only there become one.
    pub fn free(images: &mut [u32], held: impl Iterator<Item = Atom>) {
        let held: rustc_hash::FxHashSet<u32> = held.map(Atom::raw).collect();
        let mut taken: rustc_hash::FxHashSet<u32> = images
            .iter()
            .copied()
            .filter(|i| held.contains(i))
            .collect();
        for image in images.iter_mut() {
            if *image == UNSET || held.contains(image) {
                continue;
            }
            let ty = Atom::from_raw(*image).ty();
            let least = (0..)
                .map(|k| Atom::new(ty, k).raw())
                .find(|a| !held.contains(a) && !taken.contains(a))
                .expect("an injection leaves a value free");
            taken.insert(least);
            *image = least;
        }
    }
}

/// Event `e`'s shape and values; `None` when a distinguished value sits
/// where no position names it.
fn pattern(
    symmetry: &Symmetry,
    movable: &Movable,
    procs: &Processes,
    e: EventId,
) -> Option<Pattern> {
    let Some(value) = procs.events().value(e) else {
        // τ and ✓ hold nothing.
        return Some(Pattern {
            shape: Value::Int(i64::from(e)),
            atoms: Vec::new(),
        });
    };
    let mut atoms = Vec::new();
    positional_atoms(symmetry, value, &mut atoms)?;
    let shape = map_value(value, &Collapse { symmetry, movable }).unwrap_or_else(|| value.clone());
    Some(Pattern { shape, atoms })
}

/// The distinguished values of `value` in order; `None` if one sits in a
/// set, a map or a function.
fn positional_atoms(symmetry: &Symmetry, value: &Value, out: &mut Vec<Atom>) -> Option<()> {
    match value {
        Value::Ctor(c) => {
            if let Some(a) = symmetry.atom(*c) {
                out.push(a);
            }
            Some(())
        }
        Value::Named(parts) | Value::Dot(parts) | Value::Tuple(parts) => parts
            .iter()
            .try_for_each(|v| positional_atoms(symmetry, v, out)),
        Value::Seq(seq) => seq
            .iter()
            .try_for_each(|v| positional_atoms(symmetry, v, out)),
        Value::Int(_) | Value::Bool(_) | Value::Char(_) | Value::Channel(_) | Value::Builtin(_) => {
            Some(())
        }
        other => (!super::apply::holds_distinguished(symmetry, other)).then_some(()),
    }
}
