//! A relation that tells two components of one state apart: the concrete
//! reason no permutation of the state maps one onto the other.
//!
//! Steps 1 and 2 compare components by their own shapes and by how many
//! components of each cell they share a value with (the n-values). Two
//! components they leave together may still differ one step further: in
//! the paper's Example 43 the node step 3 splits off holds the same datum
//! as its successor in one state and a different one in the other. Every
//! relation here is read off the values alone — equal or not, counted
//! over the whole state, variables named as the state names them — so
//! every permutation of the state keeps it: two components on which one
//! differs are mapped onto each other by no permutation of the state (and
//! so by none that keeps the cells, Definition 49's witness).
//!
//! The relations are tried from the simplest: a component's own
//! variables equal or not; how many components hold its value in a
//! variable; and, through the components one of its variables names,
//! whether they hold what it holds (its successor's datum against its
//! own). Relations through a component's identity (its `next` naming a
//! node by its `me`) come first, as a teacher would say them.

use super::variables::ComponentVariables;
use crate::symmetry::spec::Atom;

/// A relation of one component to the state it is in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tie {
    /// Its variables `a` and `b` hold the same value (1) or not (0).
    Own { a: String, b: String },
    /// How many other components hold its `mine` in their `theirs`.
    Held { mine: String, theirs: String },
    /// Of the other components whose `theirs` is its `mine`, how many
    /// hold its `own` in their `their`.
    Through {
        mine: String,
        theirs: String,
        their: String,
        own: String,
    },
}

/// Two components of a state told apart: the relation and its value
/// (a count) for each.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Witness {
    pub tie: Tie,
    pub first: u32,
    pub second: u32,
}

/// A relation on which components `first` and `second` of the state
/// `variables` (one entry per component, in order) differ, the simplest
/// first; `None` when none of these relations tells them apart.
pub fn tell_apart(
    variables: &[ComponentVariables],
    first: usize,
    second: usize,
) -> Option<Witness> {
    let x = variables.get(first)?;
    let y = variables.get(second)?;
    ties(variables, x).into_iter().find_map(|tie| {
        let (a, b) = (measure(variables, x, &tie)?, measure(variables, y, &tie)?);
        (a != b).then_some(Witness {
            tie,
            first: a,
            second: b,
        })
    })
}

/// Every relation worth trying for `x`, in the order they are tried.
fn ties(variables: &[ComponentVariables], x: &ComponentVariables) -> Vec<Tie> {
    let own: Vec<(&str, Atom)> = x
        .variables
        .iter()
        .map(|v| (v.name.as_str(), v.value))
        .collect();
    // Every variable name of the state with its type, identities first
    // (the relations read best through them), each once.
    let mut names: Vec<(&str, usize, bool)> = Vec::new();
    for c in variables {
        for (i, v) in c.variables.iter().enumerate() {
            let entry = (v.name.as_str(), v.value.ty(), c.is_identity(i));
            if let Some(seen) = names
                .iter_mut()
                .find(|(n, ty, _)| *n == entry.0 && *ty == entry.1)
            {
                seen.2 |= entry.2;
            } else {
                names.push(entry);
            }
        }
    }
    names.sort_by_key(|&(_, _, identity)| !identity);
    let mut out = Vec::new();
    for (i, &(a, va)) in own.iter().enumerate() {
        for &(b, vb) in &own[i + 1..] {
            if va.ty() == vb.ty() {
                out.push(Tie::Own {
                    a: a.to_string(),
                    b: b.to_string(),
                });
            }
        }
    }
    for &(mine, v) in &own {
        for &(theirs, ty, _) in &names {
            if ty == v.ty() {
                out.push(Tie::Held {
                    mine: mine.to_string(),
                    theirs: theirs.to_string(),
                });
            }
        }
    }
    for &(theirs, ty, _) in &names {
        for &(mine, v) in &own {
            if v.ty() != ty {
                continue;
            }
            for &(own_name, w) in &own {
                for &(their, their_ty, _) in &names {
                    if their_ty == w.ty() && (their, own_name) != (theirs, mine) {
                        out.push(Tie::Through {
                            mine: mine.to_string(),
                            theirs: theirs.to_string(),
                            their: their.to_string(),
                            own: own_name.to_string(),
                        });
                    }
                }
            }
        }
    }
    out
}

/// The value of variable `name` of `c`, if it has one.
fn value(c: &ComponentVariables, name: &str) -> Option<Atom> {
    c.variables.iter().find(|v| v.name == name).map(|v| v.value)
}

/// The other components whose `theirs` holds `value`.
fn holding<'v>(
    variables: &'v [ComponentVariables],
    x: &ComponentVariables,
    theirs: &'v str,
    value: Atom,
) -> impl Iterator<Item = &'v ComponentVariables> {
    let me = x.component;
    variables
        .iter()
        .filter(move |z| z.component != me && self::value(z, theirs) == Some(value))
}

/// `tie`'s value for `x`; `None` when `x` lacks a variable it names.
fn measure(variables: &[ComponentVariables], x: &ComponentVariables, tie: &Tie) -> Option<u32> {
    Some(match tie {
        Tie::Own { a, b } => u32::from(value(x, a)? == value(x, b)?),
        Tie::Held { mine, theirs } => holding(variables, x, theirs, value(x, mine)?).count() as u32,
        Tie::Through {
            mine,
            theirs,
            their,
            own,
        } => {
            let kept = value(x, own)?;
            holding(variables, x, theirs, value(x, mine)?)
                .filter(|z| value(z, their) == Some(kept))
                .count() as u32
        }
    })
}

impl Witness {
    /// What the relation says of component `c` (`first` or `second`),
    /// in words: `its next is Linked(N2, B, N3), whose datum (B) is the
    /// same as its own`. `texts` are the state's component texts, to
    /// name the components a relation goes through.
    pub fn describe(
        &self,
        variables: &[ComponentVariables],
        texts: &[String],
        c: usize,
        count: u32,
    ) -> String {
        let x = &variables[c];
        let shown = |z: &ComponentVariables, name: &str| {
            z.variables
                .iter()
                .find(|v| v.name == name)
                .map_or_else(String::new, |v| v.value_name.clone())
        };
        match &self.tie {
            Tie::Own { a, b } => {
                if count == 1 {
                    format!("its {a} and its {b} are the same ({})", shown(x, a))
                } else {
                    format!(
                        "its {a} ({}) and its {b} ({}) differ",
                        shown(x, a),
                        shown(x, b)
                    )
                }
            }
            Tie::Held { mine, theirs } => {
                let noun = if count == 1 {
                    "component"
                } else {
                    "components"
                };
                format!(
                    "its {mine} ({}) is the {theirs} of {count} other {noun}",
                    shown(x, mine)
                )
            }
            Tie::Through {
                mine,
                theirs,
                their,
                own,
            } => {
                let Some(v) = value(x, mine) else {
                    return String::new();
                };
                let through: Vec<&ComponentVariables> = holding(variables, x, theirs, v).collect();
                let kept = shown(x, own);
                let same_or_not = |z: &ComponentVariables| {
                    let theirs_shown = shown(z, their);
                    let whose = if their == own {
                        "its own".to_string()
                    } else {
                        format!("its own {own} ({kept})")
                    };
                    if theirs_shown == kept {
                        format!("whose {their} ({theirs_shown}) is the same as {whose}")
                    } else if their == own {
                        format!("whose {their} ({theirs_shown}) differs from its own ({kept})")
                    } else {
                        format!("whose {their} ({theirs_shown}) differs from {whose}")
                    }
                };
                match through.as_slice() {
                    // `theirs` names `z` itself: its `mine` points at `z`.
                    [z] if z.identity.is_some_and(|i| z.variables[i].name == *theirs) => {
                        format!("its {mine} is {}, {}", texts[z.component], same_or_not(z))
                    }
                    [z] => format!(
                        "its {mine} ({}) is the {theirs} of {}, {}",
                        shown(x, mine),
                        texts[z.component],
                        same_or_not(z)
                    ),
                    many => format!(
                        "of the {} components whose {theirs} is its {mine} ({}), {count} hold its \
                         {own} ({kept}) as their {their}",
                        many.len(),
                        shown(x, mine)
                    ),
                }
            }
        }
    }

    /// Both sides in one sentence: `first` and `second` are the two
    /// components (of the one state `variables` describes).
    pub fn contrast(
        &self,
        variables: &[ComponentVariables],
        texts: &[String],
        first: usize,
        second: usize,
    ) -> String {
        format!(
            "{}: {}; {}: {}",
            texts[first],
            self.describe(variables, texts, first, self.first),
            texts[second],
            self.describe(variables, texts, second, self.second)
        )
    }
}
