//! A state as the multigraph of Section 7.1: a node per component, and
//! an edge wherever the `i`-th distinguished variable of one component
//! holds the value of the `k`-th of another (variables of one type).
//! This is the structure step 2 refines over: a component's n-value
//! counts its edges into each cell.
//!
//! The paper's multigraph has an `(i, k)` edge from `s` to `s'` and a
//! `(k, i)` edge back for one coincidence of values; here each
//! coincidence is one [`Edge`], oriented towards the component whose
//! *identity* (Definition 46) the value is — a reference, drawn as an
//! arrow (`next=me`) — or from the earlier component to the later when
//! neither variable is an identity. Values that several components hold
//! and none as its identity (the same datum) are also listed once each
//! as a [`SharedValue`], so a drawing can summarise them instead of
//! drawing a clique. Drawings: [`super::drawing`].

use crate::lts::machine::Machine;
use crate::process::Processes;

use super::variables::ComponentVariables;
use crate::symmetry::spec::Atom;
use crate::symmetry::system::SystemSymmetry;

/// A state's multigraph, with a cell per component for colouring.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateGraph {
    /// Per component (its node): its variables, named, and identity.
    pub variables: Vec<ComponentVariables>,
    /// Per component: its cell in the partition the graph was drawn
    /// for (`None` if the partition left it out).
    pub cells: Vec<Option<usize>>,
    pub edges: Vec<Edge>,
    pub shared: Vec<SharedValue>,
}

/// Variable `from_variable` of component `from` holds the value of
/// variable `to_variable` of component `to`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edge {
    pub from: usize,
    pub from_variable: usize,
    pub to: usize,
    pub to_variable: usize,
    pub value: Atom,
    pub kind: EdgeKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EdgeKind {
    /// `to_variable` is `to`'s identity and `from_variable` is not
    /// `from`'s: `from` refers to `to` (`next=me`).
    Reference,
    /// Both variables hold the value and neither (or both) is an
    /// identity: a shared datum.
    Shared,
}

/// A value several components hold, none of them as its identity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SharedValue {
    pub value: Atom,
    pub value_name: String,
    /// `(component, variable)`, in component order.
    pub holders: Vec<(usize, usize)>,
}

impl StateGraph {
    /// The graph of a state whose components have `variables`, each
    /// component in its cell of `cells` (an ordered partition).
    pub fn new(variables: Vec<ComponentVariables>, cells: &[Vec<usize>]) -> StateGraph {
        let mut cell_of = vec![None; variables.len()];
        for (j, cell) in cells.iter().enumerate() {
            for &c in cell {
                if let Some(slot) = cell_of.get_mut(c) {
                    *slot = Some(j);
                }
            }
        }
        // Every variable, bucketed by value.
        let mut holders: Vec<(Atom, usize, usize)> = variables
            .iter()
            .flat_map(|v| {
                v.variables
                    .iter()
                    .enumerate()
                    .map(move |(i, var)| (var.value, v.component, i))
            })
            .collect();
        holders.sort_unstable();
        let mut edges = Vec::new();
        let mut shared = Vec::new();
        for bucket in holders.chunk_by(|a, b| a.0 == b.0) {
            let value = bucket[0].0;
            let is_identity = |&(_, c, i): &(Atom, usize, usize)| variables[c].is_identity(i);
            for (x, a) in bucket.iter().enumerate() {
                for b in &bucket[x + 1..] {
                    if a.1 == b.1 {
                        continue;
                    }
                    let (from, to, kind) = match (is_identity(a), is_identity(b)) {
                        (false, true) => (a, b, EdgeKind::Reference),
                        (true, false) => (b, a, EdgeKind::Reference),
                        _ => (a, b, EdgeKind::Shared),
                    };
                    edges.push(Edge {
                        from: from.1,
                        from_variable: from.2,
                        to: to.1,
                        to_variable: to.2,
                        value,
                        kind,
                    });
                }
            }
            let components = {
                let mut cs: Vec<usize> = bucket.iter().map(|h| h.1).collect();
                cs.dedup();
                cs.len()
            };
            if components > 1 && !bucket.iter().any(is_identity) {
                let first = &variables[bucket[0].1].variables[bucket[0].2];
                shared.push(SharedValue {
                    value,
                    value_name: first.value_name.clone(),
                    holders: bucket.iter().map(|h| (h.1, h.2)).collect(),
                });
            }
        }
        edges.sort_by_key(|e| (e.from, e.from_variable, e.to, e.to_variable));
        StateGraph {
            variables,
            cells: cell_of,
            edges,
            shared,
        }
    }

    pub fn components(&self) -> usize {
        self.variables.len()
    }

    /// The references (edges towards an identity), in order of their
    /// source component and variable.
    pub fn references(&self) -> impl Iterator<Item = &Edge> {
        self.edges.iter().filter(|e| e.kind == EdgeKind::Reference)
    }

    /// An edge's label: `next=me` (its variables' names).
    pub fn label(&self, edge: &Edge) -> String {
        format!(
            "{}={}",
            self.variables[edge.from].name(edge.from_variable),
            self.variables[edge.to].name(edge.to_variable)
        )
    }
}

impl SystemSymmetry {
    /// The graph of `row`, its components in their cells of `cells` (a
    /// step's partition, or [`crate::symmetry::rep::Trace::final_cells`]).
    pub fn graph(
        &mut self,
        machine: &Machine,
        procs: &mut Processes,
        row: &[u32],
        cells: &[Vec<usize>],
    ) -> StateGraph {
        StateGraph::new(self.variables(machine, procs, row), cells)
    }
}
