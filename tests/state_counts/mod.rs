//! What the tests of hand-counted fixtures share: loading the fixture,
//! counting a process's states both ways, and checking that every
//! assertion passes (each fixture's assertions are FDR's answers).

use symcsp::lts::{self, Budget};
use symcsp::process::Processes;
use symcsp::script::Script;

/// The script at `path`, type-checked as every command loads it.
pub fn load(path: &str) -> Script {
    symcsp::types::load_file(std::path::Path::new(path))
        .unwrap_or_else(|e| panic!("the fixture loads: {}", e.render()))
        .script
}

/// States, transitions and deadlock states of `process`, by the
/// supercombinator and the plain semantics (which must agree).
pub fn counts(script: &mut Script, process: &str) -> (u64, u64, u64) {
    let func = script.add_expr("<process>", process).expect("resolves");
    let script = &*script;
    symcsp::stack::with_large_stack(|| {
        let (mut procs, root) = Processes::with_root(script, func).expect("a process");
        let budget = Budget::default();
        let fast = lts::explore(&mut procs, root, &budget).expect("explores");
        let plain = lts::plain::explore_terms(&mut procs, root, &budget).expect("explores");
        let key = |x: &lts::Exploration| (x.states, x.transitions, x.deadlock_states);
        assert_eq!(key(&fast), key(&plain), "{process}");
        key(&fast)
    })
}

/// Asserts that every assertion of `script` passes.
pub fn every_assertion_passes(script: &Script) {
    for index in 0..script.assertions.len() {
        let result = symcsp::stack::with_large_stack(|| {
            symcsp::check::check(script, index, &Budget::default())
        })
        .unwrap_or_else(|d| panic!("{}", d.render(&script.sources)));
        assert_eq!(
            result.verdict,
            symcsp::check::Verdict::Passed,
            "{}",
            symcsp::check::assertion_text(script, index)
        );
    }
}
