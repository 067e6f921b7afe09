//! `--symmetry auto|off|T,U`, shared by the commands that take it: the
//! types added to the script as expressions, then checked (or chosen) by
//! the symmetry layer, every problem rendered for the terminal.

use crate::script::Script;
use crate::script::ir::FuncId;
use serde::Serialize;

use crate::symmetry::Symmetry;
use crate::symmetry::spec::{GroupOrder, Reduce};
use crate::symmetry::strategy::Strategy;

/// Reads `--symmetry`'s text and adds its types to `script`.
pub(super) fn requested(script: &mut Script, text: &str) -> Result<Reduce, String> {
    Reduce::requested(script, text)
}

/// What a search was reduced by, as JSON (`"symmetry"`; `null` when it
/// was not reduced).
#[derive(Serialize)]
pub(super) struct SymmetryReport {
    types: Vec<TypeReport>,
    /// A string: the order outgrows every integer type.
    group_order: String,
    /// How representatives were found (`exact`, ...), when not by FDR's
    /// algorithm.
    #[serde(skip_serializing_if = "Option::is_none")]
    strategy: Option<&'static str>,
    /// The states searched, each a representative of its class.
    representatives: u64,
    /// Between representatives (exploration only).
    #[serde(skip_serializing_if = "Option::is_none")]
    transitions: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    deadlock_states: Option<u64>,
    /// For a reduction by the system's communication structure (`types`
    /// then empty): how its group was found.
    #[serde(skip_serializing_if = "Option::is_none")]
    structure: Option<String>,
}

#[derive(Serialize)]
struct TypeReport {
    name: String,
    size: usize,
}

impl SymmetryReport {
    pub(super) fn new(
        types: &[(String, usize)],
        group_order: &GroupOrder,
        strategy: Strategy,
        representatives: u64,
    ) -> SymmetryReport {
        SymmetryReport {
            types: types
                .iter()
                .map(|(name, size)| TypeReport {
                    name: name.clone(),
                    size: *size,
                })
                .collect(),
            group_order: group_order.value().to_string(),
            strategy: (strategy != Strategy::Fdr).then_some(strategy.name()),
            representatives,
            transitions: None,
            deadlock_states: None,
            structure: None,
        }
    }

    /// The report of a reduction by a structural group (its order and how
    /// it was found), when it was one.
    pub(super) fn with_structure(self, structure: Option<&(usize, String)>) -> SymmetryReport {
        match structure {
            Some((order, how)) => SymmetryReport {
                group_order: order.to_string(),
                structure: Some(how.clone()),
                ..self
            },
            None => self,
        }
    }

    /// A reduced exploration's report.
    pub(super) fn of_exploration(
        symmetry: &Symmetry,
        x: &crate::lts::Exploration,
        strategy: Strategy,
    ) -> SymmetryReport {
        let types: Vec<(String, usize)> = symmetry
            .types()
            .iter()
            .map(|t| (t.name.clone(), t.values.len()))
            .collect();
        SymmetryReport::new(&types, &symmetry.group_order(), strategy, 0).with_exploration(x)
    }

    /// The report with an exploration's counts.
    pub(super) fn with_exploration(self, x: &crate::lts::Exploration) -> SymmetryReport {
        SymmetryReport {
            representatives: x.states,
            transitions: Some(x.transitions),
            deadlock_states: Some(x.deadlock_states),
            ..self
        }
    }
}

/// The refusal of a system that is not mappable, for the terminal: a
/// diagnostic at the process (`process`, a constant of the script), one
/// note per thing that breaks the symmetry.
pub(super) fn not_mappable(
    script: &Script,
    process: FuncId,
    symmetry: &Symmetry,
    refusal: &crate::symmetry::NotMappable,
) -> String {
    refusal
        .diagnostic(script, process, symmetry)
        .render(&script.sources)
}
