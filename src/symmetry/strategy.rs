//! Representative strategies: the ways of the literature to map a state
//! onto one state of its symmetry class, each a trade-off between work
//! per state and representatives per class. A strategy is one value the
//! system's symmetry is built with ([`super::SystemSymmetry::with_strategy`]);
//! the algorithms are in `system/strategies.rs`.

use std::fmt;

/// How a state's representative is found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum Strategy {
    /// The paper's Section 7 (FDR's): components ordered by shape and
    /// n-values, step 3 splitting off a cell's first member. Usually one
    /// representative per class, not always (Example 43).
    #[default]
    Fdr,
    /// Bošnački et al.'s *sorted* strategy: each family of components
    /// indexed by a distinguished type sorted by its non-distinguished
    /// part, and the permutation that sorting induces applied. Types
    /// that index no family are not reduced; equal parts keep their
    /// order, so a class may get several representatives.
    Sorted,
    /// Bošnački et al.'s *segmented* strategy: every permutation that
    /// sorts the families (all orders of each run of equal parts), the
    /// least image kept: one representative per class for the types that
    /// index families; exponential in the runs' lengths.
    Segmented,
    /// ProB's *permutation flooding*: no representative function; every
    /// image of a new state under the whole group is marked seen, and a
    /// state met again is mapped onto the one first stored. One state per
    /// class; the group's order in work (and memory) per new state.
    Flooding,
    /// A canonical form by individualisation–refinement: the paper's
    /// refinement, branching over every member step 3 could split off,
    /// the least image kept, pruned by automorphisms. One representative
    /// per class, always; exponential in the worst case.
    Exact,
}

impl Strategy {
    /// Whether its representatives can be found on several threads at
    /// once, reading only what is learnt: FDR's algorithm and the exact
    /// canonical form; the others enumerate, or remember what was stored.
    pub fn runs_on_threads(self) -> bool {
        matches!(self, Strategy::Fdr | Strategy::Exact)
    }

    /// Every strategy, in the order `compare` lists them.
    pub const ALL: [Strategy; 5] = [
        Strategy::Fdr,
        Strategy::Sorted,
        Strategy::Segmented,
        Strategy::Flooding,
        Strategy::Exact,
    ];

    /// Its name on the command line (`--strategy fdr`).
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Fdr => "fdr",
            Strategy::Sorted => "sorted",
            Strategy::Segmented => "segmented",
            Strategy::Flooding => "flooding",
            Strategy::Exact => "exact",
        }
    }

    /// Reads a name.
    pub fn parse(text: &str) -> Result<Strategy, String> {
        let text = text.trim();
        Strategy::ALL
            .into_iter()
            .find(|s| s.name() == text)
            .ok_or_else(|| {
                format!(
                    "there is no strategy `{text}`: the strategies are {}",
                    Strategy::ALL.map(Strategy::name).join(", ")
                )
            })
    }

    /// Reads a comma-separated list (`fdr,exact`), each once, in order.
    pub fn parse_list(text: &str) -> Result<Vec<Strategy>, String> {
        let mut out = Vec::new();
        for part in text.split(',').filter(|p| !p.trim().is_empty()) {
            let strategy = Strategy::parse(part)?;
            if !out.contains(&strategy) {
                out.push(strategy);
            }
        }
        if out.is_empty() {
            return Err("no strategy given".to_string());
        }
        Ok(out)
    }

    /// Whether it gives one representative per symmetry class, always
    /// (of the types it reduces).
    pub fn unique(self) -> bool {
        matches!(
            self,
            Strategy::Segmented | Strategy::Flooding | Strategy::Exact
        )
    }

    /// The next strategy, round to the first (the animator's key).
    pub fn next(self) -> Strategy {
        let at = Strategy::ALL
            .iter()
            .position(|&s| s == self)
            .expect("listed");
        Strategy::ALL[(at + 1) % Strategy::ALL.len()]
    }

    /// What it does, in a line.
    pub fn summary(self) -> &'static str {
        match self {
            Strategy::Fdr => {
                "the paper's algorithm (Section 7): refine by shapes and n-values, split off a cell's first member"
            }
            Strategy::Sorted => {
                "sort each family indexed by a distinguished type by its non-distinguished part"
            }
            Strategy::Segmented => "every permutation sorting the families; the least image",
            Strategy::Flooding => {
                "every image of a new state marked seen (ProB's permutation flooding)"
            }
            Strategy::Exact => {
                "the least image over every branch of step 3, pruned by automorphisms"
            }
        }
    }
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Strategy {
    type Err = String;

    fn from_str(text: &str) -> Result<Strategy, String> {
        Strategy::parse(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strategies_are_read_by_name_and_listed_once() {
        assert_eq!(Strategy::parse(" exact "), Ok(Strategy::Exact));
        assert!(
            Strategy::parse("nauty")
                .unwrap_err()
                .contains("fdr, sorted, segmented, flooding, exact")
        );
        assert_eq!(
            Strategy::parse_list("exact,fdr,exact"),
            Ok(vec![Strategy::Exact, Strategy::Fdr])
        );
        assert!(Strategy::parse_list(",").is_err());
        assert_eq!(Strategy::Exact.next(), Strategy::Fdr);
        assert!(!Strategy::Fdr.unique() && Strategy::Exact.unique());
    }
}
