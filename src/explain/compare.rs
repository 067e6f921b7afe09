//! Why did two states get different representatives?
//!
//! [`SystemSymmetry::compare`] takes two states of one machine and
//! answers with one of:
//!
//! - **the same representative** (and a permutation that maps the first
//!   state onto the second);
//! - **not symmetric**, with the first evidence. Steps 1 and 2 of the
//!   algorithm treat symmetric states alike — if `π` maps one state onto
//!   the other, it maps each cell of one onto the same cell of the other
//!   and keeps every n-value — so a difference there proves that no
//!   permutation maps one onto the other: their step-1 cells differ
//!   (shapes or counts), or at a round of step 2 a cell's multiset of
//!   n-values differs. When steps 1–2 agree, an exhaustive search found
//!   no permutation;
//! - **symmetric, but the representative is not unique here**: the
//!   permutation the search found, and the cause — the split of step 3
//!   where the two traces part, of a cell that was not fully symmetric
//!   (Definition 49), or the unique-identities condition broken
//!   (Definition 46), or values the algorithm does not read;
//! - **undecided** when the search's allowance ran out (never a hang).
//!
//! The search ([`crate::symmetry::matching`]) pairs components within
//! corresponding cells of the partitions steps 1–2 built, under one
//! consistent map of values; it then tries the ways to complete that
//! map on the values it leaves open that can matter (values hidden in
//! sets, the identities by which α places components), and accepts a
//! permutation only when applying it to the first state
//! ([`SystemSymmetry::apply`]) gives exactly the second: so it is exact
//! for states that are not exact too. Where the traces part is found the
//! same way: the first step-3 split after which no permutation maps one
//! state onto the other while mapping each cell onto its counterpart.

use rustc_hash::FxHashMap;

use crate::lts::machine::Machine;
use crate::process::Processes;

use super::columns::{Column, columns};
use super::splits::{Relation, count_phrase, subject};
use super::variables::ComponentVariables;
use super::witness::tell_apart;
use crate::symmetry::matching::{Allowance, MatchOutcome, Matcher, Side};
use crate::symmetry::perm::Permutation;
use crate::symmetry::rep::{NValue, OwnedInput, Step, Trace};
use crate::symmetry::spec::Atom;
use crate::symmetry::system::{Explanation, SystemSymmetry};

/// How many candidates a comparison may try by default (partners tried
/// while pairing components, and whole permutations checked).
pub const DEFAULT_CANDIDATES: u64 = 1_000_000;

/// Two states compared: both explained, and the answer.
#[derive(Debug, Clone)]
pub struct Comparison {
    /// The first state's representative, permutation and trace.
    pub left: Explanation,
    pub right: Explanation,
    pub left_variables: Vec<ComponentVariables>,
    pub right_variables: Vec<ComponentVariables>,
    pub answer: Answer,
    /// Candidates the searches tried.
    pub spent: u64,
}

/// What a comparison found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// Both states have the same representative.
    Same { mapping: Mapping },
    /// No permutation maps one state onto the other.
    NotSymmetric(Evidence),
    /// A permutation maps one onto the other, yet the algorithm gave
    /// them different representatives.
    NotUnique {
        mapping: Mapping,
        cause: Cause,
        /// The step (an index into both traces) where the traces part:
        /// a step-3 split after which no permutation maps the first
        /// state onto the second keeping the partitions; `None` when
        /// they never part (or where was not found within the budget).
        parting: Option<usize>,
    },
    /// The search tried its whole allowance without deciding.
    Undecided { budget: u64 },
}

/// A permutation that maps the first state onto the second.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mapping {
    pub permutation: Permutation,
    /// α: the first state's component `i`, permuted, is the second
    /// state's component `alpha[i]`.
    pub alpha: Vec<usize>,
}

/// Why two states are not symmetric.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Evidence {
    /// Step 1: the components of the first shape (in step 1's order)
    /// whose count differs, in each state (one list may be empty).
    Shapes { left: Vec<usize>, right: Vec<usize> },
    /// A round of step 2 (trace step `step`, round `round`): the cell
    /// `cell` of the partition before it holds different multisets of
    /// n-values. Sorted by n-value, the cells first differ at
    /// `left_component` and `right_component`, first at `column`.
    NValues {
        step: usize,
        round: usize,
        cell: usize,
        left_component: usize,
        right_component: usize,
        left_n_value: NValue,
        right_n_value: NValue,
        column: Column,
        relation: Relation,
        includes_itself: bool,
        left_count: u32,
        right_count: u32,
    },
    /// The exhaustive search found no permutation, after steps 1–2
    /// agreed (`after_steps`) or, for states with values the algorithm
    /// does not read, without them.
    NoPermutation { tried: u64, after_steps: bool },
}

/// Why symmetric states got different representatives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cause {
    /// Step 3 split cell `cell` of a partition the two states share (up
    /// to a permutation): the first state split off `left_component`,
    /// the second `right_component`, and no permutation relates the
    /// partitions after. The cell was not fully symmetric (Definition
    /// 49; `None`: not decided), so the choice decided the
    /// representative.
    Split {
        cell: usize,
        left_component: usize,
        right_component: usize,
        fully_symmetric: Option<bool>,
        /// The members of the cell in the second state whose splitting
        /// off at that split (the algorithm's own choices before and
        /// after it) gives the second state the first's representative:
        /// each tried, as `rep --choose` would.
        alike_choices: Vec<usize>,
    },
    /// Definition 46 is broken: these symmetric sets have no identity
    /// each component still holds, so equal component states can land in
    /// different components.
    Identities { sets: Vec<Vec<usize>> },
    /// The traces agree throughout, but these components hold
    /// distinguished values in sets, maps or functions, which the
    /// algorithm does not read: their images are chosen arbitrarily.
    UnreadValues { components: Vec<usize> },
    /// The allowance ran out before the search found where the traces
    /// part.
    Unknown,
}

impl SystemSymmetry {
    /// Compares states `left` and `right` of `machine`, trying at most
    /// `budget` candidates (see [`DEFAULT_CANDIDATES`]).
    pub fn compare(
        &mut self,
        machine: &mut Machine,
        procs: &mut Processes,
        left: &[u32],
        right: &[u32],
        budget: u64,
    ) -> Comparison {
        let left_x = self.explain(machine, procs, left);
        let right_x = self.explain(machine, procs, right);
        let left_variables = self.variables(machine, procs, left);
        let right_variables = self.variables(machine, procs, right);
        let inputs = self.read_inputs(machine, procs, &[left, right]);
        let relevant = self.values_that_matter(machine, procs, left);
        let allowance = Allowance::new(budget);
        let mut search = PermutationSearch {
            system: self,
            machine,
            procs,
            left,
            right,
            relevant,
            allowance: &allowance,
        };
        let answer = if left_x.representative == right_x.representative {
            let permutation = left_x.permutation.then(&right_x.permutation.inverse());
            Answer::Same {
                mapping: search.mapping(permutation),
            }
        } else {
            decide(
                &mut search,
                &left_x,
                &right_x,
                &left_variables,
                &right_variables,
                &inputs,
                budget,
            )
        };
        Comparison {
            left: left_x,
            right: right_x,
            left_variables,
            right_variables,
            answer,
            spent: allowance.spent(),
        }
    }
}

/// The answer for two states with different representatives.
fn decide(
    search: &mut PermutationSearch,
    left: &Explanation,
    right: &Explanation,
    left_variables: &[ComponentVariables],
    right_variables: &[ComponentVariables],
    inputs: &[OwnedInput],
    budget: u64,
) -> Answer {
    let (li, ri) = (&inputs[0], &inputs[1]);
    // Steps 1–2 are symmetry-invariant for exact states only: the shape
    // of a state with values in a map keeps one of the entries whose
    // keys it merges, and which one depends on the values.
    let exact = li.exact.iter().chain(&ri.exact).all(|&e| e);
    let (agreed, cells) = if exact {
        match steps_one_and_two(&left.trace, &right.trace, li, ri, left_variables) {
            Err(evidence) => return Answer::NotSymmetric(*evidence),
            Ok(agreed) => (
                Some(agreed),
                (
                    left.trace.steps[agreed].cells().to_vec(),
                    right.trace.steps[agreed].cells().to_vec(),
                ),
            ),
        }
    } else {
        let cells = invariant_cells(li, ri, search.system.orbits());
        // The shapes of exact components no permutation changes: counts
        // of a shape that differ are evidence enough, as step 1's are
        // for exact states.
        let exact_cell = |cell: &[usize], input: &OwnedInput| cell.iter().all(|&c| input.exact[c]);
        let differing = cells
            .0
            .iter()
            .zip(&cells.1)
            .find(|(l, r)| l.len() != r.len());
        if let Some((l, r)) = differing
            && exact_cell(l, li)
            && exact_cell(r, ri)
        {
            return Answer::NotSymmetric(Evidence::Shapes {
                left: l.clone(),
                right: r.clone(),
            });
        }
        (None, cells)
    };
    let permutation = match search.find((li, &cells.0), (ri, &cells.1)) {
        (MatchOutcome::Found, Some(permutation)) => permutation,
        (MatchOutcome::OutOfBudget, _) => return Answer::Undecided { budget },
        _ => {
            return Answer::NotSymmetric(Evidence::NoPermutation {
                tried: search.allowance.spent(),
                after_steps: agreed.is_some(),
            });
        }
    };
    let Some(agreed) = agreed else {
        // States that are not exact: even step 1 may order them apart.
        return Answer::NotUnique {
            mapping: search.mapping(permutation),
            cause: Cause::UnreadValues {
                components: not_exact(inputs),
            },
            parting: None,
        };
    };
    let mapping = search.mapping(permutation);
    // The first split of step 3 after which no permutation keeps the
    // partitions related.
    let mut parting = None;
    let mut unknown = false;
    for (t, step) in left.trace.steps.iter().enumerate().skip(agreed + 1) {
        if !matches!(step, Step::Individualise { .. }) {
            continue;
        }
        if !matches!(right.trace.steps.get(t), Some(Step::Individualise { .. })) {
            parting = Some(t);
            break;
        }
        match search.find(
            (li, left.trace.steps[t].cells()),
            (ri, right.trace.steps[t].cells()),
        ) {
            (MatchOutcome::Found, _) => {}
            (MatchOutcome::Exhausted, _) => {
                parting = Some(t);
                break;
            }
            (MatchOutcome::OutOfBudget, _) => {
                unknown = true;
                break;
            }
        }
    }
    let mut cause = if unknown {
        Cause::Unknown
    } else {
        cause(
            (left, right),
            parting,
            (left_variables, right_variables),
            inputs,
            search.system.orbits(),
        )
    };
    if let (Cause::Split { alike_choices, .. }, Some(t)) = (&mut cause, parting) {
        *alike_choices = search.choices_giving(right, t, &left.representative);
    }
    Answer::NotUnique {
        mapping,
        cause,
        parting,
    }
}

/// Why the representatives differ, once the traces' parting is known.
fn cause(
    (left, right): (&Explanation, &Explanation),
    parting: Option<usize>,
    (left_variables, right_variables): (&[ComponentVariables], &[ComponentVariables]),
    inputs: &[OwnedInput],
    orbits: &[Vec<usize>],
) -> Cause {
    let split = |trace: &Trace, t: usize| match trace.steps.get(t) {
        Some(Step::Individualise {
            cell,
            component,
            fully_symmetric,
            ..
        }) => Some((*cell, *component, *fully_symmetric)),
        _ => None,
    };
    if let Some(t) = parting
        && let (Some((cell, a, l)), Some((_, b, r))) =
            (split(&left.trace, t), split(&right.trace, t))
        && (l != Some(true) || r != Some(true))
    {
        return Cause::Split {
            cell,
            left_component: a,
            right_component: b,
            fully_symmetric: if l == Some(false) || r == Some(false) {
                Some(false)
            } else {
                None
            },
            alike_choices: Vec::new(),
        };
    }
    if !(left.unique_identities && right.unique_identities) {
        let lacking = |c: usize| {
            left_variables[c].identity.is_none() || right_variables[c].identity.is_none()
        };
        let sets = orbits
            .iter()
            .filter(|set| set.len() > 1 && set.iter().any(|&c| lacking(c)))
            .cloned()
            .collect();
        return Cause::Identities { sets };
    }
    Cause::UnreadValues {
        components: not_exact(inputs),
    }
}

/// The components that are not exact in one of the states.
fn not_exact(inputs: &[OwnedInput]) -> Vec<usize> {
    let (left, right) = (&inputs[0].exact, &inputs[1].exact);
    (0..left.len()).filter(|&c| !left[c] || !right[c]).collect()
}

/// Partitions of two states that any permutation mapping one onto the
/// other respects, whatever their values in sets and maps: components by
/// symmetric set (α never leaves one), by whether they are exact, and
/// exact ones by shape. Corresponding cells have the same place (a cell
/// may be empty on one side).
fn invariant_cells(
    left: &OwnedInput,
    right: &OwnedInput,
    orbits: &[Vec<usize>],
) -> (Vec<Vec<usize>>, Vec<Vec<usize>>) {
    let mut orbit_of = vec![0; left.exact.len()];
    for (o, members) in orbits.iter().enumerate() {
        for &c in members {
            orbit_of[c] = o;
        }
    }
    let key = |input: &OwnedInput, c: usize| {
        let exact = input.exact[c];
        (orbit_of[c], !exact, if exact { input.ranks[c] } else { 0 })
    };
    let mut keys: Vec<_> = (0..left.exact.len())
        .flat_map(|c| [key(left, c), key(right, c)])
        .collect();
    keys.sort_unstable();
    keys.dedup();
    let cells = |input: &OwnedInput| -> Vec<Vec<usize>> {
        keys.iter()
            .map(|k| {
                (0..input.exact.len())
                    .filter(|&c| key(input, c) == *k)
                    .collect()
            })
            .collect()
    };
    (cells(left), cells(right))
}

/// Steps 1–2 of both traces side by side, up to the first step 3: the
/// first difference, or the index of the last step they agree on (the
/// partition the search starts from).
fn steps_one_and_two(
    left: &Trace,
    right: &Trace,
    li: &OwnedInput,
    ri: &OwnedInput,
    variables: &[ComponentVariables],
) -> Result<usize, Box<Evidence>> {
    let (Some(Step::Shapes { cells: lc }), Some(Step::Shapes { cells: rc })) =
        (left.steps.first(), right.steps.first())
    else {
        return Ok(0);
    };
    if let Some(evidence) = shapes_differ(lc, rc, li, ri) {
        return Err(Box::new(evidence));
    }
    let mut agreed = 0;
    for t in 1..left.steps.len().min(right.steps.len()) {
        let (
            Step::Refine {
                n_values: ln,
                cells: la,
                ..
            },
            Step::Refine {
                n_values: rn,
                cells: ra,
                ..
            },
        ) = (&left.steps[t], &right.steps[t])
        else {
            break;
        };
        let before = (left.steps[t - 1].cells(), right.steps[t - 1].cells());
        if let Some(evidence) = n_values_differ(t, before, (ln, rn), variables) {
            return Err(Box::new(evidence));
        }
        // Equal multisets of n-values split alike; anything else would
        // leave the partitions incomparable, so stop there.
        let sizes = |cells: &[Vec<usize>]| cells.iter().map(Vec::len).collect::<Vec<_>>();
        if sizes(la) != sizes(ra) {
            break;
        }
        agreed = t;
    }
    Ok(agreed)
}

/// The first step-1 cell (by shape rank) whose shape or size differs.
fn shapes_differ(
    left: &[Vec<usize>],
    right: &[Vec<usize>],
    li: &OwnedInput,
    ri: &OwnedInput,
) -> Option<Evidence> {
    let key = |cells: &[Vec<usize>], input: &OwnedInput, j: usize| {
        cells.get(j).map(|c| (input.ranks[c[0]], c.len()))
    };
    let of_rank = |cells: &[Vec<usize>], input: &OwnedInput, rank: u32| {
        cells
            .iter()
            .find(|c| input.ranks[c[0]] == rank)
            .cloned()
            .unwrap_or_default()
    };
    (0..left.len().max(right.len())).find_map(|j| {
        let (a, b) = (key(left, li, j), key(right, ri, j));
        if a == b {
            return None;
        }
        let rank = match (a, b) {
            (Some((x, _)), Some((y, _))) => x.min(y),
            (Some((x, _)), None) | (None, Some((x, _))) => x,
            (None, None) => return None,
        };
        Some(Evidence::Shapes {
            left: of_rank(left, li, rank),
            right: of_rank(right, ri, rank),
        })
    })
}

/// A round of step 2 on both states: the first cell (of the partitions
/// before it) whose multisets of n-values differ.
fn n_values_differ(
    step: usize,
    (left_cells, right_cells): (&[Vec<usize>], &[Vec<usize>]),
    (left, right): (&[NValue], &[NValue]),
    variables: &[ComponentVariables],
) -> Option<Evidence> {
    fn sorted<'n>(cell: &[usize], n_values: &'n [NValue]) -> Vec<(Vec<u32>, &'n NValue)> {
        let mut values: Vec<(Vec<u32>, &NValue)> = n_values
            .iter()
            .filter(|nv| cell.contains(&nv.component))
            .map(|nv| (nv.groups.concat(), nv))
            .collect();
        values.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.component.cmp(&b.1.component)));
        values
    }
    for (cell, (lc, rc)) in left_cells.iter().zip(right_cells).enumerate() {
        let (l, r) = (sorted(lc, left), sorted(rc, right));
        let Some(p) = (0..l.len().min(r.len())).find(|&p| l[p].0 != r[p].0) else {
            continue;
        };
        let (lv, rv) = (&l[p], &r[p]);
        let at = (0..lv.0.len().min(rv.0.len())).find(|&k| lv.0[k] != rv.0[k])?;
        let column = columns(left_cells, variables)[cell].flat().nth(at)?.clone();
        let relation = Relation::of(
            &column,
            &variables[lv.1.component],
            &variables[left_cells[column.cell][0]],
        );
        return Some(Evidence::NValues {
            step,
            round: step,
            cell,
            left_component: lv.1.component,
            right_component: rv.1.component,
            left_n_value: lv.1.clone(),
            right_n_value: rv.1.clone(),
            includes_itself: column.cell == cell && column.cell_variable == column.variable,
            relation,
            left_count: lv.0[at],
            right_count: rv.0[at],
            column,
        });
    }
    None
}

/// The exact search for a permutation mapping `left` onto `right`.
struct PermutationSearch<'s, 'p> {
    system: &'s mut SystemSymmetry,
    machine: &'s mut Machine,
    procs: &'s mut Processes<'p>,
    left: &'s [u32],
    right: &'s [u32],
    /// The values of `left` whose images can change `π(left)`.
    relevant: Vec<Atom>,
    allowance: &'s Allowance,
}

impl PermutationSearch<'_, '_> {
    /// The members of the cell the second state's step 3 splits at trace
    /// step `t` whose splitting off there (the algorithm's own choices
    /// at the splits before, and after) gives the second state the
    /// representative `wanted`.
    fn choices_giving(&mut self, right: &Explanation, t: usize, wanted: &[u32]) -> Vec<usize> {
        let splits = right.trace.split_offs();
        let k = right.trace.steps[..t]
            .iter()
            .filter(|s| matches!(s, Step::Individualise { .. }))
            .count();
        let Some((_, members)) = splits.get(k) else {
            return Vec::new();
        };
        let before: Vec<usize> = splits[..k].iter().map(|&(c, _)| c).collect();
        let mut alike: Vec<usize> = members
            .iter()
            .copied()
            .filter(|&member| {
                let choices: Vec<usize> = before.iter().copied().chain([member]).collect();
                let x =
                    self.system
                        .explain_choosing(self.machine, self.procs, self.right, &choices);
                x.representative == wanted
            })
            .collect();
        alike.sort_unstable();
        alike
    }

    fn mapping(&mut self, permutation: Permutation) -> Mapping {
        let alpha = self.system.alpha(self.procs, &permutation);
        Mapping { permutation, alpha }
    }

    /// A permutation that maps `left` onto `right` and each cell of the
    /// left partition onto the same cell of the right one.
    fn find(
        &mut self,
        (li, lc): (&OwnedInput, &[Vec<usize>]),
        (ri, rc): (&OwnedInput, &[Vec<usize>]),
    ) -> (MatchOutcome, Option<Permutation>) {
        let (left_input, right_input) = (li.input(), ri.input());
        let allowance = self.allowance;
        let mut matcher = Matcher::new(
            Side {
                input: &left_input,
                cells: lc,
            },
            Side {
                input: &right_input,
                cells: rc,
            },
            allowance,
        );
        let mut found = None;
        let type_sizes = li.type_sizes.clone();
        let outcome =
            matcher.search(&mut |m| self.complete(m.values(), &type_sizes, (lc, rc), &mut found));
        (outcome, found)
    }

    /// Tries every completion of `partial` on the values that matter,
    /// each a candidate checked by applying it.
    fn complete(
        &mut self,
        partial: &FxHashMap<Atom, Atom>,
        type_sizes: &[usize],
        cells: (&[Vec<usize>], &[Vec<usize>]),
        found: &mut Option<Permutation>,
    ) -> MatchOutcome {
        let open: Vec<Atom> = self
            .relevant
            .iter()
            .copied()
            .filter(|a| !partial.contains_key(a))
            .collect();
        let mut images: Vec<Vec<Option<u16>>> = type_sizes.iter().map(|&n| vec![None; n]).collect();
        let mut used: Vec<Vec<bool>> = type_sizes.iter().map(|&n| vec![false; n]).collect();
        for (x, y) in partial {
            images[x.ty()][x.index()] = Some(y.index() as u16);
            used[y.ty()][y.index()] = true;
        }
        // Injective choices for the open values, odometer style (no
        // recursion: there may be many).
        let mut next = vec![0usize; open.len()];
        let mut level = 0;
        loop {
            if level == open.len() {
                if !self.allowance.take() {
                    return MatchOutcome::OutOfBudget;
                }
                let candidate = fill(&images, &used);
                if self.maps(&candidate, cells) {
                    *found = Some(candidate);
                    return MatchOutcome::Found;
                }
                if level == 0 {
                    return MatchOutcome::Exhausted;
                }
                level -= 1;
                unassign(open[level], &mut images, &mut used);
                continue;
            }
            let a = open[level];
            let t = a.ty();
            match (next[level]..type_sizes[t]).find(|&y| !used[t][y]) {
                Some(y) => {
                    images[t][a.index()] = Some(y as u16);
                    used[t][y] = true;
                    next[level] = y + 1;
                    level += 1;
                    if level < open.len() {
                        next[level] = 0;
                    }
                }
                None => {
                    next[level] = 0;
                    if level == 0 {
                        return MatchOutcome::Exhausted;
                    }
                    level -= 1;
                    unassign(open[level], &mut images, &mut used);
                }
            }
        }
    }

    /// Whether `perm` maps `left` onto `right`, each cell of the left
    /// partition onto the same cell of the right.
    fn maps(&mut self, perm: &Permutation, (lc, rc): (&[Vec<usize>], &[Vec<usize>])) -> bool {
        let mut image = vec![0; self.left.len()];
        self.system
            .apply(self.machine, self.procs, perm, self.left, &mut image);
        if image != self.right {
            return false;
        }
        let alpha = self.system.alpha(self.procs, perm);
        let mut right_cell = vec![usize::MAX; self.right.len()];
        for (j, cell) in rc.iter().enumerate() {
            for &c in cell {
                right_cell[c] = j;
            }
        }
        lc.iter()
            .enumerate()
            .all(|(j, cell)| cell.iter().all(|&c| right_cell[alpha[c]] == j))
    }
}

/// Undoes the image chosen for `a`.
fn unassign(a: Atom, images: &mut [Vec<Option<u16>>], used: &mut [Vec<bool>]) {
    if let Some(y) = images[a.ty()][a.index()].take() {
        used[a.ty()][y as usize] = false;
    }
}

/// The permutation `images` describes, each value without an image sent
/// to the least image left (those values cannot matter).
fn fill(images: &[Vec<Option<u16>>], used: &[Vec<bool>]) -> Permutation {
    Permutation::from_images(
        images
            .iter()
            .zip(used)
            .map(|(images, used)| {
                let mut free = (0..used.len()).filter(|&y| !used[y]);
                images
                    .iter()
                    .map(|image| image.unwrap_or_else(|| free.next().expect("as many") as u16))
                    .collect()
            })
            .collect(),
    )
}

mod words;

pub use words::widest;

#[cfg(test)]
mod tests;
