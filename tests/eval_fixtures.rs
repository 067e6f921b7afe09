//! Evaluation fixtures: every `tests/fixtures/eval/*.csp` loads as the
//! commands load it (type-checked), and in each, every top-level
//! definition whose name starts with `test` must evaluate to `true`.
//! Adding a case is one line in a fixture.

use std::path::Path;

use symcsp::eval::{Evaluator, Value};
use symcsp::script::ir::{GlobalId, GlobalKind};

/// How many tests a fixture ran, and a line for each that failed.
fn failures_in(path: &Path) -> (usize, Vec<String>) {
    let script = match symcsp::types::load_file(path) {
        Ok(loaded) => loaded.script,
        Err(e) => return (0, vec![e.render()]),
    };
    symcsp::stack::with_large_stack(|| {
        let evaluator = Evaluator::new(&script);
        let mut checked = 0;
        let mut failures = Vec::new();
        for (i, global) in script.globals.iter().enumerate() {
            if !global.name.starts_with("test") || !matches!(global.kind, GlobalKind::Definition(_))
            {
                continue;
            }
            checked += 1;
            match evaluator.global(GlobalId(i as u32)) {
                Ok(Value::Bool(true)) => {}
                Ok(other) => failures.push(format!("{}: {}", global.name, evaluator.show(&other))),
                Err(e) => failures.push(format!(
                    "{}: {}",
                    global.name,
                    e.to_diagnostic().render(&script.sources)
                )),
            }
        }
        (checked, failures)
    })
}

#[test]
fn every_test_definition_is_true() {
    let mut files: Vec<_> = std::fs::read_dir("tests/fixtures/eval")
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "csp"))
        .collect();
    files.sort();
    assert!(files.len() >= 7, "the fixtures are missing");
    let mut report = String::new();
    let mut total = 0;
    for file in &files {
        let (checked, failures) = failures_in(file);
        assert!(
            checked > 0 || !failures.is_empty(),
            "{} has no tests",
            file.display()
        );
        total += checked;
        for f in failures {
            report.push_str(&format!("{}: {f}\n", file.display()));
        }
    }
    assert!(report.is_empty(), "failing evaluation tests:\n{report}");
    assert!(total >= 100, "only {total} evaluation tests ran");
}
