//! `symcsp eval FILE [EXPR]`: evaluates EXPR in the scope of FILE and
//! prints its value in FDR's form, or, without EXPR, every `print`
//! declaration of FILE in order. Exit 0, or 2 with a diagnostic. FILE may
//! be empty (`/dev/null`) to evaluate an expression on its own.

use std::io::Write;
use std::path::Path;

use super::{EXIT_INPUT_ERROR, load, say};
use crate::eval::Evaluator;
use crate::syntax::render_all;

pub(super) fn run(file: &Path, expr: Option<&str>, out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    let Some(mut script) = load(file, err) else {
        return EXIT_INPUT_ERROR;
    };
    let targets = match expr {
        Some(text) => match script.add_expr("<expression>", text) {
            Ok(func) => vec![func],
            Err(diagnostics) => {
                say(err, &render_all(&diagnostics, &script.sources));
                return EXIT_INPUT_ERROR;
            }
        },
        None => script.prints.clone(),
    };
    let script = &script;
    let outcome = crate::stack::with_large_stack(|| {
        let evaluator = Evaluator::new(script);
        let mut lines = Vec::new();
        for func in targets {
            match evaluator.eval_constant(func) {
                Ok(value) => lines.push(evaluator.show(&value)),
                Err(e) => return (lines, Some(e.to_diagnostic())),
            }
        }
        (lines, None)
    });
    let (lines, failure) = outcome;
    for line in lines {
        say(out, &format!("{line}\n"));
    }
    match failure {
        None => 0,
        Some(diagnostic) => {
            say(err, &diagnostic.render(&script.sources));
            EXIT_INPUT_ERROR
        }
    }
}
