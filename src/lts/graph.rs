//! The whole LTS of a small process, states and edges, for drawing
//! (`symcsp explore --dot`) and for tests that compare transition lists:
//! the one breadth-first search with a visitor that records every edge,
//! so a graph of representatives is a canonicaliser away.

use crate::eval::EvalResult;
use crate::process::{EventId, ProcId, Processes};

use super::Budget;
use super::machine::Machine;
use super::search::{Canonicaliser, Context, Flow, Search, Visit, Visitor};

/// An explicit LTS: state 0 is the initial state.
#[derive(Debug, Clone, PartialEq)]
pub struct Graph {
    /// Each state's components.
    pub states: Vec<Vec<ProcId>>,
    /// Distinct `(source, event, target)` triples, sorted.
    pub edges: Vec<(u32, EventId, u32)>,
}

/// The LTS of `root`, or `None` if it has more than `limit` states; of
/// its representatives, with a canonicaliser.
pub fn graph(
    procs: &mut Processes,
    root: ProcId,
    limit: usize,
    canonicaliser: Option<&mut dyn Canonicaliser>,
) -> EvalResult<Option<Graph>> {
    let machine = Machine::new(procs, root)?;
    graph_machine(procs, machine, limit, canonicaliser)
}

/// The LTS of `machine` (see [`graph`]).
pub fn graph_machine(
    procs: &mut Processes,
    machine: Machine,
    limit: usize,
    canonicaliser: Option<&mut dyn Canonicaliser>,
) -> EvalResult<Option<Graph>> {
    let mut search = Search::with_machine(machine, &[], false);
    let mut edges = Edges {
        edges: Vec::new(),
        canonicaliser,
    };
    let budget = Budget {
        max_states: Some(limit),
        threads: 1,
        ..Budget::default()
    };
    if search.run(procs, &budget, &mut edges)?.stopped.is_some() {
        return Ok(None);
    }
    let mut edges = edges.edges;
    edges.sort_unstable();
    edges.dedup();
    let machine = search.machine();
    let states = (0..search.states() as u32)
        .map(|id| {
            search
                .row(id)
                .iter()
                .enumerate()
                .map(|(slot, &local)| machine.process_state(slot, local))
                .collect()
        })
        .collect();
    Ok(Some(Graph { states, edges }))
}

/// The visitor that records each stored transition.
struct Edges<'c> {
    edges: Vec<(u32, EventId, u32)>,
    canonicaliser: Option<&'c mut dyn Canonicaliser>,
}

impl Visitor for Edges<'_> {
    fn needs_machine(&self) -> bool {
        false
    }

    fn visit(&mut self, _: Context<'_, '_>, _: Visit<'_>) -> EvalResult<Flow> {
        Ok(Flow::Continue)
    }

    fn canonicaliser(&mut self) -> Option<&mut dyn Canonicaliser> {
        // Reborrowed, the object's lifetime shortens to the borrow's.
        match &mut self.canonicaliser {
            Some(c) => Some(&mut **c),
            None => None,
        }
    }

    fn stored(&mut self, state: u32, events: &[EventId], ids: &[(u32, bool)]) {
        self.edges.extend(
            events
                .iter()
                .zip(ids)
                .map(|(&event, &(target, _))| (state, event, target)),
        );
    }
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

/// `text` as a DOT string literal, quoted and escaped.
pub fn dot_string(text: &str) -> String {
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
