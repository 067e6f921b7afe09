//! The communication graph of a system (TopSPIN's static channel
//! diagram): a vertex per component, coloured by its initial state with
//! its identity left out (the value — an integer of a replicated
//! operator's range, or a datatype value — that tells the members of a
//! family apart), and a vertex per event some component can perform,
//! coloured by its channel and by whether it is hidden; an edge from
//! each component to each event of its alphabet. Each component's own
//! LTS is explored once for its alphabet (and kept: validation matches
//! the LTSs of a component and its image).

use std::rc::Rc;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::eval::{EvalError, EvalResult, Proc, Value};
use crate::lts::machine::{Machine, Node};
use crate::process::{EventId, ProcId, Processes, TAU, TICK, Term};
use crate::script::ir::ChannelId;

/// The most states one component's LTS may have: structural symmetry
/// is for systems of many small components.
pub const MAX_LOCAL_STATES: usize = 100_000;

/// A component's LTS: its states (the initial one first) and moves.
#[derive(Debug, Clone)]
pub struct ComponentLts {
    pub states: Vec<ProcId>,
    pub index: FxHashMap<ProcId, u32>,
    /// Per state: its moves, `(event, target)`, sorted.
    pub moves: Vec<Vec<(EventId, u32)>>,
}

impl ComponentLts {
    /// Explores the states `initial` reaches.
    pub fn explore(procs: &mut Processes, initial: ProcId) -> EvalResult<ComponentLts> {
        let mut lts = ComponentLts {
            states: vec![initial],
            index: FxHashMap::default(),
            moves: Vec::new(),
        };
        lts.index.insert(initial, 0);
        let mut next = 0;
        while next < lts.states.len() {
            if next % 1024 == 1023 {
                procs
                    .evaluator()
                    .meter()
                    .poll()
                    .map_err(EvalError::stopped)?;
            }
            let p = lts.states[next];
            // In an order of their own — by event, then by the target's
            // encoding, the same in every `Processes` of the script — not
            // by the order states happened to be interned in: the states
            // are numbered as met, and two components' LTSs are matched
            // move by move, so symmetric components are numbered alike
            // wherever the analysis runs.
            let mut transitions: Vec<(EventId, Vec<u8>, ProcId)> = procs
                .transitions(p)?
                .iter()
                .map(|t| (t.event, Vec::new(), t.target))
                .collect();
            for (_, encoded, target) in &mut transitions {
                procs.encode_state(*target, encoded);
            }
            transitions.sort_unstable();
            let mut moves = Vec::new();
            for (event, _, to) in transitions {
                let target = match lts.index.get(&to) {
                    Some(&k) => k,
                    None => {
                        if lts.states.len() == MAX_LOCAL_STATES {
                            return Err(EvalError::new(
                                crate::syntax::Span::default(),
                                format!(
                                    "{} reaches more than {MAX_LOCAL_STATES} states on its own: \
                                     too many for structural symmetry",
                                    procs.show_state(initial)
                                ),
                            ));
                        }
                        let k = lts.states.len() as u32;
                        lts.states.push(to);
                        lts.index.insert(to, k);
                        k
                    }
                };
                moves.push((event, target));
            }
            moves.sort_unstable();
            lts.moves.push(moves);
            next += 1;
        }
        Ok(lts)
    }

    /// The visible events it can perform.
    pub fn alphabet(&self) -> Vec<EventId> {
        let mut out: Vec<EventId> = self
            .moves
            .iter()
            .flatten()
            .map(|&(e, _)| e)
            .filter(|&e| e != TAU && e != TICK)
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// The graph, with what it was made from.
///
/// Each edge between a component and an event goes through a vertex of
/// its own (a *port*), coloured by the places in the event where the
/// component's identity stands (`pass.i.j` is sent by `i` and received
/// by `j`): so an automorphism keeps the direction of a message, which
/// the components' behaviour would refuse anyway, without trying it.
#[derive(Debug, Clone)]
pub struct CommunicationGraph {
    /// Components are vertices `0..components`; events follow, then the
    /// ports.
    pub components: usize,
    /// Per event vertex (from `components` on): its event.
    pub events: Vec<EventId>,
    /// Per vertex: its colour.
    pub colours: Vec<u32>,
    /// What each colour stands for, in words.
    pub colour_names: Vec<String>,
    /// Per vertex: its neighbours, sorted.
    pub adjacency: Vec<Vec<u32>>,
    /// Per event (by its place in `events`): the components that can
    /// perform it, each with its port's colour.
    pub incidence: Vec<Vec<(u32, u32)>>,
    /// Per component: its initial state as text.
    pub names: Vec<String>,
    /// Per component: its identity, where its family has one.
    pub identities: Vec<Option<Value>>,
    /// Per component: its identity as text.
    pub identity_texts: Vec<Option<String>>,
    /// Per component: its LTS.
    pub ltss: Vec<ComponentLts>,
    /// The events some operator above hides (or a link turns into τ).
    pub hidden: FxHashSet<EventId>,
}

impl CommunicationGraph {
    /// The graph of `machine`'s components (their LTSs explored within
    /// the evaluator's budget).
    pub fn of(machine: &Machine, procs: &mut Processes) -> EvalResult<CommunicationGraph> {
        let n = machine.components();
        let initial: Vec<ProcId> = (0..n)
            .map(|slot| machine.process_state(slot, machine.initial()[slot]))
            .collect();
        let ltss = component_ltss(procs, &initial)?;
        let hidden = hidden_events(machine);
        let (tuples, families, component_keys) = identities(procs, &initial);
        // A family told apart by one value has it as its identity (for
        // the standard patterns); one told apart by several, as a tuple.
        let identities: Vec<Option<Value>> = tuples
            .iter()
            .map(|t| (t.len() == 1).then(|| t[0].clone()))
            .collect();
        let mut colour_of: FxHashMap<String, u32> = FxHashMap::default();
        let mut colour_names = Vec::new();
        let mut colour = |key: String| -> u32 {
            let next = colour_of.len() as u32;
            *colour_of.entry(key.clone()).or_insert_with(|| {
                colour_names.push(key);
                next
            })
        };
        let mut colours: Vec<u32> = component_keys.into_iter().map(&mut colour).collect();
        let mut events: Vec<EventId> = ltss.iter().flat_map(ComponentLts::alphabet).collect();
        events.sort_unstable();
        events.dedup();
        let vertex_of: FxHashMap<EventId, u32> = events
            .iter()
            .enumerate()
            .map(|(k, &e)| (e, (n + k) as u32))
            .collect();
        // Every range an identity takes: a field declared with one of
        // them names a component; any other field's value is part of
        // what the event is (`step.i.0` and `step.i.1` differ).
        let identity_ranges: FxHashSet<Vec<Value>> = families.iter().flatten().cloned().collect();
        // Each channel's declared fields, read once: a channel of
        // thousands of values has thousands of events.
        let mut declared = DeclaredParts::default();
        for &e in &events {
            let sets = declared.of(procs, e, &identity_ranges)?;
            let text = match procs.events().value(e) {
                Some(Value::Named(parts)) => {
                    let mut text = procs.evaluator().show(&parts[0]);
                    if let Some(sets) = &sets {
                        for (k, part) in parts[1..].iter().enumerate() {
                            let names = sets.names.get(k).copied().unwrap_or(false);
                            text.push('.');
                            if names {
                                text.push('_');
                            } else {
                                text.push_str(&procs.evaluator().show(part));
                            }
                        }
                    }
                    text
                }
                Some(v) => procs.evaluator().show(v),
                None => "?".to_string(),
            };
            let how = if hidden.contains(&e) {
                "hidden"
            } else {
                "visible"
            };
            colours.push(colour(format!("{text} ({how})")));
        }
        let mut adjacency = vec![Vec::new(); n + events.len()];
        let mut incidence = vec![Vec::new(); events.len()];
        for (c, lts) in ltss.iter().enumerate() {
            for e in lts.alphabet() {
                let v = vertex_of[&e];
                let sets = declared.of(procs, e, &identity_ranges)?;
                let values = sets.as_ref().map(|sets| &sets.values[..]);
                let places = identity_places(procs, e, (&tuples[c], &families[c]), values);
                let port_colour = colour(format!("port {places}"));
                let port = adjacency.len() as u32;
                colours.push(port_colour);
                adjacency.push(vec![c as u32, v]);
                adjacency[c].push(port);
                adjacency[v as usize].push(port);
                incidence[v as usize - n].push((c as u32, port_colour));
            }
        }
        for list in &mut adjacency {
            list.sort_unstable();
            list.dedup();
        }
        Ok(CommunicationGraph {
            components: n,
            events,
            colours,
            colour_names,
            adjacency,
            incidence,
            names: initial.iter().map(|&p| procs.show_state(p)).collect(),
            identity_texts: identities
                .iter()
                .map(|id| id.as_ref().map(|v| procs.evaluator().show(v)))
                .collect(),
            identities,
            ltss,
            hidden,
        })
    }

    /// The graph with every port alike: where a component's identity
    /// stands in an event is forgotten, so an automorphism may reverse
    /// messages. A pattern the graph refuses is looked for here, and
    /// then refused by the components' behaviour, with its reason.
    pub fn without_directions(&self) -> CommunicationGraph {
        let mut graph = self.clone();
        let port = graph.colour_names.len() as u32;
        graph.colour_names.push("port".to_string());
        let first_port = self.components + self.events.len();
        for colour in &mut graph.colours[first_port..] {
            *colour = port;
        }
        for (_, colour) in graph.incidence.iter_mut().flatten() {
            *colour = port;
        }
        graph
    }

    pub fn vertices(&self) -> usize {
        self.adjacency.len()
    }

    /// Whether `a` and `b` are joined.
    pub fn joined(&self, a: u32, b: u32) -> bool {
        self.adjacency[a as usize].binary_search(&b).is_ok()
    }

    /// The number of synchronisations (event vertices).
    pub fn synchronisations(&self) -> usize {
        self.events.len()
    }

    /// The graph in Graphviz's DOT, components as boxes, events as
    /// points, the components of each orbit in one colour.
    pub fn to_dot(&self, procs: &Processes, orbits: &[Vec<usize>]) -> String {
        let palette = [
            "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
            "#bcbd22", "#17becf",
        ];
        let mut orbit_of = vec![usize::MAX; self.components];
        for (k, orbit) in orbits.iter().enumerate() {
            for &c in orbit {
                orbit_of[c] = k;
            }
        }
        let mut out = String::from("graph communication {\n  node [fontname=\"monospace\"];\n");
        for (c, name) in self.names.iter().enumerate() {
            let fill = palette[orbit_of[c] % palette.len()];
            out.push_str(&format!(
                "  c{c} [shape=box, style=filled, fillcolor=\"{fill}\", label=\"{}\"];\n",
                name.replace('"', "\\\"")
            ));
        }
        for (k, &e) in self.events.iter().enumerate() {
            let style = if self.hidden.contains(&e) {
                "dashed"
            } else {
                "solid"
            };
            out.push_str(&format!(
                "  e{k} [shape=ellipse, style={style}, label=\"{}\"];\n",
                procs.show_event(e).replace('"', "\\\"")
            ));
        }
        for (k, incident) in self.incidence.iter().enumerate() {
            for &(c, _) in incident {
                out.push_str(&format!("  c{c} -- e{k};\n"));
            }
        }
        out.push_str("}\n");
        out
    }
}

/// Each component's LTS, explored on its own from its initial state
/// (components that start alike share one exploration).
fn component_ltss(procs: &mut Processes, initial: &[ProcId]) -> EvalResult<Vec<ComponentLts>> {
    let mut ltss: Vec<ComponentLts> = Vec::with_capacity(initial.len());
    let mut explored: FxHashMap<ProcId, usize> = FxHashMap::default();
    for &p in initial {
        if let Some(&k) = explored.get(&p) {
            let copy = ltss[k].clone();
            ltss.push(copy);
            continue;
        }
        explored.insert(p, ltss.len());
        let lts = ComponentLts::explore(procs, p).map_err(|e| {
            let name = procs.show_state(p);
            e.with_note(format!(
                "structural symmetry explores each component on its own, where {name} can do \
                 what the rest of the system would not let it"
            ))
        })?;
        ltss.push(lts);
    }
    Ok(ltss)
}

/// A channel's declared fields: per part of its events (after the
/// channel), the values the field takes, and whether it is one of the
/// ranges an identity takes (then it names a component).
struct ChannelParts {
    values: Vec<Vec<Value>>,
    names: Vec<bool>,
}

/// The declared fields of the channels met, each read once.
#[derive(Default)]
struct DeclaredParts {
    by_channel: FxHashMap<ChannelId, Option<Rc<ChannelParts>>>,
}

impl DeclaredParts {
    /// The declared fields of event `e`'s channel (`None` where the
    /// fields are dotted, or `e` has none), `identity_ranges` telling
    /// which name a component.
    fn of(
        &mut self,
        procs: &Processes,
        e: EventId,
        identity_ranges: &FxHashSet<Vec<Value>>,
    ) -> EvalResult<Option<Rc<ChannelParts>>> {
        let channel = match procs.events().value(e) {
            Some(Value::Named(parts)) => match parts[0] {
                Value::Channel(c) => c,
                _ => return Ok(None),
            },
            _ => return Ok(None),
        };
        if let Some(known) = self.by_channel.get(&channel) {
            return Ok(known.clone());
        }
        let parts = procs.evaluator().channel_part_sets(channel)?.map(|sets| {
            let values: Vec<Vec<Value>> = sets
                .iter()
                .map(|set| match set {
                    crate::eval::value::Set::Finite(values) => values.clone(),
                    _ => Vec::new(),
                })
                .collect();
            let names = values.iter().map(|v| identity_ranges.contains(v)).collect();
            Rc::new(ChannelParts { values, names })
        });
        self.by_channel.insert(channel, parts.clone());
        Ok(parts)
    }
}

/// The places among event `e`'s fields where each value of `identity`
/// stands, as text (`1`, `1,2`, `1;2` for a tuple; `-` for none): only
/// fields declared with the very set the identity ranges over (`families`)
/// count, so a group `g` in `forward.g.s` is not read as a server.
fn identity_places(
    procs: &Processes,
    e: EventId,
    (identity, families): (&[Value], &[Vec<Value>]),
    declared: Option<&[Vec<Value>]>,
) -> String {
    let Some(Value::Named(parts)) = procs.events().value(e) else {
        return "-".to_string();
    };
    let each: Vec<String> = identity
        .iter()
        .zip(families)
        .map(|(value, family)| {
            let places: Vec<String> = parts[1..]
                .iter()
                .enumerate()
                .filter(|&(k, v)| {
                    v == value && declared.is_none_or(|d| d.get(k).is_some_and(|s| s == family))
                })
                .map(|(k, _)| (k + 1).to_string())
                .collect();
            if places.is_empty() {
                "-".to_string()
            } else {
                places.join(",")
            }
        })
        .collect();
    if each.is_empty() {
        "-".to_string()
    } else {
        each.join(";")
    }
}

/// Every event an operator hides or a link turns into τ.
fn hidden_events(machine: &Machine) -> FxHashSet<EventId> {
    let mut hidden = FxHashSet::default();
    for node in machine.nodes() {
        match node {
            Node::Hide { set, .. } => hidden.extend(set.iter()),
            Node::Linked { relation, .. } => {
                for &(a, b) in relation.pairs() {
                    hidden.insert(a);
                    hidden.insert(b);
                }
            }
            _ => {}
        }
    }
    hidden
}

/// Where a family's identity stands among its members' parameters
/// (`vars`, one slice per member, `arity` each): the first place in
/// which every member holds a different integer or datatype value, or
/// failing one every such place together; and the other places that
/// hold the identity's values one for one (`Phil(i, i, (i+1)%N)`: the
/// forks it takes), which follow the identity and are left out of the
/// colour like it. `None` when the members cannot be told apart so.
fn family_places(vars: &[&[Value]], arity: usize) -> Option<(Vec<usize>, Vec<usize>)> {
    let atomic = |k: usize| {
        vars.iter()
            .all(|v| matches!(v[k], Value::Int(_) | Value::Ctor(_)))
    };
    let distinct = |places: &[usize]| {
        let mut seen = FxHashSet::default();
        vars.iter()
            .all(|v| seen.insert(places.iter().map(|&k| v[k].clone()).collect::<Vec<_>>()))
    };
    let places = (0..arity)
        .find(|&k| atomic(k) && distinct(&[k]))
        .map(|k| vec![k])
        .or_else(|| {
            let all: Vec<usize> = (0..arity).filter(|&k| atomic(k)).collect();
            (all.len() > 1 && distinct(&all)).then_some(all)
        })?;
    let values = |k: usize| {
        let mut v: Vec<Value> = vars.iter().map(|v| v[k].clone()).collect();
        v.sort();
        v
    };
    let own: Vec<Vec<Value>> = places.iter().map(|&k| values(k)).collect();
    let derived: Vec<usize> = (0..arity)
        .filter(|k| !places.contains(k))
        .filter(|&k| atomic(k) && distinct(&[k]) && own.contains(&values(k)))
        .collect();
    Some((places, derived))
}

/// Per component its identity and its colour key. A family is the
/// components that start in one control state with as many values; its
/// identity is the first value position where every member holds a
/// different integer or datatype value (`i` in `Phil(i)`), or failing
/// one, every such position together where the tuples differ (`(g, k)`
/// in `Client(g, k)`, the `k`-th client of group `g`); left out of the
/// colour, which keeps every other value (`Node(n, true)` and `Node(n,
/// false)` differ).
/// Also, per component, per value of its identity: the values that
/// place takes across its family (sorted).
#[allow(clippy::type_complexity)]
fn identities(
    procs: &Processes,
    initial: &[ProcId],
) -> (Vec<Vec<Value>>, Vec<Vec<Vec<Value>>>, Vec<String>) {
    let label = |p: ProcId| -> Option<(crate::script::ir::FuncId, std::sync::Arc<[Value]>)> {
        match procs.term(p) {
            Term::Node(proc) => match &**proc {
                Proc::Node { func, vars } => Some((*func, vars.clone())),
                Proc::Builtin { .. } => None,
            },
            _ => None,
        }
    };
    let labels: Vec<_> = initial.iter().map(|&p| label(p)).collect();
    let mut families: FxHashMap<(crate::script::ir::FuncId, usize), Vec<usize>> =
        FxHashMap::default();
    for (c, l) in labels.iter().enumerate() {
        if let Some((func, vars)) = l {
            families.entry((*func, vars.len())).or_default().push(c);
        }
    }
    let mut position: FxHashMap<(crate::script::ir::FuncId, usize), Vec<usize>> =
        FxHashMap::default();
    let mut uncoloured: FxHashMap<(crate::script::ir::FuncId, usize), Vec<usize>> =
        FxHashMap::default();
    for (&key, members) in &families {
        if members.len() < 2 {
            continue;
        }
        let vars: Vec<&[Value]> = members
            .iter()
            .map(|&c| &*labels[c].as_ref().expect("a family member").1)
            .collect();
        if let Some((places, derived)) = family_places(&vars, key.1) {
            uncoloured.insert(key, derived);
            position.insert(key, places);
        }
    }
    // Per family, per identity place: the values it takes.
    let mut ranges: FxHashMap<(crate::script::ir::FuncId, usize), Vec<Vec<Value>>> =
        FxHashMap::default();
    for (key, places) in &position {
        let members = &families[key];
        let range = places
            .iter()
            .map(|&k| {
                let mut values: Vec<Value> = members
                    .iter()
                    .map(|&c| labels[c].as_ref().expect("a member").1[k].clone())
                    .collect();
                values.sort();
                values.dedup();
                values
            })
            .collect();
        ranges.insert(*key, range);
    }
    let mut identities = Vec::with_capacity(initial.len());
    let mut family_ranges = Vec::with_capacity(initial.len());
    let mut keys = Vec::with_capacity(initial.len());
    for (c, l) in labels.iter().enumerate() {
        match l {
            Some((func, vars)) => {
                let at = position
                    .get(&(*func, vars.len()))
                    .cloned()
                    .unwrap_or_default();
                let derived = uncoloured
                    .get(&(*func, vars.len()))
                    .map_or(&[][..], Vec::as_slice);
                identities.push(at.iter().map(|&k| vars[k].clone()).collect());
                family_ranges.push(
                    ranges
                        .get(&(*func, vars.len()))
                        .cloned()
                        .unwrap_or_default(),
                );
                // The control state (by its function) and every value but
                // the identity; shown as the state with its identity `_`.
                // A set, sequence or tuple of the identity's datatype
                // values keeps only its shape (`Check(_, {_, _})`): the
                // members' sets of others differ as their identities do.
                let names: FxHashSet<String> = ranges
                    .get(&(*func, vars.len()))
                    .into_iter()
                    .flatten()
                    .flatten()
                    .filter(|v| matches!(v, Value::Ctor(_)))
                    .map(|v| procs.evaluator().show(v))
                    .collect();
                let shown: Vec<String> = vars
                    .iter()
                    .enumerate()
                    .map(|(k, v)| {
                        if at.contains(&k) || derived.contains(&k) {
                            "_".to_string()
                        } else if matches!(v, Value::Int(_) | Value::Ctor(_)) {
                            procs.evaluator().show(v)
                        } else {
                            blanked(&procs.evaluator().show(v), &names)
                        }
                    })
                    .collect();
                let text = procs.show_state(initial[c]);
                let name = match (at.is_empty(), text.split_once('(')) {
                    (false, Some((head, _))) => format!("{head}(…)"),
                    _ => text,
                };
                keys.push(format!("{name} [{}: {}]", func.index(), shown.join(", ")));
            }
            None => {
                identities.push(Vec::new());
                family_ranges.push(Vec::new());
                keys.push(procs.show_state(initial[c]));
            }
        }
    }
    (identities, family_ranges, keys)
}

/// `text` with each name of `names` standing alone (not part of a longer
/// name) written `_`.
fn blanked(text: &str, names: &FxHashSet<String>) -> String {
    if names.is_empty() {
        return text.to_string();
    }
    let is_name = |c: char| c.is_alphanumeric() || c == '_' || c == '\'';
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find(is_name) {
        out.push_str(&rest[..start]);
        let word = &rest[start..];
        let end = word.find(|c: char| !is_name(c)).unwrap_or(word.len());
        out.push_str(if names.contains(&word[..end]) {
            "_"
        } else {
            &word[..end]
        });
        rest = &word[end..];
    }
    out.push_str(rest);
    out
}
