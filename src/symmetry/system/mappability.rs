//! Mappability (Section 6.1): for one generator, the component
//! bijection from the initial labels and the operator tree mapped onto
//! itself with every event set and relation.

use rustc_hash::FxHashMap;

use crate::lts::machine::{Machine, Node, Priority};
use crate::process::{EventSet, ProcId, Processes};

use super::super::apply::{EventImages, Movable, Permute, map_state};
use super::super::perm::Permutation;
use super::super::spec::Symmetry;
use super::{Component, NotMappable};

/// Section 6.1 for every generator of `symmetry`'s group: each with its
/// component bijection, or every problem found (duplicates next to each
/// other dropped).
pub(super) fn check_generators(
    machine: &Machine,
    procs: &mut Processes,
    symmetry: &Symmetry,
    movable: &Movable,
    components: &[Component],
) -> Result<Vec<(Permutation, Vec<usize>)>, NotMappable> {
    let mut by_initial: FxHashMap<(ProcId, usize), usize> = FxHashMap::default();
    for (slot, c) in components.iter().enumerate() {
        by_initial.insert((c.initial, c.inst), slot);
    }
    let mut problems = Vec::new();
    let mut generators = Vec::new();
    for g in Permutation::generators(symmetry) {
        match mappable(
            machine,
            procs,
            symmetry,
            movable,
            components,
            &by_initial,
            &g,
        ) {
            Ok(alpha) => generators.push((g, alpha)),
            Err(mut found) => problems.append(&mut found),
        }
    }
    if !problems.is_empty() {
        problems.dedup();
        return Err(NotMappable { problems });
    }
    Ok(generators)
}

/// Section 6.1 for one generator: α_g from the initial labels, then the
/// operator tree mapped onto itself with every event set and relation.
/// The component bijection, or what breaks it.
fn mappable(
    machine: &Machine,
    procs: &mut Processes,
    symmetry: &Symmetry,
    movable: &Movable,
    components: &[Component],
    by_initial: &FxHashMap<(ProcId, usize), usize>,
    g: &Permutation,
) -> Result<Vec<usize>, Vec<String>> {
    let script = procs.script();
    let shown = g.lines(symmetry, script, false).join("; ");
    let alpha = initial_bijection(procs, symmetry, movable, components, by_initial, g, &shown)?;
    let images = EventImages::new(symmetry, g, movable);
    let tree = Tree::of(machine);
    let beta = match tree.map(&alpha) {
        Ok(beta) => beta,
        Err(node) => {
            return Err(vec![format!(
                "the components under `{}` are not exchanged with those of another such \
                 operator by {shown}",
                machine.operator_text(procs, node)
            )]);
        }
    };
    let mut problems = operator_problems(machine, procs, &images, &beta, &shown);
    if let Some(set) = machine.tau_priority()
        && images.set(procs.events(), set) != *set
    {
        problems.push(format!(
            "the events τ takes priority over are not symmetric under {shown}"
        ));
    }
    if problems.is_empty() {
        Ok(alpha)
    } else {
        Err(problems)
    }
}

/// α_g from the initial labels: for each component, the one whose
/// initial state is its initial state's image under `g` (`shown`), with
/// the same `inst`; or every component that has none.
fn initial_bijection(
    procs: &mut Processes,
    symmetry: &Symmetry,
    movable: &Movable,
    components: &[Component],
    by_initial: &FxHashMap<(ProcId, usize), usize>,
    g: &Permutation,
    shown: &str,
) -> Result<Vec<usize>, Vec<String>> {
    let mut problems = Vec::new();
    let mut alpha = Vec::with_capacity(components.len());
    for (slot, c) in components.iter().enumerate() {
        let image = map_state(procs, c.initial, &mut Permute::new(symmetry, g, movable));
        match by_initial.get(&(image, c.inst)) {
            Some(&j) => alpha.push(j),
            None => {
                problems.push(format!(
                    "component {} starts as {}, but no component starts as {}, its image under \
                     {shown}",
                    slot + 1,
                    procs.show_state(c.initial),
                    procs.show_state(image)
                ));
                alpha.push(slot);
            }
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    Ok(alpha)
}

/// Every operator of the tree whose event sets or relation do not map
/// onto those of its image node `beta[n]` under the event images
/// `images` (of the generator `shown`), in words.
fn operator_problems(
    machine: &Machine,
    procs: &Processes,
    images: &EventImages,
    beta: &[usize],
    shown: &str,
) -> Vec<String> {
    let mut problems = Vec::new();
    let nodes = machine.nodes();
    let set_breaks =
        |what: &str, node: usize, set: &EventSet, image_node: usize, target: &EventSet| {
            let image = images.set(procs.events(), set);
            if &image == target {
                return None;
            }
            let witness = set
                .iter()
                .find(|&e| !target.contains(images.of(procs.events(), e)))
                .map(|e| {
                    format!(
                        "{} is in it but its image {} is not",
                        procs.show_event(e),
                        procs.show_event(images.of(procs.events(), e))
                    )
                })
                .unwrap_or_else(|| "it has fewer events than its image".to_string());
            Some(format!(
                "the {what} of `{}` is not symmetric under {shown}: {witness}{}",
                machine.operator_text(procs, node),
                if image_node == node {
                    String::new()
                } else {
                    format!(" (in `{}`)", machine.operator_text(procs, image_node))
                }
            ))
        };
    for (n, node) in nodes.iter().enumerate() {
        let m = beta[n];
        let problem = match (node, &nodes[m]) {
            (Node::Leaf { .. }, Node::Leaf { .. }) => None,
            (
                Node::Parallel {
                    children: cs,
                    alphabets: a,
                    sync: s,
                    ..
                },
                Node::Parallel {
                    children: ds,
                    alphabets: b,
                    sync: t,
                    ..
                },
            ) => {
                let sync = match (s, t) {
                    (Some(s), Some(t)) => set_breaks("synchronisation set", n, s, m, t),
                    (None, None) => None,
                    _ => Some(format!(
                        "`{}` is mapped onto `{}` by {shown}",
                        machine.operator_text(procs, n),
                        machine.operator_text(procs, m)
                    )),
                };
                let alphabets = match (a, b) {
                    (Some(a), Some(b)) => cs.iter().enumerate().find_map(|(k, &c)| {
                        let d = ds.iter().position(|&d| d == beta[c])?;
                        set_breaks("alphabet of an operand", n, &a[k], m, &b[d])
                    }),
                    (None, None) => None,
                    _ => Some(format!(
                        "`{}` is mapped onto `{}` by {shown}",
                        machine.operator_text(procs, n),
                        machine.operator_text(procs, m)
                    )),
                };
                sync.or(alphabets)
            }
            (Node::Hide { set: s, .. }, Node::Hide { set: t, .. }) => {
                set_breaks("hidden set", n, s, m, t)
            }
            (
                Node::Prioritise {
                    priority: Priority::Levels { levels: a, .. },
                    ..
                },
                Node::Prioritise {
                    priority: Priority::Levels { levels: b, .. },
                    ..
                },
            ) => {
                if a.len() == b.len() {
                    a.iter()
                        .zip(b)
                        .find_map(|(s, t)| set_breaks("set of priority", n, s, m, t))
                } else {
                    Some(format!(
                        "`{}` is mapped onto `{}` by {shown}",
                        machine.operator_text(procs, n),
                        machine.operator_text(procs, m)
                    ))
                }
            }
            (Node::Rename { relation: r, .. }, Node::Rename { relation: q, .. })
            | (Node::Linked { relation: r, .. }, Node::Linked { relation: q, .. })
            | (
                Node::Prioritise {
                    priority: Priority::Order(r),
                    ..
                },
                Node::Prioritise {
                    priority: Priority::Order(q),
                    ..
                },
            ) => {
                let image = images.relation(procs.events(), r);
                (image.pairs() != q.pairs()).then(|| {
                    format!(
                        "the relation of `{}` is not symmetric under {shown}",
                        machine.operator_text(procs, n)
                    )
                })
            }
            _ => Some(format!(
                "`{}` is mapped onto `{}` by {shown}",
                machine.operator_text(procs, n),
                machine.operator_text(procs, m)
            )),
        };
        problems.extend(problem);
    }
    problems
}

/// The operator tree's nodes by depth and the components below them.
struct Tree {
    /// Per node: depth, and its components as a range.
    places: Vec<(u32, u32, u32)>,
    index: FxHashMap<(u32, u32, u32), usize>,
}

impl Tree {
    fn of(machine: &Machine) -> Tree {
        let nodes = machine.nodes();
        let mut places = vec![(0, 0, 0); nodes.len()];
        // Depth first from the root; a node's range is its children's.
        fn visit(
            nodes: &[Node],
            n: usize,
            depth: u32,
            places: &mut [(u32, u32, u32)],
        ) -> (u32, u32) {
            let range = match &nodes[n] {
                Node::Leaf { slot } => (*slot, slot + 1),
                Node::Parallel { children, .. } => {
                    let mut range = (u32::MAX, 0);
                    for &c in children {
                        let (a, b) = visit(nodes, c, depth + 1, places);
                        range = (range.0.min(a), range.1.max(b));
                    }
                    if children.is_empty() { (0, 0) } else { range }
                }
                Node::Hide { child, .. }
                | Node::Rename { child, .. }
                | Node::Prioritise { child, .. } => visit(nodes, *child, depth + 1, places),
                Node::Linked { left, right, .. } => {
                    let (a, _) = visit(nodes, *left, depth + 1, places);
                    let (_, b) = visit(nodes, *right, depth + 1, places);
                    (a, b)
                }
            };
            places[n] = (depth, range.0, range.1);
            range
        }
        if !nodes.is_empty() {
            visit(nodes, 0, 0, &mut places);
        }
        let index = places.iter().enumerate().map(|(n, &p)| (p, n)).collect();
        Tree { places, index }
    }

    /// The node each node maps to when the components map by `alpha`:
    /// the one at the same depth over the image of its components. The
    /// node that has none, if any.
    fn map(&self, alpha: &[usize]) -> Result<Vec<usize>, usize> {
        self.places
            .iter()
            .enumerate()
            .map(|(n, &(depth, from, to))| {
                if from == to {
                    return Ok(n);
                }
                let mut image: Vec<u32> = (from..to).map(|i| alpha[i as usize] as u32).collect();
                image.sort_unstable();
                let contiguous = image.windows(2).all(|w| w[1] == w[0] + 1);
                let key = (depth, image[0], image[image.len() - 1] + 1);
                contiguous
                    .then(|| self.index.get(&key).copied())
                    .flatten()
                    .ok_or(n)
            })
            .collect()
    }
}
