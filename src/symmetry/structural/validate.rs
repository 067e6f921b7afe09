//! Validation: a candidate permutation of the components is a symmetry
//! of the system only if it carries the system onto itself. Given α (on
//! components) and π (on events: from the communication graph's
//! automorphism, or matched by the components' alphabets for a standard
//! pattern), each component's LTS must be isomorphic under π to its
//! image's, initial state to initial state (Definition 29's mapping of
//! each component's label, read on behaviour: the state map φ is what
//! the isomorphism gives), and the operator tree must map onto itself,
//! every synchronisation set, alphabet, hidden set and relation onto its
//! image node's under π. Nothing is reduced by a candidate that fails;
//! each failure says why in a sentence.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::lts::machine::{Machine, Node};
use crate::process::{EventId, EventSet, Processes, TAU, TICK};

use super::graph::{CommunicationGraph, ComponentLts};

/// A validated symmetry of the system.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Element {
    /// Where each component goes.
    pub alpha: Vec<u32>,
    /// Per event id: its image.
    pub pi: Vec<EventId>,
    /// Per component: each of its LTS's states' image in its image's LTS
    /// (by their places in [`super::graph::ComponentLts::states`]).
    pub phi: Vec<Vec<u32>>,
}

impl Element {
    /// The identity of a system with `graph`'s components and
    /// `id_count` event ids.
    pub fn identity(graph: &CommunicationGraph, id_count: usize) -> Element {
        Element {
            alpha: (0..graph.components as u32).collect(),
            pi: (0..id_count as EventId).collect(),
            phi: graph
                .ltss
                .iter()
                .map(|l| (0..l.states.len() as u32).collect())
                .collect(),
        }
    }

    /// `self` then `then`.
    pub fn then(&self, then: &Element) -> Element {
        Element {
            alpha: self.alpha.iter().map(|&a| then.alpha[a as usize]).collect(),
            pi: self.pi.iter().map(|&e| then.pi[e as usize]).collect(),
            phi: self
                .phi
                .iter()
                .enumerate()
                .map(|(c, map)| {
                    let next = &then.phi[self.alpha[c] as usize];
                    map.iter().map(|&s| next[s as usize]).collect()
                })
                .collect(),
        }
    }

    pub fn inverse(&self) -> Element {
        let n = self.alpha.len();
        let mut alpha = vec![0; n];
        for (c, &a) in self.alpha.iter().enumerate() {
            alpha[a as usize] = c as u32;
        }
        let mut pi = vec![0; self.pi.len()];
        for (e, &f) in self.pi.iter().enumerate() {
            pi[f as usize] = e as EventId;
        }
        let mut phi = vec![Vec::new(); n];
        for (c, map) in self.phi.iter().enumerate() {
            let image = self.alpha[c] as usize;
            let mut inverse = vec![0; map.len()];
            for (s, &t) in map.iter().enumerate() {
                inverse[t as usize] = s as u32;
            }
            phi[image] = inverse;
        }
        Element { alpha, pi, phi }
    }

    pub fn is_identity(&self) -> bool {
        self.alpha.iter().enumerate().all(|(c, &a)| c as u32 == a)
            && self.pi.iter().enumerate().all(|(e, &f)| e as EventId == f)
    }
}

/// The candidate α's event map on the graph's events, matched by
/// incidence: each event goes to the event of its colour whose
/// components are the images of its own (equal ones paired in order);
/// `None`, with why, when α maps the graph onto no such events.
pub fn events_for(
    graph: &CommunicationGraph,
    alpha: &[u32],
    id_count: usize,
) -> Result<Vec<EventId>, String> {
    let n = graph.components;
    let key = |k: usize, map: &dyn Fn(u32) -> u32| -> EventKey {
        let mut incident: Vec<(u32, u32)> = graph.incidence[k]
            .iter()
            .map(|&(c, p)| (map(c), p))
            .collect();
        incident.sort_unstable();
        (graph.colours[n + k], incident)
    };
    let mut by_key: FxHashMap<EventKey, Vec<usize>> = FxHashMap::default();
    for k in 0..graph.events.len() {
        by_key.entry(key(k, &|c| c)).or_default().push(k);
    }
    let mut pi: Vec<EventId> = (0..id_count as EventId).collect();
    for members in by_key.values() {
        let first = members[0];
        let image = key(first, &|c| alpha[c as usize]);
        let Some(targets) = by_key.get(&image) else {
            return Err(format!(
                "{} has no image: no event of its channel is shared by the images of the \
                 components that share it",
                graph_event_text(graph, first)
            ));
        };
        if targets.len() != members.len() {
            return Err(format!(
                "{} and its kind are not matched one for one by their images",
                graph_event_text(graph, first)
            ));
        }
        for (&k, &t) in members.iter().zip(targets) {
            pi[graph.events[k] as usize] = graph.events[t];
        }
    }
    Ok(pi)
}

/// An event vertex's colour and its components, each with its port's
/// colour: what an image must share.
type EventKey = (u32, Vec<(u32, u32)>);

fn graph_event_text(graph: &CommunicationGraph, k: usize) -> String {
    format!(
        "event vertex {}",
        graph.colour_names[graph.colours[graph.components + k] as usize]
    )
}

/// The candidate's event map from a graph automorphism (a map of the
/// graph's vertices).
pub fn events_of_automorphism(
    graph: &CommunicationGraph,
    gamma: &[u32],
    id_count: usize,
) -> Vec<EventId> {
    let n = graph.components;
    let mut pi: Vec<EventId> = (0..id_count as EventId).collect();
    for (k, &e) in graph.events.iter().enumerate() {
        pi[e as usize] = graph.events[gamma[n + k] as usize - n];
    }
    pi
}

/// Checks that `(alpha, pi)` carries the system onto itself: the
/// element, or why not.
pub fn validate(
    graph: &CommunicationGraph,
    machine: &Machine,
    procs: &Processes,
    alpha: &[u32],
    mut pi: Vec<EventId>,
) -> Result<Element, String> {
    let mut phi = Vec::with_capacity(graph.components);
    for (c, &image) in alpha.iter().enumerate() {
        let d = image as usize;
        let (from, to) = (&graph.ltss[c], &graph.ltss[d]);
        let names = (graph.names[c].as_str(), graph.names[d].as_str());
        phi.push(isomorphism((from, to), names, procs, &pi)?);
    }
    tree_maps(graph, machine, procs, alpha, &mut pi)?;
    Ok(Element {
        alpha: alpha.to_vec(),
        pi,
        phi,
    })
}

/// Whether `pi` carries the LTS of a process (`name`) onto itself,
/// its initial state onto its initial state: `Err` says what the process
/// does whose image it cannot.
pub fn invariant(
    lts: &ComponentLts,
    name: &str,
    procs: &Processes,
    pi: &[EventId],
) -> Result<(), String> {
    isomorphism((lts, lts), (name, name), procs, pi).map(|_| ())
}

/// One LTS onto another under `pi` (`names` name the processes): the
/// state map, or the first behaviour of the first its image lacks.
fn isomorphism(
    (from, to): (&ComponentLts, &ComponentLts),
    names: (&str, &str),
    procs: &Processes,
    pi: &[EventId],
) -> Result<Vec<u32>, String> {
    let fail = |why: String| Err(format!("{} and its image {}: {why}", names.0, names.1));
    if from.states.len() != to.states.len() {
        return fail(format!(
            "they have {} and {} states",
            from.states.len(),
            to.states.len()
        ));
    }
    let unmapped = u32::MAX;
    let mut map = vec![unmapped; from.states.len()];
    let mut back = vec![unmapped; to.states.len()];
    // Per state of `c`: the visible events leading there (for messages).
    let mut trace: Vec<Option<(u32, EventId)>> = vec![None; from.states.len()];
    map[0] = 0;
    back[0] = 0;
    let mut queue = vec![0u32];
    let mut k = 0;
    let show = |trace: &[Option<(u32, EventId)>], s: u32| -> String {
        let mut events = Vec::new();
        let mut at = s;
        while let Some((parent, e)) = trace[at as usize] {
            if e != TAU {
                events.push(procs.show_event(e));
            }
            at = parent;
        }
        events.reverse();
        if events.is_empty() {
            "at the start".to_string()
        } else {
            format!("after {}", events.join(", "))
        }
    };
    while k < queue.len() {
        let s = queue[k];
        k += 1;
        let t = map[s as usize];
        // The moves of `s` under π, against those of `t`, event by event.
        let mut mine: Vec<(EventId, u32)> = from.moves[s as usize]
            .iter()
            .map(|&(e, x)| (image_of(pi, e), x))
            .collect();
        mine.sort_unstable();
        let theirs = &to.moves[t as usize];
        let events = |m: &[(EventId, u32)]| -> Vec<EventId> { m.iter().map(|&(e, _)| e).collect() };
        if events(&mine) != events(theirs) {
            let original = from.moves[s as usize]
                .iter()
                .map(|&(e, _)| e)
                .find(|&e| !theirs.iter().any(|&(f, _)| f == image_of(pi, e)));
            let missing = match original {
                Some(e) => format!(
                    "{} {} can do {}, but {} cannot do its image {}",
                    names.0,
                    show(&trace, s),
                    procs.show_event(e),
                    names.1,
                    procs.show_event(image_of(pi, e))
                ),
                None => {
                    let extra = theirs
                        .iter()
                        .map(|&(f, _)| f)
                        .find(|f| !mine.iter().any(|(e, _)| e == f))
                        .map_or_else(String::new, |f| procs.show_event(f));
                    format!(
                        "{} {} can do {extra}, the image of nothing {} can do",
                        names.1,
                        show(&trace, s),
                        names.0
                    )
                }
            };
            return Err(missing);
        }
        for (&(e, x), &(_, y)) in mine.iter().zip(theirs) {
            // The move of `c` this pairs (its event before π).
            let original = from.moves[s as usize]
                .iter()
                .find(|&&(f, target)| target == x && image_of(pi, f) == e)
                .map_or(e, |&(f, _)| f);
            match (map[x as usize], back[y as usize]) {
                (m, b) if m == unmapped && b == unmapped => {
                    map[x as usize] = y;
                    back[y as usize] = x;
                    trace[x as usize] = Some((s, original));
                    queue.push(x);
                }
                (m, _) if m == y => {}
                _ => {
                    return fail(format!(
                        "{} {} leads to {}, but {} leads its image to {}, which stands for \
                         another state",
                        show(&trace, s),
                        procs.show_event(original),
                        procs.show_state(from.states[x as usize]),
                        procs.show_event(e),
                        procs.show_state(to.states[y as usize])
                    ));
                }
            }
        }
    }
    Ok(map)
}

fn image_of(pi: &[EventId], e: EventId) -> EventId {
    if e == TAU || e == TICK {
        e
    } else {
        pi[e as usize]
    }
}

/// Each node's depth and components.
fn places(machine: &Machine) -> Vec<(u32, Vec<u32>)> {
    let nodes = machine.nodes();
    let mut out = vec![(0, Vec::new()); nodes.len()];
    fn visit(nodes: &[Node], n: usize, depth: u32, out: &mut [(u32, Vec<u32>)]) -> Vec<u32> {
        let below: Vec<u32> = match &nodes[n] {
            Node::Leaf { slot } => vec![*slot],
            Node::Parallel { children, .. } => children
                .iter()
                .flat_map(|&c| visit(nodes, c, depth + 1, out))
                .collect(),
            Node::Hide { child, .. }
            | Node::Rename { child, .. }
            | Node::Prioritise { child, .. } => visit(nodes, *child, depth + 1, out),
            Node::Linked { left, right, .. } => {
                let mut v = visit(nodes, *left, depth + 1, out);
                v.extend(visit(nodes, *right, depth + 1, out));
                v
            }
        };
        let mut sorted = below.clone();
        sorted.sort_unstable();
        out[n] = (depth, sorted);
        below
    }
    if !nodes.is_empty() {
        visit(nodes, 0, 0, &mut out);
    }
    out
}

/// The operator tree onto itself under `(alpha, pi)`: each node onto
/// the node over the images of its components, every set and relation
/// onto its image's (on the events the components can perform; events
/// a renaming makes get their images from the relation).
fn tree_maps(
    graph: &CommunicationGraph,
    machine: &Machine,
    procs: &Processes,
    alpha: &[u32],
    pi: &mut [EventId],
) -> Result<(), String> {
    let nodes = machine.nodes();
    let places = places(machine);
    let index: FxHashMap<(u32, Vec<u32>), usize> = places
        .iter()
        .enumerate()
        .map(|(n, (d, c))| ((*d, c.clone()), n))
        .collect();
    let used: FxHashSet<EventId> = graph.events.iter().copied().collect();
    let op = |n: usize| format!("`{}`", machine.operator_text(procs, n));
    let mut beta = vec![0; nodes.len()];
    for (n, (depth, comps)) in places.iter().enumerate() {
        let mut image: Vec<u32> = comps.iter().map(|&c| alpha[c as usize]).collect();
        image.sort_unstable();
        match index.get(&(*depth, image)) {
            Some(&m) => beta[n] = m,
            None => {
                return Err(format!(
                    "the components under {} are not carried onto those of another such operator",
                    op(n)
                ));
            }
        }
    }
    // Renamed events get their images first (children before parents:
    // deeper nodes first).
    let mut by_depth: Vec<usize> = (0..nodes.len()).collect();
    by_depth.sort_by_key(|&n| std::cmp::Reverse(places[n].0));
    let mut known: FxHashSet<EventId> = used.clone();
    for &n in &by_depth {
        if let (Node::Rename { relation: r, .. }, Node::Rename { relation: q, .. }) =
            (&nodes[n], &nodes[beta[n]])
        {
            for &(a, b) in r.pairs() {
                if !known.contains(&a) || known.contains(&b) {
                    continue;
                }
                let image = q.image(pi[a as usize]).first().map(|&(_, y)| y);
                match image {
                    Some(y) => {
                        pi[b as usize] = y;
                        known.insert(b);
                    }
                    None => {
                        return Err(format!(
                            "the renaming {} gives {} no image",
                            op(n),
                            procs.show_event(b)
                        ));
                    }
                }
            }
        }
    }
    let set_maps = |what: &str, n: usize, s: &EventSet, t: &EventSet| -> Result<(), String> {
        for e in s.iter().filter(|e| known.contains(e)) {
            if !t.contains(pi[e as usize]) {
                return Err(format!(
                    "the {what} of {} holds {} but not its image {}",
                    op(n),
                    procs.show_event(e),
                    procs.show_event(pi[e as usize])
                ));
            }
        }
        let count = |set: &EventSet| set.iter().filter(|e| known.contains(e)).count();
        if count(s) != count(t) {
            return Err(format!(
                "the {what} of {} is not carried onto itself",
                op(n)
            ));
        }
        Ok(())
    };
    for (n, node) in nodes.iter().enumerate() {
        let m = beta[n];
        match (node, &nodes[m]) {
            (Node::Leaf { .. }, Node::Leaf { .. }) => {}
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
                match (s, t) {
                    (Some(s), Some(t)) => set_maps("synchronisation set", n, s, t)?,
                    (None, None) => {}
                    _ => return Err(format!("{} is carried onto {}", op(n), op(m))),
                }
                if let (Some(a), Some(b)) = (a, b) {
                    for (k, &c) in cs.iter().enumerate() {
                        let Some(d) = ds.iter().position(|&d| d == beta[c]) else {
                            return Err(format!("an operand of {} has no image", op(n)));
                        };
                        set_maps("alphabet of an operand", n, &a[k], &b[d])?;
                    }
                }
            }
            (Node::Hide { set: s, .. }, Node::Hide { set: t, .. }) => {
                set_maps("hidden set", n, s, t)?
            }
            (Node::Prioritise { levels: a, .. }, Node::Prioritise { levels: b, .. })
                if a.len() == b.len() =>
            {
                for (s, t) in a.iter().zip(b) {
                    set_maps("set of priority", n, s, t)?;
                }
            }
            (Node::Rename { relation: r, .. }, Node::Rename { relation: q, .. })
            | (Node::Linked { relation: r, .. }, Node::Linked { relation: q, .. }) => {
                for &(a, b) in r.pairs() {
                    if known.contains(&a)
                        && known.contains(&b)
                        && !q
                            .image(pi[a as usize])
                            .iter()
                            .any(|&(_, y)| y == pi[b as usize])
                    {
                        return Err(format!(
                            "the relation of {} pairs {} with {}, but not their images",
                            op(n),
                            procs.show_event(a),
                            procs.show_event(b)
                        ));
                    }
                }
            }
            _ => return Err(format!("{} is carried onto {}", op(n), op(m))),
        }
    }
    if let Some(set) = machine.tau_priority() {
        set_maps("events τ takes priority over", 0, set, set)?;
    }
    Ok(())
}
