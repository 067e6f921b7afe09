//! The type checker, from fixtures: every `tests/fixtures/types/valid`
//! script loads and its names have the types recorded in its snapshot
//! (what `symcsp type FILE` prints); every `invalid` one is refused with
//! the diagnostics recorded in its snapshot. And no false positives:
//! every shipped model and every fixture written to load does.

use std::path::Path;

/// The path relative to the crate, so diagnostics and snapshots do not
/// depend on where the checkout lives.
fn relative(path: &Path) -> &Path {
    path.strip_prefix(env!("CARGO_MANIFEST_DIR"))
        .unwrap_or(path)
}

/// Every name `path` declares with its type, one per line.
fn declared_types(path: &Path) -> String {
    let mut loaded = symcsp::types::load_file(path)
        .unwrap_or_else(|e| panic!("{} should load:\n{}", path.display(), e.render()));
    loaded
        .types
        .declared(&loaded.script)
        .into_iter()
        .map(|(name, ty)| format!("{name} :: {ty}\n"))
        .collect()
}

#[test]
fn valid_scripts_have_their_recorded_types() {
    insta::glob!("fixtures/types/valid/*.csp", |path| {
        insta::assert_snapshot!(declared_types(relative(path)));
    });
}

#[test]
fn invalid_scripts_fail_with_their_recorded_diagnostics() {
    insta::glob!("fixtures/types/invalid/*.csp", |path| {
        let path = relative(path);
        let rendered = match symcsp::types::load_file(path) {
            Ok(_) => panic!("{} should be refused", path.display()),
            Err(e) => e.render(),
        };
        insta::assert_snapshot!(rendered);
    });
}

/// The shipped models and the fixtures that are meant to load all do:
/// the type checker refuses nothing FDR accepts among them.
#[test]
fn every_model_and_loading_fixture_type_checks() {
    let folders = [
        "models",
        "models/paper",
        "tests/fixtures/eval",
        "tests/fixtures/check",
        "tests/fixtures/symmetry",
        "tests/fixtures/timed",
        "tests/fixtures/tui",
        "tests/fixtures/budgets",
        "benches/models",
    ];
    let mut checked = 0;
    let mut refused = Vec::new();
    for folder in folders {
        let Ok(entries) = std::fs::read_dir(folder) else {
            continue;
        };
        let mut paths: Vec<_> = entries
            .map(|e| e.expect("an entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "csp"))
            // A script broken on purpose (the animator's error view).
            .filter(|p| !p.ends_with("tui/broken.csp"))
            .collect();
        paths.sort();
        for path in paths {
            checked += 1;
            if let Err(e) = symcsp::types::load_file(&path) {
                refused.push(e.render());
            }
        }
    }
    assert!(checked > 40, "only {checked} scripts found");
    assert!(refused.is_empty(), "refused:\n{}", refused.join("\n"));
}

/// `symcsp type`'s answers: a name, an expression, a built-in.
#[test]
fn the_type_of_a_name_or_an_expression_is_written_as_fdr_writes_it() {
    let mut loaded = symcsp::types::load_file(Path::new("models/liststack.csp")).expect("loads");
    assert_eq!(
        loaded.types.of_name(&loaded.script, "Node").as_deref(),
        Some("(NodeIDType, Data, NodeIDType) -> Proc")
    );
    assert_eq!(
        loaded.types.of_name(&loaded.script, "push").as_deref(),
        Some("ThreadID=>Data=>Event")
    );
    assert_eq!(loaded.types.of_name(&loaded.script, "nothing"), None);
    let cases = [
        ("\\ x, y @ x == y", "Eq a => (a, a) -> Bool"),
        ("union", "Set a => ({a}, {a}) -> {a}"),
        ("{| push.T0 |}", "{Event}"),
        ("extensions(push)", "{ThreadID.Data}"),
        ("<(1, 'c')>", "<(Int, Char)>"),
        ("\\ s @ mapLookup(s, 1)", "((| Int => a |)) -> a"),
    ];
    for (text, expected) in cases {
        let func = loaded
            .script
            .add_expr("<expression>", text)
            .expect("resolves");
        let ty = loaded
            .types
            .check_added(&loaded.script, func, symcsp::types::Expect::Any)
            .unwrap_or_else(|d| panic!("{text}: {d:?}"));
        assert_eq!(ty, expected, "{text}");
    }
}

/// An expression added later (the animator's process, `eval`'s
/// expression) is checked too, with a caret in its own text.
#[test]
fn an_added_expression_of_the_wrong_type_is_refused_where_it_is_wrong() {
    let mut loaded = symcsp::types::load_file(Path::new("models/liststack.csp")).expect("loads");
    let errors = loaded
        .add_expr(
            "<process>",
            "Lock [] push.T0",
            symcsp::types::Expect::Process,
        )
        .expect_err("an event is not a process");
    let rendered = symcsp::syntax::render_all(&errors, &loaded.script.sources);
    assert!(
        rendered.contains("Couldn't match expected type Proc with actual type Data=>Event"),
        "{rendered}"
    );
    assert!(rendered.contains("<process>:1:9"), "{rendered}");
    // The script's types are still usable afterwards.
    loaded
        .add_expr("<process>", "Lock", symcsp::types::Expect::Process)
        .expect("a process");
}

/// Issue 48, item 1: each stage of loading polls the budget it is given
/// and, stopped, says which stage it was in; a meter that stops at once
/// stops parsing, and a script parsed and resolved without a budget is
/// stopped in type checking by one that has run out.
#[test]
fn each_stage_of_loading_stops_at_its_budget_and_says_which() {
    use symcsp::budget::{Budget, Stopped};
    use symcsp::syntax::LoadStage;
    use symcsp::types::Checked;
    let text: String = (0..20_000)
        .map(|i| format!("P{i}(x) = if x > {i} then a!(x % 10) -> P{i}(x-1) else STOP\n"))
        .collect();
    let text = format!("channel a : {{0..9}}\n{text}");
    let expired = Budget {
        timeout: Some(std::time::Duration::ZERO),
        max_memory: None,
        ..Budget::default()
    };
    let stopped =
        symcsp::types::load_str_within("big.csp", &text, &expired.meter()).expect_err("stopped");
    let how = stopped.stopped.expect("a stop, not an error");
    assert_eq!(how.reason, Stopped::Timeout);
    assert_eq!(how.stage, LoadStage::Parsing);
    assert!(stopped.diagnostics.is_empty());
    assert!(
        stopped.render().contains(
            "the script was not loaded: stopped by the time-out while parsing the script"
        ),
        "{}",
        stopped.render()
    );

    let stopped_resolving = |name: &str, text: &str| {
        let program = symcsp::syntax::load_str(name, text).expect("parses");
        let resolved =
            symcsp::script::Script::resolve_within(program, &expired.meter()).expect_err("stopped");
        assert_eq!(
            resolved.stopped.map(|s| s.stage),
            Some(LoadStage::Resolving)
        );
        resolved
    };
    stopped_resolving("big.csp", &text);

    // Stopped before it met every name, resolution says nothing of the
    // names it did not reach: each process calls the next, defined later.
    let chained: String = (0..20_000)
        .map(|i| format!("Q{i} = a!{} -> Q{}\n", i % 10, i + 1))
        .collect();
    let chained = format!("channel a : {{0..9}}\n{chained}Q20000 = STOP\n");
    let resolved = stopped_resolving("chained.csp", &chained);
    assert!(resolved.diagnostics.is_empty(), "{}", resolved.render());

    let program = symcsp::syntax::load_str("big.csp", &text).expect("parses");
    let script = symcsp::script::Script::resolve(program).expect("resolves");
    match symcsp::types::check_within(&script, &expired.meter()) {
        Checked::Stopped(Stopped::Timeout, errors) => assert!(errors.is_empty()),
        _ => panic!("type checking should stop at the time-out"),
    }
    // Without a budget the same script loads.
    assert!(matches!(
        symcsp::types::check_within(&script, &Budget::default().meter()),
        Checked::Typed(_)
    ));
}
