//! `normal`: FDR's normalisation. A node is a set of states closed under
//! τ (a subset construction), with one successor per visible event; it
//! is labelled by the minimal acceptances of its stable states and by
//! whether one of its states diverges. Nodes with the same label whose
//! successors agree are merged (the coarsest such partition), and the
//! result is written back as a process: a node performs every event it
//! can, and where its label says it may refuse something it has τs to
//! one stable state per minimal acceptance, offering exactly that set
//! (and a τ to itself where it diverges). Nodes are numbered breadth
//! first by event from the initial one, which every `Processes` of the
//! script does alike: the states of a normal form are named by number.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;

use crate::budget::Meter;
use crate::eval::{EvalError, EvalResult};

use super::super::{EventId, TAU, TICK};
use super::partition::{block_of, refine};
use super::tau_loops::Collapsed;
use super::{OMEGA, Reduced, acceptance, minimal};

/// A node of the subset construction.
struct Node {
    /// The classes it holds, sorted.
    classes: Vec<u32>,
    /// One successor per event, by event; ✓ leads to [`OMEGA`].
    edges: Vec<(EventId, u32)>,
    divergent: bool,
    /// Minimal acceptances, with a stable class offering each.
    acceptances: Vec<(Vec<EventId>, Vec<u32>)>,
}

pub(crate) fn normal(lts: &Collapsed, meter: &Meter) -> EvalResult<Reduced> {
    let closures = lts.closures(meter)?;
    let mut nodes: Vec<Node> = Vec::new();
    let mut index: FxHashMap<Vec<u32>, u32> = FxHashMap::default();
    let start = closures[lts.initial as usize].clone();
    index.insert(start.clone(), 0);
    let mut pending: Vec<Vec<u32>> = vec![start];
    while nodes.len() < pending.len() {
        let n = nodes.len();
        if n % 256 == 255 {
            meter.poll().map_err(EvalError::stopped)?;
            meter.may_store(n).map_err(EvalError::stopped)?;
        }
        let classes = std::mem::take(&mut pending[n]);
        let mut after: BTreeMap<EventId, Vec<u32>> = BTreeMap::new();
        for &c in &classes {
            for &(e, t) in &lts.edges[c as usize] {
                match (e, t) {
                    (TAU, _) => {}
                    (_, OMEGA) => {
                        after.entry(e).or_default();
                    }
                    _ => after
                        .entry(e)
                        .or_default()
                        .extend_from_slice(&closures[t as usize]),
                }
            }
        }
        let mut edges = Vec::with_capacity(after.len());
        for (e, mut set) in after {
            if e == TICK {
                edges.push((e, OMEGA));
                continue;
            }
            set.sort_unstable();
            set.dedup();
            let fresh = index.len() as u32;
            let target = *index.entry(set.clone()).or_insert_with(|| {
                pending.push(set);
                fresh
            });
            edges.push((e, target));
        }
        let stable: Vec<(Vec<EventId>, u32)> = classes
            .iter()
            .filter(|&&c| lts.stable(c))
            .map(|&c| (acceptance(lts.edges[c as usize].iter().map(|&(e, _)| e)), c))
            .collect();
        let acceptances = minimal(stable.iter().map(|(a, _)| a.clone()).collect())
            .into_iter()
            .map(|a| {
                let offering = stable
                    .iter()
                    .filter(|(b, _)| *b == a)
                    .map(|&(_, c)| c)
                    .collect();
                (a, offering)
            })
            .collect();
        nodes.push(Node {
            divergent: classes.iter().any(|&c| lts.divergent[c as usize]),
            classes,
            edges,
            acceptances,
        });
    }
    Ok(write_back(lts, &nodes, minimise(&nodes, meter)?))
}

/// The block of each node: nodes merged where their labels agree and
/// their successors are merged alike.
fn minimise(nodes: &[Node], meter: &Meter) -> EvalResult<Vec<u32>> {
    let mut labels: FxHashMap<(bool, Vec<&[EventId]>), u32> = FxHashMap::default();
    let initial = nodes
        .iter()
        .map(|n| {
            let label = (
                n.divergent,
                n.acceptances.iter().map(|(a, _)| a.as_slice()).collect(),
            );
            let fresh = labels.len() as u32;
            *labels.entry(label).or_insert(fresh)
        })
        .collect();
    refine(
        initial,
        meter,
        |_| {},
        |s, blocks, sig| {
            sig.extend(
                nodes[s]
                    .edges
                    .iter()
                    .map(|&(e, t)| (e, block_of(blocks, t))),
            );
        },
    )
}

/// The normal form as a process: one state per block, then the stable
/// states that carry its acceptances.
fn write_back(lts: &Collapsed, nodes: &[Node], blocks: Vec<u32>) -> Reduced {
    let count = blocks.iter().copied().max().map_or(0, |m| m + 1);
    let mut out = Reduced {
        numbered: true,
        ..Reduced::default()
    };
    let members_of = |classes: &mut dyn Iterator<Item = u32>| -> Vec<u32> {
        let mut m: Vec<u32> = classes
            .flat_map(|c| lts.members[c as usize].iter().copied())
            .collect();
        m.sort_unstable();
        m.dedup();
        m
    };
    // Each block's nodes, gathered in one pass.
    let mut in_block: Vec<Vec<usize>> = vec![Vec::new(); count as usize];
    for (n, &b) in blocks.iter().enumerate() {
        in_block[b as usize].push(n);
    }
    for nodes_of in &in_block {
        let members = members_of(
            &mut nodes_of
                .iter()
                .flat_map(|&n| nodes[n].classes.iter().copied()),
        );
        out.add(members);
    }
    for b in 0..count {
        let node = &nodes[in_block[b as usize][0]];
        let after = |e: EventId| {
            let &(_, t) = node
                .edges
                .iter()
                .find(|&&(f, _)| f == e)
                .expect("an initial");
            block_of(&blocks, t)
        };
        let mut moves: Vec<(EventId, u32)> =
            node.edges.iter().map(|&(e, _)| (e, after(e))).collect();
        let offered = acceptance(node.edges.iter().map(|&(e, _)| e));
        let settled = node.acceptances.len() == 1 && node.acceptances[0].0 == offered;
        if node.divergent {
            moves.push((TAU, b));
        }
        if node.divergent || !settled {
            for (accepted, offering) in &node.acceptances {
                let state = out.add(members_of(&mut offering.iter().copied()));
                out.transitions[state as usize] = accepted.iter().map(|&e| (e, after(e))).collect();
                moves.push((TAU, state));
            }
        }
        out.transitions[b as usize] = moves;
    }
    out.initial = blocks[0];
    out
}
