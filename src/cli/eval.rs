//! `symcsp eval FILE [EXPR]`: evaluates EXPR in the scope of FILE and
//! prints its value in FDR's form, or, without EXPR, every `print`
//! declaration of FILE in order. Exit 0, 2 with a diagnostic, or 3 when
//! `--timeout` or the memory budget stopped the evaluation. FILE may be
//! `/dev/null` to evaluate an expression on its own.

use std::io::Write;
use std::path::Path;

use super::limits::WorkLimits;
use super::{EXIT_INCONCLUSIVE, EXIT_INPUT_ERROR, load, say};
use crate::eval::{EvalError, Evaluator};
use crate::syntax::render_all;
use crate::types::Expect;

pub(super) fn run(
    file: &Path,
    expr: Option<&str>,
    limits: &WorkLimits,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> u8 {
    let mut loaded = match load(file, &limits.budget(), err) {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    let targets = match expr {
        Some(text) => match loaded.add_expr("<expression>", text, Expect::Any) {
            Ok(func) => vec![func],
            Err(diagnostics) => {
                say(err, &render_all(&diagnostics, &loaded.script.sources));
                return EXIT_INPUT_ERROR;
            }
        },
        None if loaded.script.prints.is_empty() => {
            say(
                err,
                &format!(
                    "{}: no `print` declarations, nothing to evaluate (`symcsp eval FILE EXPR` \
                     evaluates an expression)\n",
                    crate::syntax::display_name(file)
                ),
            );
            return 0;
        }
        None => loaded.script.prints.clone(),
    };
    let script = &loaded.script;
    let meter = limits.budget().meter();
    let outcome = crate::stack::with_large_stack(|| {
        let evaluator = Evaluator::new(script).with_meter(meter);
        let mut lines = Vec::new();
        for func in targets {
            match evaluator.eval_constant(func) {
                Ok(value) => lines.push(evaluator.show(&value)),
                Err(e) => return (lines, Some(e)),
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
        Some(e) => stopped_or_failed(&e, script, err),
    }
}

/// Reports an evaluation that stopped (exit 3) or failed (exit 2).
fn stopped_or_failed(e: &EvalError, script: &crate::script::Script, err: &mut dyn Write) -> u8 {
    match e.stop_reason() {
        Some(reason) => {
            say(
                err,
                &format!(
                    "symcsp: the evaluation was {} before it finished\n",
                    reason.ended()
                ),
            );
            for note in &e.notes {
                say(err, &format!("  note: {note}\n"));
            }
            EXIT_INCONCLUSIVE
        }
        None => {
            say(err, &e.to_diagnostic().render(&script.sources));
            EXIT_INPUT_ERROR
        }
    }
}
