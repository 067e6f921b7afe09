//! Assertions: refinements, property checks and their options, with
//! the property and option names the grammar admits.

use pest::iterators::{Pair, Pairs};
use thin_vec::ThinVec;

use super::super::ast::{
    AssertOption, AssertOptionKind, Assertion, AssertionKind, Expr, Ident, Model, Property,
};
use super::super::diagnostic::Diagnostic;
use super::super::parser::Rule;
use super::super::source::Span;
use super::{Builder, Result};

impl Builder {
    pub(super) fn assertion(&mut self, inner: Pairs<Rule>) -> Result<Assertion> {
        let mut negated = false;
        let mut process = None;
        let mut kind = None;
        let mut options = ThinVec::new();
        for p in inner {
            match p.as_rule() {
                Rule::assert_not => negated = true,
                Rule::expr => process = Some(self.expr(p)?),
                Rule::refinement => {
                    let mut r = p.into_inner();
                    let op = r.next().unwrap();
                    let model = Model::from_abbreviation(&op.as_str()[1..op.as_str().len() - 1])
                        .expect("the grammar admits only known models");
                    let imp = self.expr(r.next().unwrap())?;
                    let spec = process.take().expect("the specification comes first");
                    kind = Some(AssertionKind::Refinement { spec, model, imp });
                }
                Rule::property_check => {
                    let process = process.take().expect("the process comes first");
                    kind = Some(self.property_check(p, process)?);
                }
                Rule::assert_option => {
                    let option = self.assert_option(p)?;
                    check_option_not_repeated(&options, &option)?;
                    options.push(option);
                }
                other => unreachable!("not part of an assertion: {other:?}"),
            }
        }
        Ok(Assertion {
            negated,
            kind: kind.expect("an assertion has a body"),
            options,
        })
    }

    fn property_check(&mut self, pair: Pair<Rule>, process: Expr) -> Result<AssertionKind> {
        let span = self.span(&pair);
        let mut property = "";
        let mut model = None;
        let mut args = None;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::property => property = p.as_str(),
                Rule::model => {
                    let name = p.into_inner().next().expect("a model has a name");
                    model = Model::from_abbreviation(name.as_str());
                }
                Rule::property_args => args = Some(self.property_args(p)?),
                other => unreachable!("not part of a property: {other:?}"),
            }
        }
        let words: Vec<&str> = property
            .split([' ', '-'])
            .filter(|w| !w.is_empty())
            .collect();
        property_kind(&words, model, args, process, span)
    }

    fn assert_option(&mut self, pair: Pair<Rule>) -> Result<AssertOption> {
        let span = self.span(&pair);
        let mut inner = pair.into_inner().peekable();
        let name = inner.next().unwrap().as_str();
        let mode = inner
            .next_if(|p| p.as_rule() == Rule::option_mode)
            .map(|p| self.ident(p.into_inner().next().unwrap()));
        let args = inner.next().map(|p| self.property_args(p)).transpose()?;
        let words: Vec<&str> = name.split(' ').filter(|w| !w.is_empty()).collect();
        let kind = option_kind(&words, mode, args, span)?;
        Ok(AssertOption { kind, span })
    }

    fn property_args(&mut self, pair: Pair<Rule>) -> Result<ThinVec<Expr>> {
        pair.into_inner().map(|p| self.expr(p)).collect()
    }
}

/// The assertion `process :[words [model]]: args`, for the property
/// names the grammar admits (`words` as written, split at spaces and
/// hyphens); `span` is the property's, for the errors.
pub(crate) fn property_kind(
    words: &[&str],
    model: Option<Model>,
    args: Option<ThinVec<Expr>>,
    process: Expr,
    span: Span,
) -> Result<AssertionKind> {
    let simple = |property| {
        if args.is_some() {
            Err(Diagnostic::error(
                span,
                format!("`{}` takes no argument after `]:`", words.join(" ")),
            ))
        } else {
            Ok(AssertionKind::Property {
                process: process.clone(),
                property,
                model,
            })
        }
    };
    // As in FDR: a trace shows neither a deadlock nor a choice made
    // inside, so these two have no check in the traces model.
    let not_in_traces = |what: &str| {
        Err(Diagnostic::error(
            span,
            format!("{what} cannot be checked in the traces model `[T]`"),
        )
        .with_note("as in FDR, use `[F]` or `[FD]`; without a model it is `[FD]`"))
    };
    match words {
        ["deadlock", "free"] if model == Some(Model::Traces) => not_in_traces("deadlock freedom"),
        ["deterministic"] if model == Some(Model::Traces) => not_in_traces("determinism"),
        ["deadlock", "free"] => simple(Property::DeadlockFree),
        ["divergence", "free"] | ["livelock", "free"] => simple(Property::DivergenceFree),
        ["deterministic"] => simple(Property::Deterministic),
        ["has", "trace"] => match args {
            Some(mut a) if a.len() == 1 => Ok(AssertionKind::HasTrace {
                process,
                model,
                trace: a.remove(0),
            }),
            _ => Err(Diagnostic::error(
                span,
                "`:[has trace]` needs exactly one trace after it: `:[has trace]: <a, b>`",
            )),
        },
        ["symmetric"] => {
            if model.is_some() {
                return Err(Diagnostic::error(
                    span,
                    "`:[symmetric]` takes no semantic model",
                ));
            }
            match args {
                Some(types) => Ok(AssertionKind::Symmetric { process, types }),
                None => Err(Diagnostic::error(
                    span,
                    "`:[symmetric]` needs the types to check after it: `:[symmetric]: T`",
                )),
            }
        }
        _ => unreachable!("the grammar admits only known properties"),
    }
}

/// The option `:[words]: args` after an assertion, for the option names
/// the grammar admits; `span` is the option's.
pub(crate) fn option_kind(
    words: &[&str],
    mode: Option<Ident>,
    args: Option<ThinVec<Expr>>,
    span: Span,
) -> Result<AssertOptionKind> {
    if let Some(mode) = mode
        && words[0] != "partial"
    {
        return Err(Diagnostic::error(
            mode.span,
            format!("`:[{}]` takes no mode in brackets", words.join(" ")),
        ));
    }
    Ok(match (words[0], args) {
        ("tau", Some(mut a)) if a.len() == 1 => AssertOptionKind::TauPriority(a.remove(0)),
        ("tau", _) => {
            return Err(Diagnostic::error(
                span,
                "`:[tau priority over]` needs one set of events after it: `:[tau priority over]: {tock}`",
            ));
        }
        ("partial", None) => AssertOptionKind::PartialOrderReduce(mode),
        ("partial", Some(_)) => {
            return Err(Diagnostic::error(
                span,
                "`:[partial order reduce]` takes no argument",
            ));
        }
        ("symmetry", args) => AssertOptionKind::SymmetryReduce(args.unwrap_or_default()),
        _ => unreachable!("the grammar admits only known options"),
    })
}

/// Refuses an option given a second time (FDR's parser does): the two
/// would contradict each other or say the same thing twice.
pub(crate) fn check_option_not_repeated(
    earlier: &[AssertOption],
    option: &AssertOption,
) -> Result<()> {
    let same =
        |o: &AssertOption| std::mem::discriminant(&o.kind) == std::mem::discriminant(&option.kind);
    match earlier.iter().find(|o| same(o)) {
        Some(first) => Err(Diagnostic::error(
            option.span,
            format!("the option `:[{}]` is given twice", option.kind.name()),
        )
        .with_secondary(first.span, "first given here")),
        None => Ok(()),
    }
}
