//! A [`StateGraph`] drawn: as lines of text for a terminal, each cut
//! into spans a user interface can colour (a component by its cell), and
//! as DOT for Graphviz (each cell its own colour, from [`super::palette`]).
//!
//! The text follows the references (edges towards an identity): each
//! component that nothing refers to starts a chain, `#6 Top(N1) ─top→
//! #4 Node(N1, B, N0) ─next→ #3 Node(N0, A, Null)`, a component's first
//! reference continuing the chain and any others branching below it
//! (`├─left→`, `└─right→`), so lists read as chains and trees as indented
//! trees. A component met again is not drawn twice: `↺#1` marks a
//! reference back into the chain being drawn (a ring: drawn as a chain
//! from its first component, the back-edge marked), `↑#4` one to a
//! component drawn earlier. A chain longer than the width goes on on the
//! next line after `…`. Components that neither refer nor are referred
//! to are listed together; values several components share, none as
//! its identity (the same datum), are summarised one per line (`B =
//! #1.datum = #2.datum`) rather than drawn as cliques.

use crate::lts::graph::dot_string;

use super::graph::{EdgeKind, StateGraph};
use super::palette::{NO_CELL, cell_colours, needs_legend};

/// One line of a drawing.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Line {
    pub spans: Vec<StyledText>,
}

/// A piece of a line, with what it shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StyledText {
    pub text: String,
    pub role: Role,
}

/// What a span shows, for colouring.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// A component (its label, or a mark naming it), in its cell.
    Component {
        component: usize,
        cell: Option<usize>,
    },
    /// An edge's arrow and label.
    Edge,
    /// Box drawing, indentation and marks (`↺`, `↑`, `…`).
    Mark,
    /// Anything else (headings, values).
    Text,
}

impl Line {
    fn push(&mut self, text: impl Into<String>, role: Role) {
        self.spans.push(StyledText {
            text: text.into(),
            role,
        });
    }

    /// Its width in characters.
    pub fn width(&self) -> usize {
        self.spans.iter().map(|s| s.text.chars().count()).sum()
    }

    /// Its text, without roles.
    pub fn text(&self) -> String {
        self.spans.iter().map(|s| s.text.as_str()).collect()
    }
}

/// The lines' text, one per line.
pub fn plain(lines: &[Line]) -> String {
    lines.iter().map(|l| l.text() + "\n").collect()
}

/// Draws `graph` as text, components labelled `#n text` with `texts`
/// (one per component), chains wrapped to about `width` characters.
pub fn layout(graph: &StateGraph, texts: &[String], width: usize) -> Vec<Line> {
    let n = graph.components();
    // Per component: the components it refers to, each with the names
    // of the variables that refer, in order of the first.
    let mut targets: Vec<Vec<(usize, Vec<&str>)>> = vec![Vec::new(); n];
    let mut referred = vec![false; n];
    for e in graph.references() {
        let name = graph.variables[e.from].name(e.from_variable);
        let list = &mut targets[e.from];
        match list.iter_mut().find(|(to, _)| *to == e.to) {
            Some((_, names)) => names.push(name),
            None => list.push((e.to, vec![name])),
        }
        referred[e.to] = true;
    }
    for list in &mut targets {
        list.sort_by_key(|(to, names)| (names.first().copied(), *to));
    }
    // Components in the order of their cells, then the rest.
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&c| (graph.cells[c].is_none(), graph.cells[c], c));
    let mut drawer = Drawer {
        graph,
        texts,
        targets: &targets,
        width: width.max(MIN_WIDTH),
        drawn: vec![false; n],
        on_path: vec![false; n],
    };
    let mut lines = Vec::new();
    let roots = order
        .iter()
        .filter(|&&c| !referred[c] && !drawer.targets[c].is_empty());
    for &root in roots {
        lines.extend(drawer.block(root));
    }
    // Rings and other cycles: from their first component.
    for &c in &order {
        if !drawer.drawn[c] && (referred[c] || !drawer.targets[c].is_empty()) {
            lines.extend(drawer.block(c));
        }
    }
    let alone: Vec<usize> = order
        .iter()
        .copied()
        .filter(|&c| !drawer.drawn[c])
        .collect();
    if !alone.is_empty() {
        let mut line = Line::default();
        line.push("not linked: ", Role::Text);
        for (k, &c) in alone.iter().enumerate() {
            let label = drawer.label(c);
            if k > 0 {
                // The comma stays with the label before it; a wrapped
                // row starts under the first label. A label fits with the
                // comma that follows it, but for the last.
                line.push(",", Role::Text);
                let comma = usize::from(k + 1 < alone.len());
                if line.width() + 1 + label.chars().count() + comma > drawer.width {
                    lines.push(std::mem::take(&mut line));
                    line.push("            ", Role::Mark);
                } else {
                    line.push(" ", Role::Text);
                }
            }
            line.push(label, drawer.role(c));
        }
        lines.push(line);
    }
    for value in &graph.shared {
        let mut line = Line::default();
        line.push(value.value_name.as_str(), Role::Text);
        for &(c, i) in &value.holders {
            line.push(" = ", Role::Text);
            line.push(format!("#{}", c + 1), drawer.role(c));
            line.push(format!(".{}", graph.variables[c].name(i)), Role::Text);
        }
        lines.push(line);
    }
    lines
}

/// The narrowest a drawing (or a branch of it) is laid out: narrower
/// would break every label.
const MIN_WIDTH: usize = 20;

/// What the text drawing keeps while it draws.
struct Drawer<'g> {
    graph: &'g StateGraph,
    texts: &'g [String],
    targets: &'g [Vec<(usize, Vec<&'g str>)>],
    width: usize,
    drawn: Vec<bool>,
    /// The components of the chains being drawn, for marking cycles.
    on_path: Vec<bool>,
}

/// A reference to draw below a line: from the component at `column`,
/// to `target` through the variables `names`.
struct Branch<'g> {
    column: usize,
    target: usize,
    names: &'g [&'g str],
    kind: BranchKind,
}

/// How a branch meets the line above it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum BranchKind {
    /// A second or later reference of a component, under it.
    Fork,
    /// The chain going on from the end of the line above, which drew
    /// the reference's arrow when `arrow_drawn`.
    Continued { arrow_drawn: bool },
}

impl<'g> Drawer<'g> {
    fn role(&self, c: usize) -> Role {
        Role::Component {
            component: c,
            cell: self.graph.cells[c],
        }
    }

    fn label(&self, c: usize) -> String {
        format!("#{} {}", c + 1, self.texts[c])
    }

    /// `c` and everything it refers to not yet drawn: lines starting at
    /// column 0 with `c`'s label.
    fn block(&mut self, c: usize) -> Vec<Line> {
        let mut branches: Vec<Branch<'g>> = Vec::new();
        let mut chain = Vec::new();
        let mut lines = vec![self.chain_line(c, &mut chain, &mut branches)];
        // Deeper branches first, each level's in order, so that every
        // branch sits under its component with `│` carrying the ones
        // still to come.
        branches.sort_by_key(|b| std::cmp::Reverse(b.column));
        for (k, branch) in branches.iter().enumerate() {
            lines.extend(self.branch_lines(branch, &branches[k + 1..]));
        }
        for c in chain {
            self.on_path[c] = false;
        }
        lines
    }

    /// The line of the chain of first references from `c`, as far as it
    /// fits: its components go on `chain` (marked on the path), and the
    /// other references, with the chain's rest when it is cut, on
    /// `branches`.
    fn chain_line(
        &mut self,
        c: usize,
        chain: &mut Vec<usize>,
        branches: &mut Vec<Branch<'g>>,
    ) -> Line {
        let mut line = Line::default();
        let mut current = c;
        loop {
            self.drawn[current] = true;
            self.on_path[current] = true;
            chain.push(current);
            let column = line.width();
            line.push(self.label(current), self.role(current));
            let targets: &'g [(usize, Vec<&'g str>)] = &self.targets[current];
            let Some((first, names)) = targets.first() else {
                break;
            };
            for (target, names) in &targets[1..] {
                branches.push(Branch {
                    column,
                    target: *target,
                    names,
                    kind: BranchKind::Fork,
                });
            }
            let first = *first;
            let arrow = format!(" {}", arrow(names));
            if self.drawn[first] {
                line.push(arrow, Role::Edge);
                self.push_drawn(&mut line, first);
                break;
            }
            // Room for the next component and, should the chain go on
            // past it, for the arrow and `…` that would end the line.
            let link = arrow.chars().count();
            let goes_on = if self.targets[first].is_empty() {
                0
            } else {
                link + 1
            };
            let next = line.width() + link + self.label(first).chars().count() + goes_on;
            if next > self.width {
                // The arrow ends this line if it fits with the `…`, else
                // starts the next, so no line is wider than it need be.
                let arrow_drawn = line.width() + link < self.width;
                if arrow_drawn {
                    line.push(arrow, Role::Edge);
                } else {
                    line.push(" ", Role::Mark);
                }
                line.push("…", Role::Mark);
                branches.push(Branch {
                    column: 0,
                    target: first,
                    names,
                    kind: BranchKind::Continued { arrow_drawn },
                });
                break;
            }
            line.push(arrow, Role::Edge);
            current = first;
        }
        line
    }

    /// The lines of `branch`, under the line above with `rest` (the
    /// branches still to come) carried down its gutter.
    fn branch_lines(&mut self, branch: &Branch<'g>, rest: &[Branch<'g>]) -> Vec<Line> {
        let mut lines = Vec::new();
        let gutter = |own: bool| {
            let mut g = Line::default();
            let mut text = String::new();
            for col in 0..branch.column {
                text.push(if rest.iter().any(|b| b.column == col) {
                    '│'
                } else {
                    ' '
                });
            }
            if own {
                text.push(if rest.iter().any(|b| b.column == branch.column) {
                    '│'
                } else {
                    ' '
                });
            }
            g.push(text, Role::Mark);
            g
        };
        let (connector, arrow, arrow_role) = match branch.kind {
            BranchKind::Continued { arrow_drawn: true } => ("…", " ".to_string(), Role::Mark),
            BranchKind::Continued { arrow_drawn: false } => {
                ("…", format!(" {}", arrow(branch.names)), Role::Edge)
            }
            BranchKind::Fork => {
                let corner = if rest.iter().any(|b| b.column == branch.column) {
                    "├"
                } else {
                    "└"
                };
                (corner, arrow(branch.names), Role::Edge)
            }
        };
        let sub = if self.drawn[branch.target] {
            let mut l = Line::default();
            self.push_drawn(&mut l, branch.target);
            vec![l]
        } else {
            // Laid out in the width its prefix (gutter, connector,
            // arrow) leaves, so its lines too keep within the width.
            let prefix = branch.column + connector.chars().count() + arrow.chars().count();
            let width = self.width;
            self.width = width.saturating_sub(prefix).max(MIN_WIDTH);
            let sub = self.block(branch.target);
            self.width = width;
            sub
        };
        let indent = connector.chars().count() + arrow.chars().count() - 1;
        for (s, sub_line) in sub.into_iter().enumerate() {
            let mut out = gutter(s > 0);
            if s == 0 {
                out.push(connector, Role::Mark);
                out.push(arrow.as_str(), arrow_role);
            } else {
                out.push(" ".repeat(indent), Role::Mark);
            }
            out.spans.extend(sub_line.spans);
            lines.push(out);
        }
        lines
    }

    /// A reference to a component drawn already, onto `line`: `↺` when
    /// it is on the chain being drawn (a cycle), else `↑`, and its number.
    fn push_drawn(&self, line: &mut Line, target: usize) {
        let mark = if self.on_path[target] { "↺" } else { "↑" };
        line.push(mark, Role::Mark);
        line.push(format!("#{}", target + 1), self.role(target));
    }
}

/// The arrow of a reference through the variables `names`: `─next→ `.
fn arrow(names: &[&str]) -> String {
    format!("─{}→ ", names.join(","))
}

/// `graph` for Graphviz: a box per component labelled `#n text`, filled
/// with its cell's own colour (and the cell named), references as arrows
/// labelled with their variables (`next=me`), and each shared value as a
/// dashed ellipse joined to the variables that hold it. With more cells
/// than the colour scheme has colours, a legend lists each cell's colour.
pub fn dot(graph: &StateGraph, texts: &[String]) -> String {
    let mut out = String::from(
        "digraph state {\n  node [shape=box, style=filled, fontname=\"monospace\"];\n",
    );
    let cells = graph.cells.iter().flatten().max().map_or(0, |&j| j + 1);
    let colours = cell_colours(cells);
    for (c, text) in texts.iter().enumerate().take(graph.components()) {
        let (label, colour) = match graph.cells[c] {
            Some(j) => (
                format!("#{} {text}\ncell {}", c + 1, j + 1),
                colours[j].as_str(),
            ),
            None => (format!("#{} {text}", c + 1), NO_CELL),
        };
        out.push_str(&format!(
            "  c{} [label={}, fillcolor=\"{colour}\"];\n",
            c + 1,
            dot_string(&label)
        ));
    }
    for e in graph.edges.iter().filter(|e| e.kind == EdgeKind::Reference) {
        out.push_str(&format!(
            "  c{} -> c{} [label={}];\n",
            e.from + 1,
            e.to + 1,
            dot_string(&graph.label(e))
        ));
    }
    for (v, value) in graph.shared.iter().enumerate() {
        out.push_str(&format!(
            "  v{} [shape=ellipse, style=dashed, label={}];\n",
            v + 1,
            dot_string(&value.value_name)
        ));
        for &(c, i) in &value.holders {
            out.push_str(&format!(
                "  c{} -> v{} [label={}, style=dashed, arrowhead=none];\n",
                c + 1,
                v + 1,
                dot_string(graph.variables[c].name(i))
            ));
        }
    }
    if needs_legend(cells) {
        out.push_str(&dot_legend(&colours));
    }
    out.push_str("}\n");
    out
}

/// A legend for Graphviz: a cluster holding one table, a row per cell
/// with its colour.
fn dot_legend(colours: &[String]) -> String {
    let rows: String = colours
        .iter()
        .enumerate()
        .map(|(j, colour)| {
            format!(
                "\n      <tr><td bgcolor=\"{colour}\" width=\"24\"></td><td \
                 align=\"left\">cell {}</td></tr>",
                j + 1
            )
        })
        .collect();
    format!(
        "  subgraph cluster_legend {{\n    label=\"cells\";\n    legend [shape=plaintext, \
         fillcolor=\"{NO_CELL}\", label=<<table border=\"0\" cellspacing=\"2\">{rows}\n    \
         </table>>];\n  }}\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explain::variables::{ComponentVariables, Variable};
    use crate::symmetry::spec::Atom;

    /// A component whose variables are `(name, type, value)`, the first
    /// its identity when `identity`.
    fn component(c: usize, vars: &[(&str, usize, usize)], identity: bool) -> ComponentVariables {
        ComponentVariables {
            component: c,
            variables: vars
                .iter()
                .map(|&(name, ty, value)| Variable {
                    name: name.to_string(),
                    value: Atom::new(ty, value),
                    value_name: format!("{}{value}", if ty == 0 { "N" } else { "D" }),
                })
                .collect(),
            identity: identity.then_some(0),
        }
    }

    fn drawn(components: Vec<ComponentVariables>, texts: &[&str], width: usize) -> String {
        let texts: Vec<String> = texts.iter().map(|t| t.to_string()).collect();
        let cells: Vec<Vec<usize>> = (0..components.len()).map(|c| vec![c]).collect();
        plain(&layout(&StateGraph::new(components, &cells), &texts, width))
    }

    #[test]
    fn a_tree_branches_under_its_nodes() {
        let components = vec![
            component(0, &[("top", 0, 0)], false),
            component(1, &[("me", 0, 0), ("left", 0, 1), ("right", 0, 2)], true),
            component(2, &[("me", 0, 1), ("left", 0, 3), ("right", 0, 5)], true),
            component(3, &[("me", 0, 2), ("datum", 1, 0)], true),
            component(4, &[("me", 0, 3), ("datum", 1, 0)], true),
            component(5, &[("me", 0, 4)], true),
            component(6, &[("me", 0, 5)], true),
            component(7, &[("top", 0, 1)], false),
        ];
        let texts = [
            "Top", "T(N0)", "T(N1)", "T(N2)", "T(N3)", "F(N4)", "T(N5)", "Top2",
        ];
        assert_eq!(
            drawn(components, &texts, 80),
            "#1 Top ─top→ #2 T(N0) ─left→ #3 T(N1) ─left→ #5 T(N3)\n\
             \x20            │               └─right→ #7 T(N5)\n\
             \x20            └─right→ #4 T(N2)\n\
             #8 Top2 ─top→ ↑#3\n\
             not linked: #6 F(N4)\n\
             D0 = #4.datum = #5.datum\n"
        );
    }

    #[test]
    fn a_ring_is_a_chain_with_its_back_edge_marked_and_long_chains_wrap() {
        let ring = || {
            (0..4)
                .map(|c| component(c, &[("me", 0, c), ("next", 0, (c + 1) % 4)], true))
                .collect::<Vec<_>>()
        };
        let texts = ["R(N0)", "R(N1)", "R(N2)", "R(N3)"];
        assert_eq!(
            drawn(ring(), &texts, 80),
            "#1 R(N0) ─next→ #2 R(N1) ─next→ #3 R(N2) ─next→ #4 R(N3) ─next→ ↺#1\n"
        );
        assert_eq!(
            drawn(ring(), &texts, 40),
            "#1 R(N0) ─next→ #2 R(N1) ─next→ …\n\
             … #3 R(N2) ─next→ #4 R(N3) ─next→ ↺#1\n"
        );
    }

    #[test]
    fn components_not_linked_are_listed_and_wrap_under_the_first() {
        let components: Vec<_> = (0..6)
            .map(|c| component(c, &[("me", 0, c)], true))
            .collect();
        let texts = [
            "Idle(N0)", "Idle(N1)", "Idle(N2)", "Idle(N3)", "Idle(N4)", "Idle(N5)",
        ];
        assert_eq!(
            drawn(components, &texts, 40),
            "not linked: #1 Idle(N0), #2 Idle(N1),\n\
             \x20           #3 Idle(N2), #4 Idle(N3),\n\
             \x20           #5 Idle(N4), #6 Idle(N5)\n"
        );
    }

    #[test]
    fn no_line_passes_the_width_for_a_comma_or_an_arrow() {
        // "not linked: #1 Idle(N0), #2 Idle(N1)," is 37 columns: at 36
        // the second label would fit, but not with its comma.
        let idle: Vec<_> = (0..3)
            .map(|c| component(c, &[("me", 0, c)], true))
            .collect();
        let texts = ["Idle(N0)", "Idle(N1)", "Idle(N2)"];
        assert_eq!(
            drawn(idle, &texts, 36),
            "not linked: #1 Idle(N0),\n\
             \x20           #2 Idle(N1), #3 Idle(N2)\n"
        );
        // A first label too long for its arrow: the arrow starts the
        // next line, after the `…` that carries the chain on.
        let chain = vec![
            component(0, &[("head", 0, 1)], false),
            component(1, &[("me", 0, 1)], true),
        ];
        let texts = ["Pointer(getHead, casHead, N0)", "Node(N0)"];
        let text = drawn(chain, &texts, 36);
        assert_eq!(
            text,
            "#1 Pointer(getHead, casHead, N0) …\n\
             … ─head→ #2 Node(N0)\n"
        );
        assert!(text.lines().all(|l| l.chars().count() <= 36), "{text}");
        // A chain going on past a continuation: its next line, laid out
        // after `… ─head→ `, keeps within the width too.
        let chain = vec![
            component(0, &[("head", 0, 1)], false),
            component(1, &[("me", 0, 1), ("next", 0, 2)], true),
            component(2, &[("me", 0, 2), ("next", 0, 3)], true),
            component(3, &[("me", 0, 3)], true),
        ];
        let texts = [
            "Pointer(getHead, casHead, N0)",
            "Node(N0, A)",
            "Node(N1, B)",
            "Node(N2, A)",
        ];
        let text = drawn(chain, &texts, 36);
        assert!(text.lines().all(|l| l.chars().count() <= 36), "{text}");
        assert!(text.contains("… ─head→ #2 Node(N0, A) ─next→ …"), "{text}");
    }

    #[test]
    fn spans_say_what_they_show() {
        let components = vec![
            component(0, &[("me", 0, 0), ("next", 0, 1)], true),
            component(1, &[("me", 0, 1)], true),
        ];
        let graph = StateGraph::new(components, &[vec![1], vec![0]]);
        let texts = vec!["A".to_string(), "B".to_string()];
        let lines = layout(&graph, &texts, 80);
        let roles: Vec<Role> = lines[0].spans.iter().map(|s| s.role).collect();
        assert_eq!(
            roles,
            [
                Role::Component {
                    component: 0,
                    cell: Some(1)
                },
                Role::Edge,
                Role::Component {
                    component: 1,
                    cell: Some(0)
                },
            ]
        );
        assert_eq!(graph.label(&graph.edges[0]), "next=me");
        assert_eq!(
            dot(&graph, &texts),
            "digraph state {\n  node [shape=box, style=filled, fontname=\"monospace\"];\n  \
             c1 [label=\"#1 A\\ncell 2\", fillcolor=\"#ffffb3\"];\n  c2 [label=\"#2 B\\ncell \
             1\", fillcolor=\"#8dd3c7\"];\n  c1 -> c2 [label=\"next=me\"];\n}\n"
        );
    }
}
