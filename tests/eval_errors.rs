//! Every error a script can make while loading or evaluating is a
//! diagnostic with a place, a caret and the calls that led there: one
//! fixture in `tests/fixtures/eval_errors/` per error, each with the
//! snapshot of what the user sees.

use std::path::Path;

use symcsp::eval::{Evaluator, Limits};

/// Deep enough for every fixture but those that recurse forever.
const LIMITS: Limits = Limits {
    nested_calls: 500,
    native_levels: 500,
    tail_calls: 500,
};

fn relative(path: &Path) -> &Path {
    path.strip_prefix(env!("CARGO_MANIFEST_DIR"))
        .unwrap_or(path)
}

/// What `symcsp eval FILE` reports: the load diagnostics (names and
/// types included), or those of the first `print` that fails.
fn report(path: &Path) -> String {
    let script = match symcsp::types::load_file(path) {
        Ok(loaded) => loaded.script,
        Err(e) => return e.render(),
    };
    symcsp::stack::with_large_stack(|| {
        let evaluator = Evaluator::new(&script).with_limits(LIMITS);
        for &print in &script.prints {
            if let Err(e) = evaluator.eval_constant(print) {
                return e.to_diagnostic().render(&script.sources);
            }
        }
        panic!("{} should fail", path.display())
    })
}

#[test]
fn every_error_is_a_diagnostic() {
    insta::glob!("fixtures/eval_errors/*.csp", |path| {
        insta::assert_snapshot!(report(relative(path)));
    });
}
