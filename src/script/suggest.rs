//! "Did you mean": the known name closest to an unknown one, by edit
//! distance (optimal string alignment, from `strsim`), within a budget
//! of work per script.
//!
//! Each suggestion compares the unknown name with every name in scope,
//! so a script with many unknown names, or a huge one, could spend
//! minutes on suggestions alone. Names too long to be typos get none, names whose length
//! alone puts them out of reach are skipped without a comparison, and
//! once a script has spent [`Suggester::WORK`] comparison steps the rest
//! of its unknown names go without.

/// Suggestions for one script's unknown names.
pub(crate) struct Suggester {
    /// Edit-distance cells left to compute.
    work_left: usize,
}

impl Default for Suggester {
    fn default() -> Suggester {
        Suggester {
            work_left: Suggester::WORK,
        }
    }
}

impl Suggester {
    /// Cells of edit-distance tables a script may compute: well under a
    /// second.
    const WORK: usize = 50_000_000;

    /// The longest name worth a suggestion.
    const LONGEST: usize = 64;

    /// The candidate closest to `text`, if close enough to be a likely
    /// typo (within a third of its length; only case for a name of one
    /// or two letters), ties broken by name.
    ///
    /// Closeness ignores case first (`Stop` is `STOP`, `Skip` is `SKIP`,
    /// as FDR users coming from the books write them), then counts it;
    /// a swap of two neighbouring letters is one edit (`Porc` is
    /// `Proc`).
    pub fn closest<'c>(
        &mut self,
        text: &str,
        candidates: impl Iterator<Item = &'c str>,
    ) -> Option<&'c str> {
        let length = text.chars().count();
        if length > Self::LONGEST {
            return None;
        }
        // Any one- or two-letter name is an edit or two from the
        // script's others (`x` from `P`): those get only a name that
        // differs in case.
        let limit = if length <= 2 { 0 } else { (length / 3).max(1) };
        let folded = text.to_lowercase();
        let mut best: Option<((usize, usize), &str)> = None;
        for candidate in candidates {
            let other = candidate.chars().count();
            if other.abs_diff(length) > limit {
                continue;
            }
            // Two distance tables a comparison.
            let cells = 2 * length * other;
            if cells > self.work_left {
                break;
            }
            self.work_left -= cells;
            let ignoring_case = strsim::osa_distance(&folded, &candidate.to_lowercase());
            if ignoring_case > limit {
                continue;
            }
            let distance = (ignoring_case, strsim::osa_distance(text, candidate));
            if best.is_none_or(|(d, name)| (distance, candidate) < (d, name)) {
                best = Some((distance, candidate));
            }
        }
        best.map(|(_, name)| name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions_are_near_misses_only() {
        let names = ["union", "Thread"];
        let mut suggester = Suggester::default();
        assert_eq!(suggester.closest("unon", names.into_iter()), Some("union"));
        assert_eq!(
            suggester.closest("Threads", names.into_iter()),
            Some("Thread")
        );
        assert_eq!(suggester.closest("zzz", names.into_iter()), None);
    }

    #[test]
    fn case_and_swapped_letters_are_near_misses() {
        let names = ["STOP", "SKIP", "Proc", "Step", "Clock"];
        let mut suggester = Suggester::default();
        let mut closest = |text| suggester.closest(text, names.into_iter());
        // `Step` is one edit from `Stop` as written; `STOP` is none
        // once case is set aside.
        assert_eq!(closest("Stop"), Some("STOP"));
        assert_eq!(closest("skip"), Some("SKIP"));
        assert_eq!(closest("Porc"), Some("Proc"));
        assert_eq!(closest("Clok"), Some("Clock"));
        assert_eq!(closest("Qwerty"), None);
        // Short names: only a difference of case.
        let names = ["P", "Q", "ab"];
        let mut closest = |text| suggester.closest(text, names.into_iter());
        assert_eq!(closest("x"), None);
        assert_eq!(closest("p"), Some("P"));
        assert_eq!(closest("ac"), None);
        assert_eq!(closest("AB"), Some("ab"));
    }

    #[test]
    fn suggestions_cost_bounded_work() {
        let names: Vec<String> = (0..20_000).map(|i| format!("name{i}")).collect();
        let huge = "x".repeat(100_000);
        let mut suggester = Suggester::default();
        assert_eq!(
            suggester.closest(&huge, names.iter().map(String::as_str)),
            None
        );
        assert_eq!(suggester.work_left, Suggester::WORK, "no comparison made");
        // Many unknown names spend the budget, then get no suggestion.
        let mut rounds = 0;
        while suggester
            .closest("name1x", names.iter().map(String::as_str))
            .is_some()
        {
            rounds += 1;
            assert!(rounds < 1_000, "the budget ends");
        }
        assert!(rounds > 10);
    }
}
