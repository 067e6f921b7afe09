//! The representative algorithm of one state as a document of stages, for
//! a slide or a handout: the partition after step 1, each round of step 2
//! with its n-value tables (one per cell, columns named) and why each
//! cell split, each step-3 split with whether its cell was fully
//! symmetric, then the orderings and the permutation. Above them, the
//! cell sizes stage by stage on one line (`2,3,1 → 2,1,1,1,1 → …`), the
//! algorithm at a glance.
//!
//! A [`Document`] holds only words and numbers, so each format —
//! [`markdown`], [`latex`], [`svg`] — is a printer of it; the state's
//! graph comes along for the drawings. [`Document::nothing_to_show`]
//! says when a state makes a poor lesson: with one component, or no
//! distinguished value, no stage can tell anything apart.

pub mod latex;
pub mod markdown;
pub mod svg;

use crate::script::Script;

use super::graph::StateGraph;
use super::splits::StepAccount;
use crate::symmetry::perm::alpha_text;
use crate::symmetry::rep::{NValue, Step, Trace};
use crate::symmetry::{Explanation, Symmetry};

/// Everything the stages show, in words and numbers.
#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    /// `(label, text)` lines naming the process, the trace, the types and
    /// the group.
    pub heading: Vec<(String, String)>,
    /// Each component of the state, and of its representative.
    pub texts: Vec<String>,
    pub representative: Vec<String>,
    /// α: component `i` of the state is the representative's `alpha[i]`.
    pub alpha: Vec<usize>,
    pub stages: Vec<Stage>,
    /// The final order of the components.
    pub order: Vec<usize>,
    pub orderings: Vec<TypeOrdering>,
    /// A line per type, `identity` for one it leaves alone (none for the
    /// identity).
    pub permutation: Vec<String>,
    /// Whether the representative is guaranteed unique, in words.
    pub unique: String,
    /// The state's graph (its cells those of the last stage).
    pub graph: StateGraph,
    /// With step 3 made by hand: what each split split off both ways,
    /// the two representatives and the permutation between them
    /// ([`crate::explain::by_hand::ByHand::document_lines`]); empty
    /// for the algorithm's own run. The closing shows it.
    pub by_hand: Vec<String>,
}

/// One stage: what the algorithm did and the partition it left.
#[derive(Debug, Clone, PartialEq)]
pub struct Stage {
    pub kind: StageKind,
    /// Per cell of the partition before a round of step 2: its
    /// components' n-values (empty for the other steps).
    pub tables: Vec<Table>,
    /// Why cells split (a sentence per new cell, or step 3's reason).
    pub sentences: Vec<String>,
    /// The ordered partition after the stage.
    pub cells: Vec<Vec<usize>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StageKind {
    /// Step 1: the components by shape.
    Shapes,
    /// A round of step 2 (from 1), and whether it split a cell.
    Refine { round: usize, split: bool },
    /// Step 3: the member it split off, whether the cell was fully
    /// symmetric (Definition 49; `None`: undecided) and whether the
    /// member was chosen by hand.
    Individualise {
        split_off: usize,
        fully_symmetric: Option<bool>,
        by_hand: bool,
    },
}

/// Which stages an export shows: all of them (with the orderings and the
/// permutation after the last, and step 3 by hand), or one slide: a
/// stage, numbered from 0, the orderings and the permutation (the slide
/// after the last stage), or step 3 by hand (the one after that).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shown {
    All,
    Stage(usize),
    Closing,
    ByHand,
}

impl Shown {
    /// Whether stage `k` (from 0) is shown.
    pub fn includes(self, k: usize) -> bool {
        match self {
            Shown::All => true,
            Shown::Stage(only) => only == k,
            Shown::Closing | Shown::ByHand => false,
        }
    }

    /// Whether the orderings and the permutation are shown: after every
    /// stage, or alone.
    pub fn closes(self) -> bool {
        matches!(self, Shown::All | Shown::Closing)
    }

    /// Whether step 3 by hand is shown (where it was made): at the end of
    /// the whole, or alone.
    pub fn by_hand(self) -> bool {
        matches!(self, Shown::All | Shown::ByHand)
    }

    /// The slides of `doc`, in order: a stage each, the orderings and the
    /// permutation, and step 3 by hand where it was made.
    pub fn slides(doc: &Document) -> Vec<Shown> {
        let by_hand = (!doc.by_hand.is_empty()).then_some(Shown::ByHand);
        (0..doc.stages.len())
            .map(Shown::Stage)
            .chain([Shown::Closing])
            .chain(by_hand)
            .collect()
    }
}

/// A cell's colour in a drawing ([`Document::colours`]): a number for a
/// palette; whether the cell split off in this stage (`new`, a colour of
/// its own), or is what is left of a cell that did (`split`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CellColour {
    pub colour: usize,
    pub new: bool,
    pub split: bool,
}

/// One cell's n-values in a round of step 2.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table {
    /// The cell, in the partition before the round.
    pub cell: usize,
    /// The columns' labels (`me→c2.next`), one group per variable.
    pub heads: Vec<Vec<String>>,
    pub rows: Vec<NValue>,
}

/// A type's values in the order the ordered components hold them, and
/// those that appear nowhere (in any order).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeOrdering {
    pub ty: String,
    pub appeared: Vec<String>,
    pub nowhere: Vec<String>,
}

/// The cell sizes after each step of `trace`, on one line: `2,3,1 →
/// 2,1,1,1,1`.
pub fn cell_sizes(trace: &Trace) -> String {
    stage_sizes(trace).join(SIZES_JOINED_BY)
}

/// The cell sizes after each step of `trace`, a stage each (`2,3,1`):
/// [`cell_sizes`] before they are joined, for a view that marks one.
pub fn stage_sizes(trace: &Trace) -> Vec<String> {
    trace.steps.iter().map(|s| sizes(s.cells())).collect()
}

/// What joins the stages' cell sizes on the summary line.
pub const SIZES_JOINED_BY: &str = " → ";

/// One partition's cell sizes: `2,3,1`.
pub(super) fn sizes(cells: &[Vec<usize>]) -> String {
    let sizes: Vec<String> = cells.iter().map(|c| c.len().to_string()).collect();
    sizes.join(",")
}

impl Stage {
    /// What the stage is, as a heading: `Step 2, round 1: n-values`.
    pub fn title(&self) -> String {
        match self.kind {
            StageKind::Shapes => "Step 1: the components by control state and the values \
                                  that are not distinguished"
                .to_string(),
            StageKind::Refine { round, .. } => format!(
                "Step 2, round {round}: each component's n-value against the cells before the \
                 round"
            ),
            StageKind::Individualise { by_hand: false, .. } => {
                "Step 3: a cell nothing tells apart loses its first component".to_string()
            }
            StageKind::Individualise { by_hand: true, .. } => {
                "Step 3: a cell nothing tells apart loses the member chosen by hand".to_string()
            }
        }
    }

    /// What came of the stage, as a line under its tables: `→ 5 cells`.
    pub fn outcome(&self) -> String {
        match self.kind {
            // The reasons count in the cells the round read; the table
            // after them numbers the cells it made.
            StageKind::Refine { split: true, .. } => format!(
                "Components with different n-values split apart: {} (each reason names the \
                 cells before the round)",
                cells_counted(self.cells.len())
            ),
            StageKind::Refine { split: false, .. } => "No cell splits: step 2 is done".to_string(),
            StageKind::Shapes | StageKind::Individualise { .. } => cells_counted(self.cells.len()),
        }
    }

    /// The n-value tables, those of neighbouring cells with the same
    /// columns together (one table with a column for the cell reads
    /// better than a table per one-component cell).
    pub fn table_runs(&self) -> Vec<&[Table]> {
        self.tables.chunk_by(|a, b| a.heads == b.heads).collect()
    }

    /// Step 3's mark, at a glance and without colour: ✓ the choice
    /// cannot matter, ✗ it may, ? undecided.
    pub fn mark(&self) -> Option<char> {
        match self.kind {
            StageKind::Individualise {
                fully_symmetric, ..
            } => Some(match fully_symmetric {
                Some(true) => '✓',
                Some(false) => '✗',
                None => '?',
            }),
            _ => None,
        }
    }
}

/// How to read a column's label, said once per round of step 2.
pub const COLUMNS_EXPLAINED: &str = "A column v→cj.w counts the components of cell j whose \
     variable w holds the value of this component's variable v.";

/// The title of the closing's account of step 3 made by hand.
pub const BY_HAND: &str = "Step 3 by hand";

/// What the permutation is, said above it.
pub const PERMUTATION_EXPLAINED: &str = "The permutation maps the k-th value of each ordering \
     to the type's k-th value; α says which component of the representative each component \
     becomes.";

/// `1 cell`, `5 cells`.
fn cells_counted(n: usize) -> String {
    format!("{n} cell{}", if n == 1 { "" } else { "s" })
}

/// What [`Document::new`] reads: the explanation of one state and how
/// it is shown.
pub struct Sources<'a> {
    pub heading: Vec<(String, String)>,
    pub explanation: &'a Explanation,
    /// Each step of the trace, explained ([`super::splits::account`]).
    pub accounts: &'a [StepAccount],
    pub graph: &'a StateGraph,
    pub texts: &'a [String],
    pub representative: Vec<String>,
    pub symmetry: &'a Symmetry,
    pub script: &'a Script,
}

impl Document {
    pub fn new(from: Sources) -> Document {
        let x = from.explanation;
        let texts = from.texts;
        let mut stages = Vec::with_capacity(x.trace.steps.len());
        let mut before: &[Vec<usize>] = &[];
        for (step, account) in x.trace.steps.iter().zip(from.accounts) {
            let stage = match (step, account) {
                (
                    Step::Refine {
                        n_values, split, ..
                    },
                    StepAccount::Refine {
                        round,
                        columns,
                        splits,
                    },
                ) => Stage {
                    kind: StageKind::Refine {
                        round: *round,
                        split: *split,
                    },
                    tables: before
                        .iter()
                        .enumerate()
                        .map(|(j, cell)| Table {
                            cell: j,
                            heads: columns
                                .get(j)
                                .map(|c| {
                                    c.groups
                                        .iter()
                                        .map(|g| g.iter().map(|col| col.label()).collect())
                                        .collect()
                                })
                                .unwrap_or_default(),
                            rows: n_values
                                .iter()
                                .filter(|nv| cell.contains(&nv.component))
                                .cloned()
                                .collect(),
                        })
                        .collect(),
                    sentences: splits
                        .iter()
                        .flat_map(|s| &s.parts)
                        .map(|p| p.sentence(texts))
                        .collect(),
                    cells: step.cells().to_vec(),
                },
                (
                    Step::Individualise {
                        component,
                        fully_symmetric,
                        by_hand,
                        ..
                    },
                    StepAccount::Individualise(split),
                ) => Stage {
                    kind: StageKind::Individualise {
                        split_off: *component,
                        fully_symmetric: *fully_symmetric,
                        by_hand: *by_hand,
                    },
                    tables: Vec::new(),
                    sentences: vec![split.sentence(texts, &from.graph.variables)],
                    cells: step.cells().to_vec(),
                },
                _ => Stage {
                    kind: StageKind::Shapes,
                    tables: Vec::new(),
                    sentences: Vec::new(),
                    cells: step.cells().to_vec(),
                },
            };
            stages.push(stage);
            before = step.cells();
        }
        let name = |a| from.symmetry.name(from.script, a).to_string();
        let orderings = from
            .symmetry
            .types()
            .iter()
            .enumerate()
            .map(|(t, ty)| {
                let ordering = &x.trace.type_orderings[t];
                let appeared = x.trace.appeared[t].min(ordering.len());
                TypeOrdering {
                    ty: ty.name.clone(),
                    appeared: ordering[..appeared].iter().map(|&a| name(a)).collect(),
                    nowhere: ordering[appeared..].iter().map(|&a| name(a)).collect(),
                }
            })
            .collect();
        Document {
            heading: from.heading,
            texts: texts.to_vec(),
            representative: from.representative,
            alpha: x.alpha.clone(),
            stages,
            order: x.trace.order.clone(),
            orderings,
            permutation: match x.permutation.is_identity() {
                true => Vec::new(),
                false => x.permutation.lines(from.symmetry, from.script, false),
            },
            unique: uniqueness(x).to_string(),
            graph: from.graph.clone(),
            by_hand: Vec::new(),
        }
    }

    /// Each stage's cells' colours, kept from stage to stage: a cell of
    /// step 1 is colour `j`; when a cell splits, its largest part keeps
    /// its colour (marked as the cell that split) and each other part
    /// takes a colour no cell had before (marked new). So a component keeps its
    /// colour until its cell splits it off, and the eye sees which cell
    /// split.
    pub fn colours(&self) -> Vec<Vec<CellColour>> {
        let mut out: Vec<Vec<CellColour>> = Vec::with_capacity(self.stages.len());
        let mut next = 0;
        for (k, stage) in self.stages.iter().enumerate() {
            // Each cell's cell in the stage before (by its first member).
            let parents: Vec<Option<usize>> = match k.checked_sub(1) {
                None => vec![None; stage.cells.len()],
                Some(p) => stage
                    .cells
                    .iter()
                    .map(|cell| {
                        let first = cell.first()?;
                        self.stages[p].cells.iter().position(|c| c.contains(first))
                    })
                    .collect(),
            };
            // Of a cell's parts, the largest (the first of equals) keeps
            // its colour; at step 3 the rest of the cell keeps it, and the
            // member split off is the new part, even out of two.
            let keeps = |j: usize| {
                let size = |i: usize| stage.cells[i].len();
                let siblings =
                    || (0..parents.len()).filter(|&i| i != j && parents[i] == parents[j]);
                match stage.kind {
                    StageKind::Individualise { split_off, .. } if siblings().next().is_some() => {
                        !stage.cells[j].contains(&split_off)
                    }
                    _ => {
                        parents[j].is_some()
                            && siblings()
                                .all(|i| size(i) < size(j) || (size(i) == size(j) && i > j))
                    }
                }
            };
            let mut colours = Vec::with_capacity(parents.len());
            for (j, &parent) in parents.iter().enumerate() {
                let kept = keeps(j);
                let colour = match parent {
                    Some(p) if kept => out[k - 1][p].colour,
                    _ => {
                        next += 1;
                        next - 1
                    }
                };
                colours.push(CellColour {
                    colour,
                    new: parent.is_some() && !kept,
                    split: kept && parents.iter().filter(|&&q| q == parent).count() > 1,
                });
            }
            out.push(colours);
        }
        out
    }

    /// What step 3 did, in a sentence: how many cells it split, or that
    /// it had nothing to choose.
    pub fn step3(&self) -> String {
        let splits: Vec<&Stage> = self
            .stages
            .iter()
            .filter(|s| matches!(s.kind, StageKind::Individualise { .. }))
            .collect();
        if splits.is_empty() {
            return "Step 3: nothing to choose — after step 2 every cell is a single component"
                .to_string();
        }
        let unsure = splits.iter().filter(|s| s.mark() != Some('✓')).count();
        let times = match splits.len() {
            1 => "once".to_string(),
            n => format!("{n} times"),
        };
        match unsure {
            0 => format!(
                "Step 3: split off a member {times}, each of a fully symmetric cell (the \
                 choice could not matter)"
            ),
            n => {
                let not = splits.iter().filter(|s| s.mark() == Some('✗')).count();
                // Said as the split's own sentence says it: "not fully
                // symmetric" where that is known, "not known" where not.
                let which = match (not, n - not) {
                    (_, 0) => format!("{n} of its cells not fully symmetric"),
                    (0, _) => format!("{n} of its cells not known to be fully symmetric"),
                    (a, b) => {
                        format!("{a} of its cells not fully symmetric and {b} not known to be")
                    }
                };
                format!("Step 3: split off a member {times}; {which} (the choice may matter)")
            }
        }
    }

    /// The cell sizes stage by stage: `2,3,1 → 2,1,1,1,1 → …`.
    pub fn summary(&self) -> String {
        let stages: Vec<String> = self.stages.iter().map(|s| sizes(&s.cells)).collect();
        stages.join(SIZES_JOINED_BY)
    }

    /// α in words: `1 ↦ 5, 3 ↦ 1` or `each stays in place`.
    pub fn alpha_text(&self) -> String {
        alpha_text(&self.alpha)
    }

    /// Why the stages of this state would show nothing (`None` when they
    /// show something): one component, or no distinguished value held.
    pub fn nothing_to_show(&self, symmetry: &Symmetry) -> Option<String> {
        match self.texts.len() {
            0 => return Some("the state has no component".to_string()),
            1 => {
                return Some(format!(
                    "the state has one component ({}): every stage is one cell, and there is \
                     nothing to order",
                    self.texts[0]
                ));
            }
            _ => {}
        }
        if symmetry.types().is_empty() {
            return Some(
                "no type is permuted (the group is the identity alone): every state is its own \
                 representative"
                    .to_string(),
            );
        }
        let holds_none = self.graph.variables.iter().all(|v| v.variables.is_empty());
        holds_none.then(|| {
            format!(
                "no component of the state holds a value of {}: no n-value tells components \
                 apart, and every permutation leaves the state as it is",
                symmetry.type_names()
            )
        })
    }
}

/// The lines naming the process, each state's trace (`after push.T0.A`,
/// its events given as text), the types and where they came from, and
/// the group, as `(label, text)`: a line going on from the one above has
/// an empty label. The heading of `symcsp rep` and `why`, and of the
/// stages the animator exports.
pub fn heading(
    process: &str,
    traces: &[(&str, Vec<String>)],
    symmetry: &Symmetry,
    script: &Script,
) -> Vec<(String, String)> {
    let mut out = vec![("process".to_string(), process.to_string())];
    for (label, shown) in traces {
        out.push((
            label.to_string(),
            if shown.is_empty() {
                "nothing (the initial state)".to_string()
            } else {
                shown.join(", ")
            },
        ));
    }
    out.push(("symmetry".to_string(), symmetry.origin_text(script)));
    for line in symmetry
        .describe(script)
        .into_iter()
        .chain(symmetry.left_out_lines(script))
    {
        out.push((String::new(), line));
    }
    let order = symmetry.group_order();
    let noun = if order.value() == 1u32.into() {
        "permutation (the identity: nothing to reduce)"
    } else {
        "permutations"
    };
    out.push(("group".to_string(), format!("{order} {noun}")));
    out
}

/// Whether Proposition 50's conditions held, in words.
pub fn uniqueness(x: &Explanation) -> &'static str {
    match (
        x.unique_identities,
        x.values_read,
        x.trace.splits_fully_symmetric(),
    ) {
        (true, true, true) => {
            "guaranteed (Proposition 50: unique identities, and every split was of a fully \
             symmetric cell)"
        }
        (false, _, _) => {
            "not guaranteed: a symmetric set lacks identities this state still holds \
             (Definition 46)"
        }
        (true, false, _) => {
            "not guaranteed: the state holds distinguished values in sets, maps or functions, \
             which the algorithm does not read"
        }
        (true, true, false) => {
            "not guaranteed: step 3 split a cell that is not known to be fully symmetric \
             (Definition 49)"
        }
    }
}
