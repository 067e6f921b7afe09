//! The arguments of `prioritisepo` and `BUFFER`, checked where the call
//! is evaluated, with FDR's errors: an order that is not a partial order
//! on the prioritised events, a maximal event below another, a buffer
//! with no room or an event it could not tell apart.

use rustc_hash::{FxHashMap, FxHashSet};

use super::Args;
use crate::eval::{EvalError, EvalResult, Value};

impl Args<'_, '_> {
    /// `prioritisepo(P, A, order, maximal)`: every event of the order
    /// and of `maximal` is in `A`, the order has no cycle, and no pair
    /// puts an event above one of `maximal` (FDR's three errors, in
    /// FDR's order).
    pub(super) fn priority_order(&self) -> EvalResult<()> {
        let prioritised: FxHashSet<&Value> = self.finite(1)?.iter().collect();
        let maximal = self.finite(3)?;
        let mut pairs = Vec::new();
        for pair in self.finite(2)? {
            pairs.push(self.pair(2, pair)?);
        }
        let mut missing: Vec<&Value> = pairs
            .iter()
            .flat_map(|(a, b)| [a, b])
            .chain(maximal)
            .filter(|e| !prioritised.contains(e))
            .collect();
        missing.sort_unstable();
        missing.dedup();
        if !missing.is_empty() {
            return Err(EvalError::new(
                self.span,
                format!(
                    "the events {} appear in the order or among the maximal events of \
                     `prioritisepo`, but are not in its set of prioritised events",
                    self.list(missing)
                ),
            )
            .with_note(format!(
                "the prioritised events (the second argument) are {}",
                self.list(self.finite(1)?.iter().collect())
            )));
        }
        if let Some(cycle) = cycle(&pairs) {
            return Err(EvalError::new(
                self.span,
                format!(
                    "the order given to `prioritisepo` has a cycle: {}",
                    self.cycle_pairs(&cycle)
                ),
            )
            .with_note(
                "a pair (x, y) gives x priority over y: the pairs must form a partial order",
            ));
        }
        if let Some((above, below)) = pairs.iter().find(|(_, b)| maximal.contains(b)) {
            return Err(EvalError::new(
                self.span,
                format!(
                    "the event {} is declared maximal in `prioritisepo`, but is not maximal \
                     in the order",
                    self.ev.show(below)
                ),
            )
            .with_note(format!(
                "the pair ({}, {}) gives {} priority over it",
                self.ev.show(above),
                self.ev.show(below),
                self.ev.show(above)
            )));
        }
        Ok(())
    }

    /// `BUFFER(N, ins_outs)`: a capacity of at least one, and each event
    /// at most once among the inputs and outputs (else the buffer could
    /// not tell which pair an event belongs to).
    pub(super) fn buffer_links(&self) -> EvalResult<()> {
        let capacity = match &self.values[0] {
            Value::Int(n) => *n,
            other => return Err(self.wrong(0, "an integer", other)),
        };
        if capacity < 1 {
            return Err(EvalError::new(
                self.span,
                format!(
                    "the capacity {capacity} given to `BUFFER` is too small: it must be at least 1"
                ),
            ));
        }
        let mut seen = FxHashSet::default();
        for pair in self.finite(1)? {
            let (input, output) = self.pair(1, pair)?;
            for event in [input, output] {
                if !seen.insert(event.clone()) {
                    return Err(EvalError::new(
                        self.span,
                        format!(
                            "the event {} is named more than once in the pairs given to `BUFFER`",
                            self.ev.show(&event)
                        ),
                    )
                    .with_note(
                        "each event may be an input or an output of one pair only, so that \
                         the buffer knows what each input owes",
                    ));
                }
            }
        }
        Ok(())
    }

    /// A cycle as the pairs that make it: `(a, b), (b, a)`.
    fn cycle_pairs(&self, cycle: &[&Value]) -> String {
        let next = cycle.iter().cycle().skip(1);
        let pairs: Vec<String> = cycle
            .iter()
            .zip(next)
            .map(|(a, b)| format!("({}, {})", self.ev.show(a), self.ev.show(b)))
            .collect();
        pairs.join(", ")
    }

    /// Values as FDR lists them: `{a, b, c}`.
    fn list(&self, values: Vec<&Value>) -> String {
        let shown: Vec<String> = values.iter().map(|v| self.ev.show(v)).collect();
        format!("{{{}}}", shown.join(", "))
    }
}

/// The events of a cycle of the order, if it has one (each pair an
/// edge from the first event to the second), in the cycle's order.
fn cycle(pairs: &[(Value, Value)]) -> Option<Vec<&Value>> {
    let mut below: FxHashMap<&Value, Vec<&Value>> = FxHashMap::default();
    for (a, b) in pairs {
        below.entry(a).or_default().push(b);
    }
    // Depth first, iteratively: 0 unvisited, 1 on the path, 2 done.
    let mut mark: FxHashMap<&Value, u8> = FxHashMap::default();
    let mut roots: Vec<&Value> = below.keys().copied().collect();
    roots.sort_unstable();
    for root in roots {
        if mark.get(root).copied().unwrap_or(0) != 0 {
            continue;
        }
        let mut path: Vec<(&Value, usize)> = vec![(root, 0)];
        mark.insert(root, 1);
        while let Some(&mut (node, ref mut next)) = path.last_mut() {
            let successors = below.get(node).map_or(&[][..], Vec::as_slice);
            if let Some(&succ) = successors.get(*next) {
                *next += 1;
                match mark.get(succ).copied().unwrap_or(0) {
                    0 => {
                        mark.insert(succ, 1);
                        path.push((succ, 0));
                    }
                    1 => {
                        let start = path
                            .iter()
                            .position(|&(n, _)| n == succ)
                            .expect("on the path");
                        return Some(path[start..].iter().map(|&(n, _)| n).collect());
                    }
                    _ => {}
                }
            } else {
                mark.insert(node, 2);
                path.pop();
            }
        }
    }
    None
}
