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

use crate::lts::machine::{Machine, Node, Priority};
use crate::process::{EventId, EventSet, Processes, TAU, TICK};

use super::graph::{CommunicationGraph, ComponentLts};

/// A permutation of events. The events the components perform (the
/// graph's, sorted: its *domain*) map among themselves, kept as a table
/// of places in the domain, so composing two is one pass; any other
/// event that moves (one a renaming makes) is kept beside, with its
/// image. A system of N² declared events whose components perform a few
/// each stores only those.
#[derive(Debug, Clone)]
pub struct EventMap {
    domain: std::sync::Arc<[EventId]>,
    /// Per place in the domain: its image's place.
    places: Vec<u32>,
    /// Other events that move, with their images, sorted.
    others: Vec<(EventId, EventId)>,
}

impl PartialEq for EventMap {
    fn eq(&self, other: &EventMap) -> bool {
        self.places == other.places && self.others == other.others
    }
}

impl Eq for EventMap {}

impl std::hash::Hash for EventMap {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.places.hash(state);
        self.others.hash(state);
    }
}

impl EventMap {
    /// Every event to itself, over `graph`'s events.
    fn identity(graph: &CommunicationGraph) -> EventMap {
        EventMap {
            domain: graph.events.clone().into(),
            places: (0..graph.events.len() as u32).collect(),
            others: Vec::new(),
        }
    }

    /// The map a dense table (per event id, its image) gives, over
    /// `graph`'s events (which it must map among themselves).
    fn from_dense(graph: &CommunicationGraph, pi: &[EventId]) -> EventMap {
        let mut map = EventMap::identity(graph);
        for (k, &e) in graph.events.iter().enumerate() {
            let image = pi[e as usize];
            map.places[k] = graph
                .events
                .binary_search(&image)
                .expect("the graph's events map among themselves")
                as u32;
        }
        map.others = pi
            .iter()
            .enumerate()
            .filter(|&(e, &f)| {
                e as EventId != f && graph.events.binary_search(&(e as EventId)).is_err()
            })
            .map(|(e, &f)| (e as EventId, f))
            .collect();
        map
    }

    /// The image of `e` (τ and ✓ are their own).
    pub fn image(&self, e: EventId) -> EventId {
        if let Ok(k) = self.domain.binary_search(&e) {
            return self.domain[self.places[k] as usize];
        }
        match self.others.binary_search_by_key(&e, |&(from, _)| from) {
            Ok(k) => self.others[k].1,
            Err(_) => e,
        }
    }

    /// `self` then `then`.
    pub fn then(&self, then: &EventMap) -> EventMap {
        let places = self
            .places
            .iter()
            .map(|&k| then.places[k as usize])
            .collect();
        let mut others: Vec<(EventId, EventId)> = self
            .others
            .iter()
            .map(|&(e, _)| e)
            .chain(then.others.iter().map(|&(e, _)| e))
            .map(|e| (e, then.image(self.image(e))))
            .filter(|&(e, f)| e != f)
            .collect();
        others.sort_unstable();
        others.dedup();
        EventMap {
            domain: self.domain.clone(),
            places,
            others,
        }
    }

    pub fn inverse(&self) -> EventMap {
        let mut places = vec![0; self.places.len()];
        for (k, &to) in self.places.iter().enumerate() {
            places[to as usize] = k as u32;
        }
        let mut others: Vec<(EventId, EventId)> =
            self.others.iter().map(|&(e, f)| (f, e)).collect();
        others.sort_unstable();
        EventMap {
            domain: self.domain.clone(),
            places,
            others,
        }
    }

    pub fn is_identity(&self) -> bool {
        self.others.is_empty()
            && self
                .places
                .iter()
                .enumerate()
                .all(|(k, &to)| k as u32 == to)
    }
}

/// A validated symmetry of the system.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Element {
    /// Where each component goes.
    pub alpha: Vec<u32>,
    /// How the events move.
    pub pi: EventMap,
    /// How each component's LTS states go to its image's.
    pub phi: StateMaps,
}

/// Per component, each of its LTS's states' image in its image's LTS
/// (by their places in [`super::graph::ComponentLts::states`]), in one
/// table: component `c`'s states from `offsets[c]` (the offsets are the
/// same for every element of a system: a component and its image have
/// LTSs of one size).
#[derive(Debug, Clone)]
pub struct StateMaps {
    offsets: std::sync::Arc<[u32]>,
    images: Vec<u32>,
}

impl PartialEq for StateMaps {
    fn eq(&self, other: &StateMaps) -> bool {
        self.images == other.images
    }
}

impl Eq for StateMaps {}

impl std::hash::Hash for StateMaps {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.images.hash(state);
    }
}

impl StateMaps {
    /// Every state to itself, for `graph`'s components.
    fn identity(graph: &CommunicationGraph) -> StateMaps {
        let mut offsets = Vec::with_capacity(graph.components + 1);
        let mut images = Vec::new();
        for lts in &graph.ltss {
            offsets.push(images.len() as u32);
            images.extend(0..lts.states.len() as u32);
        }
        offsets.push(images.len() as u32);
        StateMaps {
            offsets: offsets.into(),
            images,
        }
    }

    /// The image of component `c`'s state `s`.
    pub fn get(&self, c: usize, s: u32) -> u32 {
        self.images[(self.offsets[c] + s) as usize]
    }

    fn states(&self, c: usize) -> std::ops::Range<u32> {
        0..self.offsets[c + 1] - self.offsets[c]
    }

    /// These maps (moving components by `alpha`) then `then`.
    fn then(&self, alpha: &[u32], then: &StateMaps) -> StateMaps {
        let mut images = Vec::with_capacity(self.images.len());
        for (c, &d) in alpha.iter().enumerate() {
            images.extend(self.states(c).map(|s| then.get(d as usize, self.get(c, s))));
        }
        StateMaps {
            offsets: self.offsets.clone(),
            images,
        }
    }

    fn inverse(&self, alpha: &[u32]) -> StateMaps {
        let mut images = vec![0; self.images.len()];
        for (c, &d) in alpha.iter().enumerate() {
            for s in self.states(c) {
                images[(self.offsets[d as usize] + self.get(c, s)) as usize] = s;
            }
        }
        StateMaps {
            offsets: self.offsets.clone(),
            images,
        }
    }
}

impl Element {
    /// The identity of a system with `graph`'s components.
    pub fn identity(graph: &CommunicationGraph) -> Element {
        Element {
            alpha: (0..graph.components as u32).collect(),
            pi: EventMap::identity(graph),
            phi: StateMaps::identity(graph),
        }
    }

    /// `self` then `then`.
    pub fn then(&self, then: &Element) -> Element {
        Element {
            alpha: self.alpha.iter().map(|&a| then.alpha[a as usize]).collect(),
            pi: self.pi.then(&then.pi),
            phi: self.phi.then(&self.alpha, &then.phi),
        }
    }

    pub fn inverse(&self) -> Element {
        let n = self.alpha.len();
        let mut alpha = vec![0; n];
        for (c, &a) in self.alpha.iter().enumerate() {
            alpha[a as usize] = c as u32;
        }
        Element {
            alpha,
            pi: self.pi.inverse(),
            phi: self.phi.inverse(&self.alpha),
        }
    }

    pub fn is_identity(&self) -> bool {
        self.alpha.iter().enumerate().all(|(c, &a)| c as u32 == a) && self.pi.is_identity()
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
    let mut phi = StateMaps::identity(graph);
    for (c, &image) in alpha.iter().enumerate() {
        let d = image as usize;
        let (from, to) = (&graph.ltss[c], &graph.ltss[d]);
        let names = (graph.names[c].as_str(), graph.names[d].as_str());
        let map = isomorphism((from, to), names, procs, &|e| image_of(&pi, e))?;
        let at = phi.offsets[c] as usize;
        phi.images[at..at + map.len()].copy_from_slice(&map);
    }
    tree_maps(graph, machine, procs, alpha, &mut pi)?;
    Ok(Element {
        alpha: alpha.to_vec(),
        pi: EventMap::from_dense(graph, &pi),
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
    pi: &EventMap,
) -> Result<(), String> {
    isomorphism((lts, lts), (name, name), procs, &|e| pi.image(e)).map(|_| ())
}

/// One LTS onto another under `pi` (`names` name the processes): the
/// state map, or the first behaviour of the first its image lacks.
fn isomorphism(
    (from, to): (&ComponentLts, &ComponentLts),
    names: (&str, &str),
    procs: &Processes,
    image_of: &dyn Fn(EventId) -> EventId,
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
    // The visible events leading to `s`, each mapped by `map`.
    let trace_to = |trace: &[Option<(u32, EventId)>], s: u32, map: &dyn Fn(EventId) -> EventId| {
        let mut events = Vec::new();
        let mut at = s;
        while let Some((parent, e)) = trace[at as usize] {
            if e != TAU {
                events.push(procs.show_event(map(e)));
            }
            at = parent;
        }
        events.reverse();
        events
    };
    let show = |trace: &[Option<(u32, EventId)>], s: u32| -> String {
        let events = trace_to(trace, s, &|e| e);
        if events.is_empty() {
            "at the start".to_string()
        } else {
            format!("after {}", events.join(", "))
        }
    };
    // Where the image stands: after the image of the trace to `s`.
    let show_image = |trace: &[Option<(u32, EventId)>], s: u32| -> String {
        let events = trace_to(trace, s, image_of);
        if events.is_empty() {
            String::new()
        } else {
            format!(" after {}", events.join(", "))
        }
    };
    while k < queue.len() {
        let s = queue[k];
        k += 1;
        let t = map[s as usize];
        // The moves of `s` under π, against those of `t`, event by event.
        let mut mine: Vec<(EventId, u32)> = from.moves[s as usize]
            .iter()
            .map(|&(e, x)| (image_of(e), x))
            .collect();
        mine.sort_unstable();
        let theirs = &to.moves[t as usize];
        let events = |m: &[(EventId, u32)]| -> Vec<EventId> { m.iter().map(|&(e, _)| e).collect() };
        if events(&mine) != events(theirs) {
            let original = from.moves[s as usize]
                .iter()
                .map(|&(e, _)| e)
                .find(|&e| !theirs.iter().any(|&(f, _)| f == image_of(e)));
            let missing = match original {
                Some(e) => {
                    // An event the permutation leaves alone is named as
                    // itself, not as an image that reads like another.
                    let cannot = match image_of(e) {
                        same if same == e => {
                            format!(
                                "cannot (the permutation leaves {} alone)",
                                procs.show_event(e)
                            )
                        }
                        image => format!("cannot do its image {}", procs.show_event(image)),
                    };
                    format!(
                        "{} {} can do {}, but {}{} {cannot}",
                        names.0,
                        show(&trace, s),
                        procs.show_event(e),
                        names.1,
                        show_image(&trace, s),
                    )
                }
                None => {
                    let extra = theirs
                        .iter()
                        .map(|&(f, _)| f)
                        .find(|f| !mine.iter().any(|(e, _)| e == f))
                        .map_or_else(String::new, |f| procs.show_event(f));
                    let image = show_image(&trace, s);
                    let at = if image.is_empty() {
                        " at the start"
                    } else {
                        &image
                    };
                    format!(
                        "{}{at} can do {extra}, the image of nothing {} {} can do",
                        names.1,
                        names.0,
                        show(&trace, s)
                    )
                }
            };
            return Err(missing);
        }
        for (&(e, x), &(_, y)) in mine.iter().zip(theirs) {
            // The move of `c` this pairs (its event before π).
            let original = from.moves[s as usize]
                .iter()
                .find(|&&(f, target)| target == x && image_of(f) == e)
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

/// Each operator node's image under `alpha`: the node at the same depth
/// over the images of its components; `Err(n)` for a node without one.
fn node_map(places: &[(u32, Vec<u32>)], alpha: &[u32]) -> Result<Vec<usize>, usize> {
    let index: FxHashMap<(u32, Vec<u32>), usize> = places
        .iter()
        .enumerate()
        .map(|(n, (d, c))| ((*d, c.clone()), n))
        .collect();
    places
        .iter()
        .enumerate()
        .map(|(n, (depth, comps))| {
            let mut image: Vec<u32> = comps.iter().map(|&c| alpha[c as usize]).collect();
            image.sort_unstable();
            index.get(&(*depth, image)).copied().ok_or(n)
        })
        .collect()
}

/// The images under `pi` of the events renamings make (children before
/// parents: deeper nodes first), each from its image node's relation;
/// every event known to `pi` then (the components' and these).
fn renamed_images(
    graph: &CommunicationGraph,
    machine: &Machine,
    procs: &Processes,
    (places, beta): (&[(u32, Vec<u32>)], &[usize]),
    pi: &mut [EventId],
) -> Result<FxHashSet<EventId>, String> {
    let nodes = machine.nodes();
    let mut by_depth: Vec<usize> = (0..nodes.len()).collect();
    by_depth.sort_by_key(|&n| std::cmp::Reverse(places[n].0));
    let mut known: FxHashSet<EventId> = graph.events.iter().copied().collect();
    for &n in &by_depth {
        let (Node::Rename { relation: r, .. }, Node::Rename { relation: q, .. }) =
            (&nodes[n], &nodes[beta[n]])
        else {
            continue;
        };
        for &(a, b) in r.pairs() {
            if !known.contains(&a) || known.contains(&b) {
                continue;
            }
            match q.image(pi[a as usize]).first().map(|&(_, y)| y) {
                Some(y) => {
                    pi[b as usize] = y;
                    known.insert(b);
                }
                None => {
                    return Err(format!(
                        "the renaming `{}` gives {} no image",
                        machine.operator_text(procs, n),
                        procs.show_event(b)
                    ));
                }
            }
        }
    }
    Ok(known)
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
    let op = |n: usize| format!("`{}`", machine.operator_text(procs, n));
    let beta = node_map(&places, alpha).map_err(|n| {
        format!(
            "the components under {} are not carried onto those of another such operator",
            op(n)
        )
    })?;
    let known = renamed_images(graph, machine, procs, (&places, &beta), pi)?;
    // Only the events the components perform (or a renaming makes) are
    // asked of a set: a set over N² declared events is never walked.
    let mut known_sorted: Vec<EventId> = known.iter().copied().collect();
    known_sorted.sort_unstable();
    let set_maps = |what: &str, n: usize, s: &EventSet, t: &EventSet| -> Result<(), String> {
        let (mut in_s, mut in_t) = (0, 0);
        for &e in &known_sorted {
            in_t += usize::from(t.contains(e));
            if !s.contains(e) {
                continue;
            }
            in_s += 1;
            if !t.contains(pi[e as usize]) {
                return Err(format!(
                    "the {what} of {} holds {} but not its image {}",
                    op(n),
                    procs.show_event(e),
                    procs.show_event(pi[e as usize])
                ));
            }
        }
        if in_s != in_t {
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
            (
                Node::Prioritise {
                    priority: Priority::Levels { levels: a, .. },
                    ..
                },
                Node::Prioritise {
                    priority: Priority::Levels { levels: b, .. },
                    ..
                },
            ) if a.len() == b.len() => {
                for (s, t) in a.iter().zip(b) {
                    set_maps("set of priority", n, s, t)?;
                }
            }
            // A link is directed: the left operand's events are paired
            // with the right's, so each operand goes onto the image's
            // operand on the same side.
            (
                Node::Linked {
                    left: l, right: r, ..
                },
                Node::Linked {
                    left: image_l,
                    right: image_r,
                    ..
                },
            ) if beta[*l] != *image_l || beta[*r] != *image_r => {
                return Err(format!(
                    "{} would have its operands change sides, and a link pairs the left \
                     operand's events with the right's",
                    op(n)
                ));
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
