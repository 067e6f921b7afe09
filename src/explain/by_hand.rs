//! Step 3 by hand: the representative algorithm run with another member
//! of a cell split off at its step-3 splits, beside its own run — what
//! each split split off both ways, the two representatives, and the
//! permutation mapping the algorithm's onto the chosen one. The two are
//! of one symmetry class (Example 43: the paper's reason why Proposition
//! 50 needs fully symmetric cells). `symcsp rep --choose` and the
//! animator's stage view both show this account.

use crate::lts::machine::Machine;
use crate::process::Processes;
use crate::script::Script;

use super::compare::Comparison;
use crate::symmetry::perm::{Permutation, permutation_lines};
use crate::symmetry::spec::Symmetry;
use crate::symmetry::system::{Explanation, SystemSymmetry};

/// One state's algorithm both ways: on its own, and with step 3 by hand.
#[derive(Debug, Clone)]
pub struct ByHand {
    /// The algorithm's own run.
    pub own: Explanation,
    /// The run with the choices made.
    pub chosen: Explanation,
    /// The chosen run's step-3 splits, each beside the algorithm's own.
    pub splits: Vec<HandSplit>,
    /// The algorithm's representative ↦ the chosen one.
    pub between: Permutation,
    /// α of `between`: component `i` of the algorithm's representative
    /// is component `alpha[i]` of the chosen one.
    pub alpha: Vec<usize>,
}

/// One step-3 split made by hand.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HandSplit {
    /// The member asked for, if one was.
    pub asked: Option<usize>,
    /// The member split off.
    pub component: usize,
    /// The algorithm's own choice at this split, if it made one.
    pub own: Option<usize>,
    /// The cell's members.
    pub members: Vec<usize>,
}

impl SystemSymmetry {
    /// The algorithm on `row` on its own and with its `k`-th step-3
    /// split splitting off `choices[k]` (see
    /// [`SystemSymmetry::explain_choosing`]).
    pub fn by_hand(
        &mut self,
        machine: &mut Machine,
        procs: &mut Processes,
        row: &[u32],
        choices: &[usize],
    ) -> ByHand {
        let own = self.explain(machine, procs, row);
        let chosen = self.explain_choosing(machine, procs, row, choices);
        let own_splits = own.trace.split_offs();
        let splits = chosen
            .trace
            .split_offs()
            .into_iter()
            .enumerate()
            .map(|(k, (component, members))| HandSplit {
                asked: choices.get(k).copied(),
                component,
                own: own_splits.get(k).map(|s| s.0),
                members: members.to_vec(),
            })
            .collect();
        let between = own.permutation.inverse().then(&chosen.permutation);
        let alpha = self.alpha(procs, &between);
        ByHand {
            own,
            chosen,
            splits,
            between,
            alpha,
        }
    }
}

impl ByHand {
    /// Whether the choices gave another representative.
    pub fn differs(&self) -> bool {
        self.own.representative != self.chosen.representative
    }

    /// A line per split: what it split off, and the algorithm's choice
    /// (`texts`: the state's components).
    pub fn split_lines(&self, texts: &[String]) -> Vec<String> {
        let named = |c: usize| format!("#{} {}", c + 1, texts[c]);
        self.splits
            .iter()
            .enumerate()
            .map(|(k, split)| {
                let HandSplit {
                    asked,
                    component,
                    own,
                    members,
                } = split;
                let own_text = own.map_or_else(
                    || "the algorithm made no such split".to_string(),
                    |c| format!("the algorithm's: {}", named(c)),
                );
                match asked {
                    Some(a) if a != component => format!(
                        "split {}: #{} is not in the cell it splits ({}), so it split off its \
                         first member, {}",
                        k + 1,
                        a + 1,
                        members
                            .iter()
                            .map(|&m| format!("#{}", m + 1))
                            .collect::<Vec<_>>()
                            .join(", "),
                        named(*component)
                    ),
                    Some(_) => format!(
                        "split {}: splits off {} ({own_text})",
                        k + 1,
                        named(*component)
                    ),
                    None => format!("split {}: its first member, {}", k + 1, named(*component)),
                }
            })
            .collect()
    }

    /// The two representatives slot by slot (`*` where they differ),
    /// then the permutation between them — or a line saying the choices
    /// gave the algorithm's own. `own` and `chosen` are the two
    /// representatives' components.
    /// Step 3 by hand as an export closes with it: each split beside
    /// the algorithm's own choice, then what came of it. `show` gives a
    /// state's components as text.
    pub fn document_lines(
        &self,
        show: impl Fn(&[u32]) -> Vec<String>,
        symmetry: &Symmetry,
        script: &Script,
    ) -> Vec<String> {
        let mut lines = self.split_lines(&show(&self.chosen.state));
        lines.push(String::new());
        lines.extend(self.outcome_lines(
            &show(&self.own.representative),
            &show(&self.chosen.representative),
            symmetry,
            script,
        ));
        lines
    }

    pub fn outcome_lines(
        &self,
        own: &[String],
        chosen: &[String],
        symmetry: &Symmetry,
        script: &Script,
    ) -> Vec<String> {
        if !self.differs() {
            return vec!["the same representative as the algorithm's own choices give".into()];
        }
        let mut lines = Comparison::representative_lines(
            own,
            chosen,
            ("the algorithm's representative", "this choice's"),
        );
        lines.push(String::new());
        lines.extend(permutation_lines(
            "permutation (the algorithm's representative ↦ this choice's): one symmetry class, \
             two representatives",
            "the identity",
            &self.between,
            &self.alpha,
            symmetry,
            script,
        ));
        lines
    }
}
