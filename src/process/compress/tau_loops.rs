//! τ-loops collapsed (`tau_loop_factor`): the states of a strongly
//! connected set under τ can reach each other silently, so they are one
//! state in every model; the set is divergent when it holds a τ-cycle.
//! Every other compression but `sbisim` and `explicate` starts here, on a
//! graph whose τs never loop.

use crate::budget::Meter;
use crate::eval::{EvalError, EvalResult};

use super::super::{EventId, TAU};
use super::explicit::Explicit;
use super::{OMEGA, Reduced};

/// A process with its τ-loops collapsed.
#[derive(Debug, Default)]
pub(crate) struct Collapsed {
    /// Per class: its original states (numbers of the [`Explicit`]).
    pub members: Vec<Vec<u32>>,
    /// Per class: its transitions to classes, sorted, without the τs
    /// inside the class. A τ always leads to a class of a smaller
    /// number.
    pub edges: Vec<Vec<(EventId, u32)>>,
    /// Per class: whether it can perform τs for ever.
    pub divergent: Vec<bool>,
    pub initial: u32,
}

impl Collapsed {
    /// `tau_loop_factor`: each class one state, a divergent one with a
    /// τ to itself.
    pub fn with_loops(self) -> Reduced {
        let transitions = self
            .edges
            .into_iter()
            .zip(&self.divergent)
            .enumerate()
            .map(|(c, (mut edges, &divergent))| {
                if divergent {
                    edges.push((TAU, c as u32));
                }
                edges
            })
            .collect();
        Reduced {
            members: self.members,
            transitions,
            initial: self.initial,
            numbered: false,
        }
    }

    pub fn len(&self) -> usize {
        self.members.len()
    }

    /// Whether class `c` is stable: no τ, no divergence.
    pub fn stable(&self, c: u32) -> bool {
        !self.divergent[c as usize] && self.edges[c as usize].iter().all(|&(e, _)| e != TAU)
    }

    /// Per class: the classes it reaches by τs (itself included), sorted.
    pub fn closures(&self, meter: &Meter) -> EvalResult<Vec<Vec<u32>>> {
        let mut out: Vec<Vec<u32>> = Vec::with_capacity(self.len());
        let mut held = 0u64;
        for c in 0..self.len() {
            let mut closure = vec![c as u32];
            for &(e, t) in &self.edges[c] {
                if e == TAU {
                    closure.extend_from_slice(&out[t as usize]);
                }
            }
            closure.sort_unstable();
            closure.dedup();
            held += closure.len() as u64 * 4;
            if c % 1024 == 1023 {
                meter.poll().map_err(EvalError::stopped)?;
                meter.may_allocate(held).map_err(EvalError::stopped)?;
            }
            out.push(closure);
        }
        Ok(out)
    }
}

/// Collapses the τ-strongly-connected sets of `lts` (Tarjan's algorithm,
/// without recursion: a τ-chain may be millions of states long).
pub(crate) fn collapse(lts: &Explicit, meter: &Meter) -> EvalResult<Collapsed> {
    const UNSEEN: u32 = u32::MAX;
    let n = lts.len();
    // Each state's τ-targets, once: the walk below resumes a state's
    // list by position.
    let tau_targets: Vec<Vec<u32>> = lts
        .edges
        .iter()
        .map(|edges| {
            edges
                .iter()
                .filter(|&&(e, t)| e == TAU && t != OMEGA)
                .map(|&(_, t)| t)
                .collect()
        })
        .collect();
    let taus = |v: usize| tau_targets[v].iter().copied();
    let mut order = vec![UNSEEN; n];
    let mut low = vec![0u32; n];
    let mut on_stack = vec![false; n];
    let mut class_of = vec![UNSEEN; n];
    let mut stack: Vec<u32> = Vec::new();
    let mut members: Vec<Vec<u32>> = Vec::new();
    let mut divergent: Vec<bool> = Vec::new();
    let mut counter = 0u32;
    for start in 0..n {
        if order[start] != UNSEEN {
            continue;
        }
        // Each frame: a state and how many of its τs it has followed.
        let mut calls: Vec<(u32, usize)> = vec![(start as u32, 0)];
        order[start] = counter;
        low[start] = counter;
        counter += 1;
        stack.push(start as u32);
        on_stack[start] = true;
        while let Some(&mut (v, ref mut next)) = calls.last_mut() {
            let v = v as usize;
            if let Some(&w) = tau_targets[v].get(*next) {
                *next += 1;
                let w = w as usize;
                if order[w] == UNSEEN {
                    order[w] = counter;
                    low[w] = counter;
                    counter += 1;
                    stack.push(w as u32);
                    on_stack[w] = true;
                    calls.push((w as u32, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(order[w]);
                }
                continue;
            }
            calls.pop();
            if let Some(&(parent, _)) = calls.last() {
                low[parent as usize] = low[parent as usize].min(low[v]);
            }
            if low[v] == order[v] {
                let class = members.len() as u32;
                let mut set = Vec::new();
                loop {
                    let w = stack.pop().expect("v is on the stack");
                    on_stack[w as usize] = false;
                    class_of[w as usize] = class;
                    set.push(w);
                    if w as usize == v {
                        break;
                    }
                }
                set.sort_unstable();
                let looped = set.len() > 1 || taus(v).any(|w| w as usize == v);
                members.push(set);
                divergent.push(looped);
                if members.len().is_multiple_of(1024) {
                    meter.poll().map_err(EvalError::stopped)?;
                }
            }
        }
    }
    let edges = members
        .iter()
        .enumerate()
        .map(|(c, set)| {
            let mut out: Vec<(EventId, u32)> = set
                .iter()
                .flat_map(|&s| lts.edges[s as usize].iter())
                .map(|&(e, t)| {
                    (
                        e,
                        if t == OMEGA {
                            OMEGA
                        } else {
                            class_of[t as usize]
                        },
                    )
                })
                .filter(|&(e, t)| !(e == TAU && t == c as u32))
                .collect();
            out.sort_unstable();
            out.dedup();
            out
        })
        .collect();
    Ok(Collapsed {
        initial: class_of[0],
        members,
        edges,
        divergent,
    })
}
