//! Every model in `models/` documents the expected result of each of its
//! assertions in its header (`-- expect: assert 2 failed (1039 states)`,
//! `(93 representatives)` for a check reduced by symmetry, or `(static
//! check)` for one that explores no states); `-- expect structural:`
//! lines say the same of a check reduced by the system's structural
//! group (`--symmetry structural`);
//! these tests check each one, so a model and its documentation never
//! drift apart. One test per model, so they run in parallel and a failure
//! names its model. The paper's worked examples (`models/paper/`) are
//! checked alike; they stay out of the sweeps that explore every model
//! unreduced (Example 37's six nodes have 594 million states).

use std::path::Path;

use symcsp::check::{self, Verdict};
use symcsp::lts::search::Budget;
use symcsp::script::Script;

/// What an `-- expect:` line says of one assertion.
struct Expected {
    number: usize,
    result: String,
    /// States (or representatives) searched; `None` for a static check.
    states: Option<u64>,
    /// Whether the check is reduced by symmetry (its states are
    /// representatives).
    reduced: bool,
}

/// An `-- expect:` line (`false`) or an `-- expect structural:` line
/// (`true`).
fn expectation(line: &str) -> Option<(bool, Expected)> {
    let (structural, rest) = match line.strip_prefix("-- expect: assert ") {
        Some(rest) => (false, rest),
        None => (true, line.strip_prefix("-- expect structural: assert ")?),
    };
    let mut words = rest.split_whitespace();
    let number = words.next()?.parse().ok()?;
    let result = words.next()?.to_string();
    let states = words
        .next()
        .and_then(|w| w.strip_prefix('('))
        .and_then(|w| w.parse().ok());
    let reduced = matches!(words.next(), Some("representatives)" | "representative)"));
    Some((
        structural,
        Expected {
            number,
            result,
            states,
            reduced,
        },
    ))
}

/// Checks every assertion of `models/{name}.csp` against its header.
fn check_model(name: &str) {
    let path = Path::new("models").join(format!("{name}.csp"));
    let text = std::fs::read_to_string(&path).expect("readable");
    let expected: Vec<_> = text.lines().filter_map(expectation).collect();
    let script = Script::load_file(&path).expect("a model loads");
    let name = path.display();
    assert_eq!(
        expected
            .iter()
            .filter(|(structural, _)| !structural)
            .map(|(_, e)| e.number)
            .collect::<Vec<_>>(),
        (1..=script.assertions.len()).collect::<Vec<_>>(),
        "{name}: one `-- expect:` line per assertion, in order"
    );
    for (
        structural,
        Expected {
            number,
            result,
            states,
            reduced,
        },
    ) in expected
    {
        let asked = check::Asked {
            symmetry: structural.then_some(symcsp::symmetry::spec::Reduce::Structural),
            ..check::Asked::default()
        };
        let outcome = symcsp::stack::with_large_stack(|| {
            check::check_with(&script, number - 1, &Budget::default(), &asked)
        });
        let (word, found, was_reduced) = match &outcome {
            Ok(r) => (
                match r.verdict {
                    Verdict::Passed => "passed",
                    Verdict::Failed => "failed",
                    Verdict::Inconclusive(_) => "inconclusive",
                },
                r.searched.then_some(r.states),
                r.symmetry.is_some(),
            ),
            Err(_) => ("error", None, false),
        };
        let name = if structural {
            format!("{name} (structural)")
        } else {
            name.to_string()
        };
        assert_eq!(word, result, "{name}: assert {number}");
        assert_eq!(found, states, "{name}: assert {number}, states");
        assert_eq!(was_reduced, reduced, "{name}: assert {number}, reduced");
    }
}

/// The names of the scripts in `dir`, sorted.
fn scripts_in(dir: &str) -> Vec<String> {
    let mut found: Vec<String> = std::fs::read_dir(dir)
        .expect("a folder")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "csp"))
        .map(|p| {
            p.file_stem()
                .expect("a name")
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    found.sort();
    found
}

macro_rules! models {
    ($($name:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                check_model(stringify!($name));
            }
        )*

        /// Every file in `models/` has its test above.
        #[test]
        fn every_model_is_checked() {
            let found = scripts_in("models");
            let mut listed = vec![$(stringify!($name).to_string()),*];
            listed.sort();
            assert_eq!(found, listed, "models/ and the list in tests/models.rs");
        }
    };
}

models!(
    buffers,
    database,
    diningring,
    forks,
    ijring,
    liststack,
    lockfreequeue,
    peterson,
    philosophers,
    ring,
    scheduler,
    tokenring,
    treebroadcast,
);

#[test]
fn paper_example37() {
    check_model("paper/example37");
}

#[test]
fn paper_example43() {
    check_model("paper/example43");
}

/// Every file in `models/paper/` has its test above.
#[test]
fn every_paper_example_is_checked() {
    assert_eq!(
        scripts_in("models/paper"),
        ["example37", "example43"],
        "models/paper/ and the tests above"
    );
}
