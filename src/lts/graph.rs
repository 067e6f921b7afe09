//! The whole LTS of a small process, states and edges, for drawing
//! (`symcsp explore --dot`) and for tests that compare transition lists.

use crate::eval::EvalResult;
use crate::process::{EventId, ProcId, Processes};

use super::machine::{Machine, Moves};
use super::store::StateStore;

/// An explicit LTS: state 0 is the initial state.
#[derive(Debug, Clone, PartialEq)]
pub struct Graph {
    /// Each state's components.
    pub states: Vec<Vec<ProcId>>,
    /// Distinct `(source, event, target)` triples, sorted.
    pub edges: Vec<(u32, EventId, u32)>,
}

/// The LTS of `root`, or `None` if it has more than `limit` states.
pub fn graph(procs: &mut Processes, root: ProcId, limit: usize) -> EvalResult<Option<Graph>> {
    let mut machine = Machine::new(procs, root);
    let mut store = StateStore::new(machine.components());
    store.insert(machine.initial());
    let mut edges = Vec::new();
    let mut moves = Moves::default();
    let mut state = Vec::new();
    let mut next_state = Vec::new();
    let mut next = 0u32;
    while (next as usize) < store.len() {
        if store.len() > limit {
            return Ok(None);
        }
        store.read(next, &mut state);
        machine.moves(procs, &state, &mut moves)?;
        for m in &moves.list {
            moves.apply(m, &state, &mut next_state);
            let (id, _) = store.insert(&next_state);
            edges.push((next, m.event, id));
        }
        next += 1;
    }
    edges.sort_unstable();
    edges.dedup();
    let mut row = Vec::new();
    let states = (0..store.len() as u32)
        .map(|i| {
            store.read(i, &mut row);
            row.iter()
                .enumerate()
                .map(|(slot, &local)| machine.process_state(slot, local))
                .collect()
        })
        .collect();
    Ok(Some(Graph { states, edges }))
}

impl Graph {
    /// The graph in Graphviz's DOT language, states labelled by their
    /// components' process text.
    pub fn to_dot(&self, procs: &Processes) -> String {
        let mut out = String::from("digraph lts {\n  node [shape=box, fontname=\"monospace\"];\n");
        out.push_str("  start [shape=point];\n  start -> s0;\n");
        for (i, components) in self.states.iter().enumerate() {
            let label: Vec<String> = components.iter().map(|&c| procs.show_state(c)).collect();
            out.push_str(&format!(
                "  s{i} [label={}];\n",
                dot_string(&label.join("\n"))
            ));
        }
        for &(from, event, to) in &self.edges {
            out.push_str(&format!(
                "  s{from} -> s{to} [label={}];\n",
                dot_string(&procs.show_event(event))
            ));
        }
        out.push_str("}\n");
        out
    }
}

fn dot_string(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
