//! Why each step of the algorithm split what it split, as data and in
//! words a teacher can read out.
//!
//! A round of step 2 splits a cell when its components' n-values differ.
//! The new cells are told apart column by column: at the first column
//! where their n-values are not all equal they fall into groups by the
//! count there (ascending, the algorithm's order), and each group with
//! several new cells is told apart further on. A new cell's
//! [`Difference`] is the last column that set it apart and from whom:
//! `Node(N3, B, N1) split off: no component of cell 2 points at it with
//! its next (the others': 1)`. A step-3 split says whether its cell was
//! fully symmetric (Definition 49), the condition for the choice not to
//! matter.

use std::collections::BTreeMap;

use super::columns::{CellColumns, Column, columns};
use super::variables::ComponentVariables;
use super::witness::{self, Witness};
use crate::symmetry::rep::{NValue, Step, Trace};

/// What one step of the algorithm did, explained.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StepAccount {
    /// Step 1: the components by shape, into `cells` cells.
    Shapes { cells: usize },
    /// A round of step 2 (`round` from 1 after step 1 or each step 3):
    /// the columns of the n-values (per cell of the partition before
    /// the round) and every cell it split.
    Refine {
        round: usize,
        columns: Vec<CellColumns>,
        splits: Vec<CellSplit>,
    },
    /// Step 3.
    Individualise(Individualisation),
}

/// A cell that a round of step 2 split.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CellSplit {
    /// Its place in the partition before the round.
    pub cell: usize,
    pub members: Vec<usize>,
    /// The new cells it became, in order, each with why it is apart.
    pub parts: Vec<SplitPart>,
}

/// One of the new cells a split made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SplitPart {
    /// Its place in the partition after the round.
    pub cell: usize,
    pub components: Vec<usize>,
    pub difference: Difference,
}

/// The n-value entry that set a new cell apart from the rest of its old
/// cell (those not told apart from it before).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Difference {
    pub column: Column,
    /// The new cell's count in that column.
    pub count: u32,
    /// The components it was told apart from there.
    pub others: Vec<usize>,
    /// Their counts in that column, ascending, each once.
    pub other_counts: Vec<u32>,
    pub relation: Relation,
    /// Whether the count includes the component itself (its own cell,
    /// the same variable).
    pub includes_itself: bool,
}

/// How the two variables of a column are related, for phrasing it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Relation {
    /// Variable `i` is the component's identity and `k` is not the
    /// identity of cell `j`'s: the count is of components pointing at
    /// it (`next` at `me`).
    PointedAt,
    /// `k` is the identity of cell `j`'s components and `i` is not the
    /// component's: the count is of components it points at.
    PointsTo,
    /// Neither (or both): a value the two variables share (`datum`).
    Shares,
}

impl Relation {
    /// How `column`'s variables relate, for a component `subject` and a
    /// component `owner` of the cell it counts in.
    pub fn of(
        column: &Column,
        subject: &ComponentVariables,
        owner: &ComponentVariables,
    ) -> Relation {
        match (
            subject.is_identity(column.variable),
            owner.is_identity(column.cell_variable),
        ) {
            (true, false) => Relation::PointedAt,
            (false, true) => Relation::PointsTo,
            _ => Relation::Shares,
        }
    }
}

/// A split of step 3.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Individualisation {
    /// The cell split (in the partition before it) and its components.
    pub cell: usize,
    pub members: Vec<usize>,
    /// The component split off, into a cell of its own before the rest.
    pub component: usize,
    /// Whether it was chosen by hand rather than taken first.
    pub by_hand: bool,
    /// Definition 49 for the cell; `None` when it could not be decided.
    pub fully_symmetric: Option<bool>,
    /// For a cell not fully symmetric: another member no permutation of
    /// the state maps the one split off onto, and the relation on which
    /// they differ (when one of [`super::witness`]'s relations shows it).
    pub witness: Option<(usize, Witness)>,
}

/// Every step of `trace` explained, given the state's variables.
pub fn account(trace: &Trace, variables: &[ComponentVariables]) -> Vec<StepAccount> {
    let mut before: &[Vec<usize>] = &[];
    let mut round = 0;
    let mut out = Vec::with_capacity(trace.steps.len());
    for step in &trace.steps {
        let (account, after) = match step {
            Step::Shapes { cells } => {
                round = 0;
                (StepAccount::Shapes { cells: cells.len() }, cells)
            }
            Step::Refine {
                n_values, cells, ..
            } => {
                round += 1;
                let columns = columns(before, variables);
                let splits = refine_splits(before, cells, n_values, &columns, variables);
                (
                    StepAccount::Refine {
                        round,
                        columns,
                        splits,
                    },
                    cells,
                )
            }
            Step::Individualise {
                cell,
                members,
                component,
                by_hand,
                fully_symmetric,
                cells,
            } => {
                round = 0;
                let witness = (*fully_symmetric == Some(false))
                    .then(|| {
                        members.iter().filter(|&&m| m != *component).find_map(|&m| {
                            Some((m, witness::tell_apart(variables, *component, m)?))
                        })
                    })
                    .flatten();
                (
                    StepAccount::Individualise(Individualisation {
                        cell: *cell,
                        members: members.clone(),
                        component: *component,
                        by_hand: *by_hand,
                        fully_symmetric: *fully_symmetric,
                        witness,
                    }),
                    cells,
                )
            }
        };
        out.push(account);
        before = after;
    }
    out
}

/// The cells of `before` that became several cells of `after`.
fn refine_splits(
    before: &[Vec<usize>],
    after: &[Vec<usize>],
    n_values: &[NValue],
    columns: &[CellColumns],
    variables: &[ComponentVariables],
) -> Vec<CellSplit> {
    let cell_after = cell_index(after, variables.len());
    let flat = |c: usize| -> Vec<u32> {
        n_values
            .iter()
            .find(|nv| nv.component == c)
            .map(|nv| nv.groups.concat())
            .unwrap_or_default()
    };
    let mut out = Vec::new();
    for (cell, members) in before.iter().enumerate() {
        // The new cells, in order: a refinement keeps cells contiguous.
        let mut new_cells: Vec<usize> = members.iter().map(|&c| cell_after[c]).collect();
        new_cells.sort_unstable();
        new_cells.dedup();
        if new_cells.len() < 2 {
            continue;
        }
        let values: Vec<Vec<u32>> = new_cells.iter().map(|&n| flat(after[n][0])).collect();
        let mut found = vec![None; new_cells.len()];
        let all: Vec<usize> = (0..new_cells.len()).collect();
        tell_apart(&all, &values, 0, &mut found);
        let cell_columns: Vec<&Column> = columns[cell].flat().collect();
        let subject = &variables[members[0]];
        let parts = new_cells
            .iter()
            .zip(found)
            .filter_map(|(&n, found)| {
                let (at, count, siblings) = found?;
                let column = cell_columns[at].clone();
                let relation = Relation::of(&column, subject, &variables[before[column.cell][0]]);
                let mut other_counts: Vec<u32> =
                    siblings.iter().map(|&s: &usize| values[s][at]).collect();
                other_counts.sort_unstable();
                other_counts.dedup();
                let includes_itself =
                    column.cell == cell && column.cell_variable == column.variable;
                Some(SplitPart {
                    cell: n,
                    components: after[n].clone(),
                    difference: Difference {
                        count,
                        others: siblings
                            .iter()
                            .flat_map(|&s| after[new_cells[s]].iter().copied())
                            .collect(),
                        other_counts,
                        relation,
                        includes_itself,
                        column,
                    },
                })
            })
            .collect();
        out.push(CellSplit {
            cell,
            members: members.clone(),
            parts,
        });
    }
    out
}

/// Per component, its cell in `cells`.
fn cell_index(cells: &[Vec<usize>], components: usize) -> Vec<usize> {
    let mut index = vec![0; components];
    for (j, cell) in cells.iter().enumerate() {
        for &c in cell {
            index[c] = j;
        }
    }
    index
}

/// Tells the new cells `group` apart from column `from` on: at the first
/// column where their n-values (`values`) are not all equal, each with a
/// count of its own there gets `(column, count, the rest of the group)`
/// in `found`; those sharing a count are told apart further on.
type Found = Option<(usize, u32, Vec<usize>)>;

fn tell_apart(group: &[usize], values: &[Vec<u32>], from: usize, found: &mut [Found]) {
    let first = &values[group[0]];
    let Some(at) = (from..first.len()).find(|&c| group.iter().any(|&g| values[g][c] != first[c]))
    else {
        return;
    };
    let mut by_count: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    for &g in group {
        by_count.entry(values[g][at]).or_default().push(g);
    }
    for (count, same) in by_count {
        if let [only] = same[..] {
            let rest = group.iter().copied().filter(|&g| g != only).collect();
            found[only] = Some((at, count, rest));
        } else {
            tell_apart(&same, values, at + 1, found);
        }
    }
}

// ------------------------------------------------------------------ words

/// `{A, B}` or the one text.
pub fn subject(components: &[usize], texts: &[String]) -> String {
    match components {
        [one] => texts[*one].clone(),
        _ => format!(
            "{{{}}}",
            components
                .iter()
                .map(|&c| texts[c].as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// `no component`, `1 component`, `3 components`.
fn components_counted(count: u32) -> String {
    match count {
        0 => "no component".to_string(),
        1 => "1 component".to_string(),
        n => format!("{n} components"),
    }
}

/// What a count in `column` says of one component: `no component of
/// cell 2 points at it with its next`, `its next is the me of 1
/// component of cell 3`, `its datum is the datum of 2 components of cell
/// 1, itself included`.
pub fn count_phrase(
    column: &Column,
    relation: Relation,
    includes_itself: bool,
    count: u32,
) -> String {
    let c = column;
    let whom = format!("{} of cell {}", components_counted(count), c.cell + 1);
    let mut phrase = match relation {
        Relation::PointedAt => format!(
            "{whom} {} at it with {} {}",
            if count > 1 { "point" } else { "points" },
            if count > 1 { "their" } else { "its" },
            c.cell_variable_name
        ),
        Relation::PointsTo | Relation::Shares => format!(
            "its {} is the {} of {whom}",
            c.variable_name, c.cell_variable_name
        ),
    };
    if includes_itself && count > 0 {
        phrase.push_str(", itself included");
    }
    phrase
}

impl Difference {
    /// What a count in this difference's column says of a component.
    pub fn phrase(&self, count: u32) -> String {
        count_phrase(&self.column, self.relation, self.includes_itself, count)
    }

    /// The counts of the others: `the others': 1`, `Node(N1, B, N0)'s:
    /// 1`, `the others': 0 or 2`.
    pub fn others_phrase(&self, texts: &[String]) -> String {
        let whose = match &self.others[..] {
            [one] => format!("{}'s", texts[*one]),
            _ => "the others'".to_string(),
        };
        let counts: Vec<String> = self.other_counts.iter().map(u32::to_string).collect();
        let counts = match counts.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
            _ => counts.join(""),
        };
        format!("{whose}: {counts}")
    }
}

impl SplitPart {
    /// `Node(N3, B, N1) split off: no component of cell 2 points at it
    /// with its next (the others': 1)`.
    pub fn sentence(&self, texts: &[String]) -> String {
        let d = &self.difference;
        let phrase = d.phrase(d.count);
        let phrase = if self.components.len() > 1 {
            format!("for each of them, {phrase}")
        } else {
            phrase
        };
        format!(
            "{} split off: {phrase} ({})",
            subject(&self.components, texts),
            d.others_phrase(texts)
        )
    }
}

impl Individualisation {
    /// Whether the choice step 3 made can matter, and so whether this is
    /// where the representative may stop being unique.
    /// `variables` are the state's, to put the witness in words.
    pub fn sentence(&self, texts: &[String], variables: &[ComponentVariables]) -> String {
        let head = format!(
            "step 2 cannot split cell {} {}, so step 3 splits off {}, {}",
            self.cell + 1,
            subject(&self.members, texts),
            if self.by_hand {
                "the member chosen by hand"
            } else {
                "its first component"
            },
            texts[self.component]
        );
        let why = match self.fully_symmetric {
            Some(true) => {
                "the cell is fully symmetric (Definition 49): some permutation keeping every \
                 cell maps it onto each of the others, so splitting off any of them gives the \
                 same representative"
                    .to_string()
            }
            Some(false) => match &self.witness {
                Some((other, witness)) => format!(
                    "the cell is not fully symmetric (Definition 49): no permutation keeping every \
                     cell maps {} onto {}, for {}; so splitting off another member may give \
                     another representative — this is where the representative may stop being \
                     unique",
                    texts[self.component],
                    texts[*other],
                    witness.contrast(variables, texts, self.component, *other)
                ),
                None => "the cell is not fully symmetric (Definition 49): for some other member, \
                         no permutation keeping every cell maps it onto that member, so splitting \
                         off another may give another representative — this is where the \
                         representative may stop being unique"
                    .to_string(),
            },
            None => {
                "whether the cell is fully symmetric (Definition 49) could not be decided (its \
                 values hide in sets or maps, or the search was too large), so the \
                 representative may stop being unique here"
                    .to_string()
            }
        };
        format!("{head}; {why}")
    }
}
