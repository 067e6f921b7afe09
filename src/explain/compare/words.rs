//! A comparison put into words: the answer in a line, the evidence and
//! the cause in sentences, the two states side by side (`symcsp why`,
//! the animator's comparison).

use super::*;

/// `1` as "first", `2` as "second", …; beyond ten as "11th", "21st".
fn ordinal(n: usize) -> String {
    const WORDS: [&str; 10] = [
        "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth",
        "tenth",
    ];
    match n.checked_sub(1).and_then(|i| WORDS.get(i)) {
        Some(word) => word.to_string(),
        None => {
            let suffix = match (n % 10, n % 100) {
                (_, 11..=13) => "th",
                (1, _) => "st",
                (2, _) => "nd",
                (3, _) => "rd",
                _ => "th",
            };
            format!("{n}{suffix}")
        }
    }
}

/// The widest of `texts` in characters, at least `at_least`: the width
/// of a column of them.
pub fn widest(texts: &[String], at_least: usize) -> usize {
    texts
        .iter()
        .map(|t| t.chars().count())
        .max()
        .unwrap_or(0)
        .max(at_least)
}

impl Answer {
    /// The answer in a line.
    pub fn headline(&self) -> String {
        match self {
            Answer::Same { .. } => "same representative".to_string(),
            Answer::NotSymmetric(_) => {
                "not symmetric: no permutation maps one state onto the other".to_string()
            }
            Answer::NotUnique { .. } => {
                "symmetric, but the representative is not unique here".to_string()
            }
            Answer::Undecided { budget } => {
                let noun = if *budget == 1 {
                    "permutation"
                } else {
                    "permutations"
                };
                format!("could not decide within {budget} {noun} (partial ones included)")
            }
        }
    }
}

impl Comparison {
    /// The step (an index into both traces) at which to show the two
    /// states' partitions side by side: where the evidence or the
    /// parting is.
    pub fn step_to_show(&self) -> Option<usize> {
        match &self.answer {
            Answer::NotSymmetric(Evidence::Shapes { .. }) => Some(0),
            Answer::NotSymmetric(Evidence::NValues { step, .. }) => Some(*step),
            Answer::NotUnique { parting, .. } => *parting,
            _ => None,
        }
    }

    /// Why, in sentences (after [`Answer::headline`]); `left` and `right`
    /// are the two states' component texts.
    pub fn sentences(&self, left: &[String], right: &[String]) -> Vec<String> {
        match &self.answer {
            Answer::Same { .. } => vec![
                "the second state is the image of the first under the permutation below, and \
                 the algorithm gave both the same representative"
                    .to_string(),
            ],
            Answer::NotSymmetric(evidence) => evidence.sentences(left, right),
            Answer::NotUnique {
                cause,
                parting,
                mapping,
            } => {
                let mut out = vec![
                    "the second state is the image of the first under the permutation below, \
                     yet the algorithm gave them different representatives"
                        .to_string(),
                ];
                out.extend(self.cause_sentences(cause, mapping, *parting, left, right));
                out
            }
            Answer::Undecided { .. } => vec![
                "the search neither found a permutation mapping one state onto the other nor \
                 ruled them all out; a larger budget may decide"
                    .to_string(),
            ],
        }
    }

    /// For evidence from a round of step 2: the cell the evidence names,
    /// as it was before the round split it, each state's members sorted
    /// by n-value under the column header (the cell the sentences count
    /// in). Empty for other answers.
    pub fn n_value_lines(&self, left: &[String], right: &[String]) -> Vec<String> {
        let Answer::NotSymmetric(Evidence::NValues { step, cell, .. }) = &self.answer else {
            return Vec::new();
        };
        let (ls, rs) = (&self.left.trace.steps, &self.right.trace.steps);
        let (Some(Step::Refine { n_values: ln, .. }), Some(Step::Refine { n_values: rn, .. })) =
            (ls.get(*step), rs.get(*step))
        else {
            return Vec::new();
        };
        let before = (ls[step - 1].cells(), rs[step - 1].cells());
        let width = widest(left, "columns".len()).max(widest(right, 0));
        let mut out = Vec::new();
        if let Some(columns) = columns(before.0, &self.left_variables).get(*cell) {
            out.push(format!(
                "{:<7}  {:<width$}  {}",
                "",
                "columns",
                columns.header()
            ));
        }
        for (label, n_values, members, texts) in [
            ("state 1", ln, &before.0[*cell], left),
            ("state 2", rn, &before.1[*cell], right),
        ] {
            let mut sorted: Vec<_> = n_values
                .iter()
                .filter(|nv| members.contains(&nv.component))
                .collect();
            sorted.sort_by_key(|nv| (nv.groups.concat(), nv.component));
            for (k, nv) in sorted.iter().enumerate() {
                out.push(format!(
                    "{:<7}  {:<width$}  {nv}",
                    if k == 0 { label } else { "" },
                    texts[nv.component]
                ));
            }
        }
        out
    }

    /// Two representatives slot by slot (`left` and `right` are their
    /// component texts) under `headings`, `*` where they differ.
    pub fn representative_lines(
        left: &[String],
        right: &[String],
        headings: (&str, &str),
    ) -> Vec<String> {
        let (heading, other) = headings;
        let width = widest(left, heading.chars().count());
        let mut out = vec![format!("{:>3}  {heading:<width$}  {other}", "")];
        for (slot, (l, r)) in left.iter().zip(right).enumerate() {
            out.push(format!(
                "{:>3}{} {l:<width$}  {r}",
                slot + 1,
                if l == r { " " } else { "*" },
            ));
        }
        out
    }

    /// Why symmetric states got different representatives: a sentence
    /// or a few.
    fn cause_sentences(
        &self,
        cause: &Cause,
        mapping: &Mapping,
        parting: Option<usize>,
        left: &[String],
        right: &[String],
    ) -> Vec<String> {
        let at = parting.map(|t| {
            let split = self.left.trace.steps[..=t]
                .iter()
                .filter(|s| matches!(s, Step::Individualise { .. }))
                .count();
            format!(
                "the two runs of the algorithm part at step 3's {} split (stage {} of the algorithm's stages)",
                ordinal(split),
                t + 1
            )
        });
        match cause {
            Cause::Split {
                cell,
                left_component,
                right_component,
                fully_symmetric,
                alike_choices,
            } => {
                let (chosen, other) = (*left_component, *right_component);
                let at = at
                    .unwrap_or_else(|| "the two runs of the algorithm part at step 3".to_string());
                // One component state in both reads as one thing: say so,
                // rather than name it twice as if the two differed.
                let split_off = if left[chosen] == right[other] {
                    format!("the same component state, {}, in both states", left[chosen])
                } else {
                    format!(
                        "{} in the first state, {} in the second",
                        left[chosen], right[other]
                    )
                };
                let mut out = vec![format!(
                    "{at}: steps 1 and 2 left cell {} unsplit in both states, and step 3 split \
                     off its first member: {split_off}",
                    cell + 1,
                )];
                if let Some(&image) = mapping.alpha.get(chosen) {
                    let alike: Vec<String> = alike_choices
                        .iter()
                        .map(|&c| format!("{} (component {})", right[c], c + 1))
                        .collect();
                    let alike = match alike.split_last() {
                        None => "no member".to_string(),
                        Some((last, [])) => format!("{last} alone"),
                        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
                    };
                    let mut why = format!(
                        "the permutation maps the first state's choice to {} (component {}) \
                         in the second; of the cell's members, splitting off {alike} gives the \
                         second state the first's representative (each tried, as rep --choose \
                         does), but step 3 splits off the cell's first member, {}{}",
                        right[image],
                        image + 1,
                        right[other],
                        if right[image] == right[other] {
                            " (the same component state, related differently to the rest)"
                        } else {
                            ""
                        },
                    );
                    if let Some(witness) = tell_apart(&self.right_variables, image, other) {
                        why.push_str(&format!(
                            ", and the two are not alike — {}",
                            witness.contrast(&self.right_variables, right, image, other)
                        ));
                    }
                    out.push(why);
                }
                out.push(format!(
                    "no permutation keeping every cell maps one choice onto the other: the \
                     cell {} (Definition 49), so the choice step 3 made decided the \
                     representative",
                    match fully_symmetric {
                        Some(false) => "is not fully symmetric",
                        _ => "could not be shown fully symmetric",
                    }
                ));
                out
            }
            Cause::Identities { sets } => {
                let sets: Vec<String> = sets.iter().map(|s| subject(s, left)).collect();
                vec![format!(
                    "{}the unique-identities condition (Definition 46) is broken: {} {} no \
                     identity every component still holds, so equal component states may land \
                     in different components",
                    at.map(|a| format!("{a}; ")).unwrap_or_default(),
                    if sets.is_empty() {
                        "a symmetric set".to_string()
                    } else {
                        sets.join(" and ")
                    },
                    if sets.len() > 1 { "have" } else { "has" }
                )]
            }
            Cause::UnreadValues { components } => vec![format!(
                "{}, but {} {} distinguished values in sets, maps or functions, which the \
                 algorithm does not read, so their images were chosen arbitrarily",
                at.unwrap_or_else(|| "the traces agree at every step".to_string()),
                subject(components, left),
                if components.len() > 1 {
                    "hold"
                } else {
                    "holds"
                }
            )],
            Cause::Unknown => vec![
                "the budget ran out before the search found where the two traces part".to_string(),
            ],
        }
    }
}

impl Evidence {
    /// The evidence in sentences; `left` and `right` are the two
    /// states' component texts.
    pub fn sentences(&self, left: &[String], right: &[String]) -> Vec<String> {
        let invariant = "steps 1 and 2 treat symmetric states alike, so no permutation maps one \
                         state onto the other"
            .to_string();
        match self {
            Evidence::Shapes { left: l, right: r } => {
                let example = l
                    .first()
                    .map(|&c| &left[c])
                    .or_else(|| r.first().map(|&c| &right[c]))
                    .map_or("", String::as_str);
                let listed = |cs: &[usize], texts: &[String]| match cs.len() {
                    0 => "none".to_string(),
                    n => format!("{n} ({})", subject_list(cs, texts)),
                };
                vec![
                    format!(
                        "step 1 tells them apart: of components shaped like {example} (the same \
                         control state and other values), the first state has {}, the second {}",
                        listed(l, left),
                        listed(r, right)
                    ),
                    invariant,
                ]
            }
            Evidence::NValues {
                round,
                cell,
                left_component,
                right_component,
                left_n_value,
                right_n_value,
                column,
                relation,
                includes_itself,
                left_count,
                right_count,
                ..
            } => vec![
                format!(
                    "round {round} of step 2 tells them apart in cell {}: sorted by n-value, its \
                     components first differ at the first state's {} {left_n_value} and the \
                     second's {} {right_n_value}, first at {}",
                    cell + 1,
                    left[*left_component],
                    right[*right_component],
                    column.label()
                ),
                format!(
                    "of the first state's, {}; of the second's, {}",
                    count_phrase(column, *relation, *includes_itself, *left_count),
                    count_phrase(column, *relation, *includes_itself, *right_count)
                ),
                invariant,
            ],
            Evidence::NoPermutation { tried, after_steps } => vec![format!(
                "{}, but an exhaustive search ({tried} candidates) found no permutation that \
                 maps the first state onto the second",
                if *after_steps {
                    "steps 1 and 2 do not tell them apart"
                } else {
                    "the states hold values in sets, maps or functions, which steps 1 and 2 do \
                     not read"
                }
            )],
        }
    }
}

/// `A, B, C`.
fn subject_list(components: &[usize], texts: &[String]) -> String {
    components
        .iter()
        .map(|&c| texts[c].as_str())
        .collect::<Vec<_>>()
        .join(", ")
}
