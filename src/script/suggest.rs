//! "Did you mean": the known name closest to an unknown one, by edit
//! distance, within a budget of work per script.
//!
//! Each suggestion compares the unknown name with every name in scope,
//! so a script with many unknown names, or a huge one, could spend
//! minutes on suggestions alone (20 000 names and a 100 KB identifier
//! took 10 s). Names too long to be typos get none, names whose length
//! alone puts them out of reach are skipped without a comparison, and
//! once a script has spent [`Suggester::WORK`] comparison steps the rest
//! of its unknown names go without.

/// Suggestions for one script's unknown names.
pub(super) struct Suggester {
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
    /// typo (within a third of its length), ties broken by name.
    pub fn closest<'c>(
        &mut self,
        text: &str,
        candidates: impl Iterator<Item = &'c str>,
    ) -> Option<&'c str> {
        let length = text.chars().count();
        if length > Self::LONGEST {
            return None;
        }
        let limit = (length / 3).max(1);
        let mut best: Option<(usize, &str)> = None;
        for candidate in candidates {
            let other = candidate.chars().count();
            if other.abs_diff(length) > limit {
                continue;
            }
            let cells = length * other;
            if cells > self.work_left {
                break;
            }
            self.work_left -= cells;
            let distance = edit_distance(text, candidate);
            let better = best.is_none_or(|(d, name)| (distance, candidate) < (d, name));
            if distance <= limit && better {
                best = Some((distance, candidate));
            }
        }
        best.map(|(_, name)| name)
    }
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut previous = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let substitution = previous + usize::from(ca != cb);
            previous = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    row[b.len()]
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
