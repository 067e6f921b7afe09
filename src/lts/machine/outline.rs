//! The operator tree above a machine's components as text: a state
//! shown grouped as its process is built, an operator as CSPM.

use crate::process::Processes;
use crate::syntax::strength::{Operator, spelling, symbol};

use super::{Machine, Node, OutlineRow, Priority};

impl Machine {
    /// The operator tree above the components, depth first, for showing
    /// a state grouped as the process is built.
    pub fn outline(&self, procs: &Processes) -> Vec<OutlineRow> {
        let mut rows = Vec::new();
        self.outline_node(procs, 0, 0, &mut rows);
        rows
    }

    fn outline_node(
        &self,
        procs: &Processes,
        node: usize,
        depth: usize,
        rows: &mut Vec<OutlineRow>,
    ) {
        let children: Vec<usize> = match &self.nodes[node] {
            Node::Leaf { slot } => {
                rows.push(OutlineRow::Component {
                    depth,
                    slot: *slot as usize,
                });
                return;
            }
            Node::Parallel { children, .. } => children.clone(),
            Node::Hide { child, .. }
            | Node::Rename { child, .. }
            | Node::Prioritise { child, .. } => vec![*child],
            Node::Linked { left, right, .. } => vec![*left, *right],
        };
        rows.push(OutlineRow::Operator {
            depth,
            text: self.operator_text(procs, node),
        });
        for child in children {
            self.outline_node(procs, child, depth + 1, rows);
        }
    }

    /// The operator of a node as CSPM (`[| {a, b} |]`, `|||`, `\ {c}`);
    /// a leaf as its component, `component 3`.
    pub fn operator_text(&self, procs: &Processes, node: usize) -> String {
        match &self.nodes[node] {
            Node::Leaf { slot } => format!("component {}", slot + 1),
            Node::Parallel {
                alphabets, sync, ..
            } => match (alphabets, sync) {
                (Some(alphabets), _) => {
                    let alphabets: Vec<String> =
                        alphabets.iter().map(|a| procs.show_events(a)).collect();
                    let parallel = spelling(Operator::BracketPar);
                    parallel.enclose(&alphabets.join(&parallel.spaced_joins()))
                }
                (None, Some(sync)) => spelling(Operator::GenPar).enclose(&procs.show_events(sync)),
                (None, None) => symbol(Operator::Interleave).to_string(),
            },
            Node::Hide { set, .. } => {
                format!("{} {}", symbol(Operator::Hide), procs.show_events(set))
            }
            Node::Rename { relation, .. } => {
                let rename = spelling(Operator::Rename);
                rename.enclose(&procs.show_relation(relation, &rename.spaced_joins()))
            }
            Node::Linked { relation, .. } => {
                let linked = spelling(Operator::LinkedPar);
                linked.enclose(&procs.show_relation(relation, &linked.spaced_joins()))
            }
            Node::Prioritise {
                priority: Priority::Levels { levels, .. },
                ..
            } => {
                let levels: Vec<String> = levels.iter().map(|a| procs.show_events(a)).collect();
                format!("prioritise <{}>", levels.join(", "))
            }
            Node::Prioritise {
                priority: Priority::Order(order),
                ..
            } => format!("prioritisepo {{{}}}", procs.show_relation(order, " over ")),
        }
    }
}
