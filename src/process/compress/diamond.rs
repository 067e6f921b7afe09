//! `diamond`: diamond elimination (Roscoe). A state keeps only what it
//! can do after its τs: every visible move of a state it reaches by τs
//! becomes its own move, so τ-paths vanish. What the τs decided is kept
//! as a τ to a stable state for each minimal acceptance among those it
//! reaches (a stable state may refuse what the node may refuse), and a τ
//! to itself where a τ-loop is reachable. States are the initial state
//! and the targets of visible moves (and of those τs): the rest are
//! never entered.

use rustc_hash::{FxHashMap, FxHashSet};

use super::super::{EventId, TAU};
use super::tau_loops::Collapsed;
use super::{OMEGA, Reduced, acceptance, minimal};

pub(crate) fn diamond(lts: &Collapsed) -> Reduced {
    let mut out = Reduced::default();
    let mut number: FxHashMap<u32, u32> = FxHashMap::default();
    let mut queue: Vec<u32> = vec![lts.initial];
    number.insert(
        lts.initial,
        out.add(lts.members[lts.initial as usize].clone()),
    );
    let mut next = 0;
    while let Some(&class) = queue.get(next) {
        next += 1;
        let closure = reach_by_taus(lts, class);
        let mut moves: Vec<(EventId, u32)> = closure
            .iter()
            .flat_map(|&c| lts.edges[c as usize].iter().copied())
            .filter(|&(e, _)| e != TAU)
            .collect();
        if !(closure.len() == 1 && lts.stable(class)) {
            let divergent = closure.iter().any(|&c| lts.divergent[c as usize]);
            let stable: Vec<(Vec<EventId>, u32)> = closure
                .iter()
                .filter(|&&c| lts.stable(c))
                .map(|&c| (acceptance(lts.edges[c as usize].iter().map(|&(e, _)| e)), c))
                .collect();
            let least = minimal(stable.iter().map(|(a, _)| a.clone()).collect());
            let offered = acceptance(moves.iter().map(|&(e, _)| e));
            if divergent || least != [offered] {
                if divergent {
                    moves.push((TAU, class));
                }
                for a in &least {
                    let (_, c) = stable.iter().find(|(b, _)| b == a).expect("one of them");
                    moves.push((TAU, *c));
                }
            }
        }
        let own = number[&class];
        let mut transitions = Vec::with_capacity(moves.len());
        for (e, target) in moves {
            let target = if target == OMEGA {
                OMEGA
            } else {
                *number.entry(target).or_insert_with(|| {
                    queue.push(target);
                    out.add(lts.members[target as usize].clone())
                })
            };
            transitions.push((e, target));
        }
        out.transitions[own as usize] = transitions;
    }
    out.initial = 0;
    out
}

/// The classes `from` reaches by τs, itself included.
fn reach_by_taus(lts: &Collapsed, from: u32) -> Vec<u32> {
    let mut order = vec![from];
    let mut seen: FxHashSet<u32> = order.iter().copied().collect();
    let mut next = 0;
    while let Some(&c) = order.get(next) {
        next += 1;
        for &(e, t) in &lts.edges[c as usize] {
            if e == TAU && seen.insert(t) {
                order.push(t);
            }
        }
    }
    order
}
