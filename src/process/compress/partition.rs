//! Bisimulations by partition refinement: `sbisim` (strong) and `dbisim`
//! (weak, divergence respected; also `wbisim` and `model_compress`).
//! States start in blocks and are split by their signature — the events
//! they perform with the blocks those lead to — until no block splits;
//! each block is then one state.

use rustc_hash::FxHashMap;

use crate::budget::Meter;
use crate::eval::{EvalError, EvalResult};

use super::super::{EventId, TAU};
use super::explicit::Explicit;
use super::tau_loops::Collapsed;
use super::{OMEGA, Reduced};

/// A state's signature: its (event, block) pairs.
type Signature = Vec<(EventId, u32)>;

/// Splits `blocks` until every two states of a block have the same
/// signature (computed into the vector handed over, from the blocks of
/// the round before, after `prepare` has seen them). Blocks are numbered
/// in the order of their first state, so the result does not depend on
/// hashing.
pub(super) fn refine(
    mut blocks: Vec<u32>,
    meter: &Meter,
    mut prepare: impl FnMut(&[u32]),
    mut signature: impl FnMut(usize, &[u32], &mut Signature),
) -> EvalResult<Vec<u32>> {
    let mut count = blocks.iter().copied().max().map_or(0, |m| m + 1) as usize;
    let mut sig = Signature::new();
    loop {
        prepare(&blocks);
        let mut ids: FxHashMap<(u32, Signature), u32> = FxHashMap::default();
        let mut next = Vec::with_capacity(blocks.len());
        for s in 0..blocks.len() {
            if s % 4096 == 4095 {
                meter.poll().map_err(EvalError::stopped)?;
            }
            sig.clear();
            signature(s, &blocks, &mut sig);
            sig.sort_unstable();
            sig.dedup();
            let fresh = ids.len() as u32;
            next.push(*ids.entry((blocks[s], sig.clone())).or_insert(fresh));
        }
        blocks = next;
        if ids.len() == count {
            return Ok(blocks);
        }
        count = ids.len();
    }
}

/// The block of a target, Ω being its own.
pub(super) fn block_of(blocks: &[u32], target: u32) -> u32 {
    if target == OMEGA {
        OMEGA
    } else {
        blocks[target as usize]
    }
}

/// `sbisim`: the coarsest strong bisimulation.
pub(crate) fn strong(lts: &Explicit, meter: &Meter) -> EvalResult<Reduced> {
    let blocks = refine(
        vec![0; lts.len()],
        meter,
        |_| {},
        |s, blocks, sig| {
            sig.extend(lts.edges[s].iter().map(|&(e, t)| (e, block_of(blocks, t))));
        },
    )?;
    let mut out = Reduced::default();
    let mut seen = vec![false; lts.len()];
    for _ in 0..=blocks.iter().copied().max().unwrap_or(0) {
        out.add(Vec::new());
    }
    for (s, &b) in blocks.iter().enumerate() {
        out.members[b as usize].push(s as u32);
        if !seen[b as usize] {
            seen[b as usize] = true;
            out.transitions[b as usize] = lts.edges[s]
                .iter()
                .map(|&(e, t)| (e, block_of(&blocks, t)))
                .collect();
        }
    }
    out.initial = blocks[0];
    Ok(out)
}

/// `dbisim`: the coarsest weak bisimulation that keeps divergent states
/// apart from the rest, on a graph whose τ-loops are collapsed. Each
/// block keeps its members' transitions but the τs inside it, and a τ to
/// itself if it diverges.
pub(crate) fn weak(lts: &Collapsed, meter: &Meter) -> EvalResult<Reduced> {
    let initial: Vec<u32> = lts.divergent.iter().map(|&d| d as u32).collect();
    // Each round, the signatures of all states at once, in the order
    // of their numbers (a τ leads to a smaller one, so what a state
    // reaches by τs is known before it): the blocks a state reaches by
    // τs, then its weak visible moves — its own moves to those blocks of
    // their targets, and those of the states its τs lead to.
    let signatures: std::cell::RefCell<Vec<Signature>> =
        std::cell::RefCell::new(vec![Vec::new(); lts.len()]);
    let blocks = refine(
        initial,
        meter,
        |blocks| {
            let n = lts.len();
            let mut silent: Vec<Vec<u32>> = Vec::with_capacity(n);
            for (&block, edges) in blocks.iter().zip(&lts.edges) {
                let mut reach = vec![block];
                for &(e, u) in edges {
                    if e == TAU {
                        reach.extend_from_slice(&silent[u as usize]);
                    }
                }
                reach.sort_unstable();
                reach.dedup();
                silent.push(reach);
            }
            let mut signatures = signatures.borrow_mut();
            for t in 0..n {
                let mut sig: Signature = silent[t].iter().map(|&b| (TAU, b)).collect();
                for &(e, u) in &lts.edges[t] {
                    match (e, u) {
                        (TAU, _) => {
                            let (before, _) = signatures.split_at(t);
                            sig.extend(
                                before[u as usize]
                                    .iter()
                                    .copied()
                                    .filter(|&(f, _)| f != TAU),
                            );
                        }
                        (_, OMEGA) => sig.push((e, OMEGA)),
                        _ => sig.extend(silent[u as usize].iter().map(|&b| (e, b))),
                    }
                }
                sig.sort_unstable();
                sig.dedup();
                signatures[t] = sig;
            }
        },
        |s, _, sig| sig.extend_from_slice(&signatures.borrow()[s]),
    )?;
    let count = blocks.iter().copied().max().map_or(0, |m| m + 1);
    let mut out = Reduced::default();
    for _ in 0..count {
        out.add(Vec::new());
    }
    for (c, &b) in blocks.iter().enumerate() {
        out.members[b as usize].extend_from_slice(&lts.members[c]);
        let own = &mut out.transitions[b as usize];
        own.extend(
            lts.edges[c]
                .iter()
                .map(|&(e, t)| (e, block_of(&blocks, t)))
                .filter(|&(e, t)| !(e == TAU && t == b)),
        );
        if lts.divergent[c] {
            own.push((TAU, b));
        }
    }
    for m in &mut out.members {
        m.sort_unstable();
    }
    out.initial = blocks[lts.initial as usize];
    Ok(out)
}
