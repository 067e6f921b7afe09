//! The standard candidates for a family of systems (after Lin et al.'s
//! regular symmetry patterns: full symmetry, rotation, reflection): for
//! each set of identities the families share — the range of a
//! replicated operator, `{0..N-1}`, or values of a datatype — a rotation
//! `i ↦ i+1 mod N` and a reflection `i ↦ N−1−i` where the identities are
//! consecutive integers, and a swap of the first two (the leaves of a
//! star, or any two of a fully symmetric family). Each moves every
//! component whose identity is in the set to the component of the same
//! kind holding the image identity.

use rustc_hash::FxHashMap;

use crate::eval::Value;

use super::graph::CommunicationGraph;

/// A standard pattern: its name and the identities it is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pattern {
    /// `rotation i ↦ i+1 mod 4`, `reflection i ↦ 3−i`, `swap 0 ↔ 1`.
    pub name: String,
    /// The identities it is about, as text (`{0..3}`).
    pub over: String,
}

/// The standard candidates for `graph`'s families. Each moves the
/// members of one family (the first with its set of identities) as the
/// pattern says; where the graph's automorphisms are known (`group`,
/// every one of them as a map of vertices), the candidate is the one
/// that moves that family so, carrying the other components along as
/// the graph does (a ring's forks turn with its philosophers, a
/// reflection of philosophers reflects the forks between them); else
/// every family with that set of identities moves alike.
pub fn candidates(graph: &CommunicationGraph, group: Option<&[Vec<u32>]>) -> Vec<Candidate> {
    let texts: FxHashMap<Value, String> = graph
        .identities
        .iter()
        .zip(&graph.identity_texts)
        .filter_map(|(v, t)| Some((v.clone()?, t.clone()?)))
        .collect();
    let show = |v: &Value| texts.get(v).cloned().unwrap_or_default();
    let mut by_kind: FxHashMap<(u32, Value), usize> = FxHashMap::default();
    let mut families: FxHashMap<u32, Vec<Value>> = FxHashMap::default();
    for c in 0..graph.components {
        if let Some(id) = &graph.identities[c] {
            by_kind.insert((graph.colours[c], id.clone()), c);
            families
                .entry(graph.colours[c])
                .or_default()
                .push(id.clone());
        }
    }
    let mut colours: Vec<u32> = families.keys().copied().collect();
    colours.sort_unstable();
    // Each identity set once, with the first family that has it.
    let mut sets: Vec<(Vec<Value>, u32)> = Vec::new();
    for colour in colours {
        let mut ids = families[&colour].clone();
        ids.sort();
        if ids.len() > 1 && !sets.iter().any(|(s, _)| *s == ids) {
            sets.push((ids, colour));
        }
    }
    let mut out = Vec::new();
    for (ids, family) in &sets {
        let over = over_text(ids);
        let place: FxHashMap<&Value, usize> = ids.iter().enumerate().map(|(k, v)| (v, k)).collect();
        let n = ids.len();
        let consecutive = ids.iter().enumerate().all(
            |(k, v)| matches!((v, &ids[0]), (Value::Int(x), Value::Int(a)) if *x == a + k as i64),
        );
        // Where each identity of the set goes (by place), as a candidate.
        let make = |name: String, to: &dyn Fn(usize) -> usize| -> Candidate {
            // The family's members, moved as the pattern says.
            let mut wanted: Vec<(usize, usize)> = Vec::new();
            for c in 0..graph.components {
                if graph.colours[c] != *family {
                    continue;
                }
                let Some(id) = &graph.identities[c] else {
                    continue;
                };
                let image = &ids[to(place[id])];
                wanted.push((c, by_kind[&(*family, image.clone())]));
            }
            let alpha = match group {
                Some(maps) => automorphisms_moving(maps, &wanted),
                None => moved_alike(graph, &by_kind, &place, ids, to),
            };
            Candidate {
                pattern: Pattern {
                    name,
                    over: over.clone(),
                },
                found: alpha,
            }
        };
        if consecutive && n > 2 {
            out.push(make(format!("rotation i ↦ i+1 mod {n}"), &|k: usize| {
                (k + 1) % n
            }));
            let (a, b) = (show(&ids[0]), show(&ids[n - 1]));
            let sum = match (&ids[0], &ids[n - 1]) {
                (Value::Int(x), Value::Int(y)) => (x + y).to_string(),
                _ => format!("{a}+{b}"),
            };
            out.push(make(format!("reflection i ↦ {sum}−i"), &|k: usize| {
                n - 1 - k
            }));
        }
        out.push(make(
            format!("swap {} ↔ {}", show(&ids[0]), show(&ids[1])),
            &|k: usize| match k {
                0 => 1,
                1 => 0,
                k => k,
            },
        ));
    }
    out
}

/// The automorphisms among `maps` that move each component as `wanted`
/// says (a component and its image), or why there are none.
fn automorphisms_moving(maps: &[Vec<u32>], wanted: &[(usize, usize)]) -> Result<Found, String> {
    let matching: Vec<Vec<u32>> = maps
        .iter()
        .filter(|g| wanted.iter().all(|&(c, d)| g[c] as usize == d))
        .cloned()
        .collect();
    if matching.is_empty() {
        Err("no automorphism of the communication graph moves the family so".to_string())
    } else {
        Ok(Found::Automorphisms(matching))
    }
}

/// The map of components moving every family whose identities are `ids`
/// alike: each identity's holder to the holder of the same kind (found
/// in `by_kind`) of its image by `to` (between places in `ids`), or the
/// component that has no such image.
fn moved_alike(
    graph: &CommunicationGraph,
    by_kind: &FxHashMap<(u32, Value), usize>,
    place: &FxHashMap<&Value, usize>,
    ids: &[Value],
    to: &dyn Fn(usize) -> usize,
) -> Result<Found, String> {
    let mut alpha: Vec<u32> = (0..graph.components as u32).collect();
    let mut missing = None;
    for (c, image) in alpha.iter_mut().enumerate() {
        let Some(id) = &graph.identities[c] else {
            continue;
        };
        let Some(&k) = place.get(id) else {
            continue;
        };
        match by_kind.get(&(graph.colours[c], ids[to(k)].clone())) {
            Some(&d) => *image = d as u32,
            None => missing = Some(graph.names[c].clone()),
        }
    }
    match missing {
        Some(name) => Err(format!("{name} has no image of its kind")),
        None => Ok(Found::Components(alpha)),
    }
}

/// A standard pattern and how it moves the system, or why it cannot.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub pattern: Pattern,
    pub found: Result<Found, String>,
}

/// How a pattern moves the system.
#[derive(Debug, Clone)]
pub enum Found {
    /// The graph's automorphisms that move the family so (any may be a
    /// symmetry of the system: each is tried).
    Automorphisms(Vec<Vec<u32>>),
    /// A permutation of the components only (the graph's group unknown).
    Components(Vec<u32>),
}

fn over_text(ids: &[Value]) -> String {
    match (ids.first(), ids.last()) {
        (Some(Value::Int(a)), Some(Value::Int(b))) if (b - a + 1) as usize == ids.len() => {
            format!("{{{a}..{b}}}")
        }
        _ => format!("{} values", ids.len()),
    }
}
