//! Explanations: one state's representative with the permutation, α
//! and the algorithm's whole trace, for showing it.

use crate::lts::machine::Machine;
use crate::process::Processes;

use super::super::perm::Permutation;
use super::super::rep::Trace;
use super::SystemSymmetry;

/// Everything about one state's representative, for showing it.
#[derive(Debug, Clone)]
pub struct Explanation {
    pub state: Vec<u32>,
    pub representative: Vec<u32>,
    pub permutation: Permutation,
    /// α_π: component `i`'s state, permuted, is the representative's
    /// component `alpha[i]`.
    pub alpha: Vec<usize>,
    pub trace: Trace,
    /// Whether every symmetric set has identities the state still holds
    /// (Definition 46, read on this state).
    pub unique_identities: bool,
    /// Whether the algorithm read every distinguished value the state
    /// holds (none hidden in a set, a map or a function, whose images it
    /// does not choose by the state).
    pub values_read: bool,
}

impl Explanation {
    /// Whether Proposition 50's conditions held, so that this state's
    /// representative is the only one its symmetry class can get.
    pub fn unique_guaranteed(&self) -> bool {
        self.unique_identities && self.values_read && self.trace.splits_fully_symmetric()
    }
}

impl SystemSymmetry {
    /// The representative of `row` with the permutation, α and the whole
    /// trace of the algorithm.
    pub fn explain(
        &mut self,
        machine: &mut Machine,
        procs: &mut Processes,
        row: &[u32],
    ) -> Explanation {
        self.explain_choosing(machine, procs, row, &[])
    }

    /// [`Self::explain`] with step 3 by hand: its `k`-th split splits off
    /// component `choices[k]` (when a member of the cell it splits)
    /// instead of the cell's first member. Another choice may give
    /// another representative of the same symmetry class (Example 43).
    pub fn explain_choosing(
        &mut self,
        machine: &mut Machine,
        procs: &mut Processes,
        row: &[u32],
        choices: &[usize],
    ) -> Explanation {
        self.workspace.choose(choices);
        let explanation = self.explain_as_chosen(machine, procs, row);
        self.workspace.choose(&[]);
        explanation
    }

    fn explain_as_chosen(
        &mut self,
        machine: &mut Machine,
        procs: &mut Processes,
        row: &[u32],
    ) -> Explanation {
        let mut representative = vec![0; row.len()];
        let mut trace = Trace::default();
        let permutation = self
            .representative(machine, procs, row, &mut representative, Some(&mut trace))
            .clone();
        let alpha = self.alpha(procs, &permutation);
        let unique_identities = self.unique_identities(machine, procs, row);
        let values_read = self.reads_every_value();
        Explanation {
            state: row.to_vec(),
            representative,
            permutation,
            alpha,
            trace,
            unique_identities,
            values_read,
        }
    }
}
