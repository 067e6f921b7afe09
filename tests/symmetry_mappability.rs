//! Mappability (Section 6.1): a system is reduced only when every
//! generator of the group maps its components and its operator tree
//! onto themselves. A script that passes the constant-free check always
//! gives such a system; these tests build the symmetry without that
//! check (as an FDR "corner case" would reach it) to show that the
//! machine is refused rather than reduced wrongly, with what breaks it.

use std::sync::Arc;

use symcsp::lts::machine::Machine;
use symcsp::process::Processes;
use symcsp::script::Script;
use symcsp::symmetry::{Origin, Symmetry, SystemSymmetry};

const SCRIPT: &str = "datatype T = A | B | C\n\
                      channel c, d : T\n\
                      P(x) = c!x -> d!x -> P(x)\n";

/// Mappability of `process` for the types `types`, without the
/// constant-free check: the component bijection of each generator, or
/// the problems found.
fn mappable(process: &str, types: &[&str]) -> Result<Vec<Vec<usize>>, Vec<String>> {
    let mut script = Script::load_str("t.csp", SCRIPT).expect("loads");
    let root = script.add_expr("<process>", process).expect("resolves");
    let items: Vec<_> = types
        .iter()
        .map(|t| script.add_expr("<type>", t).expect("resolves"))
        .collect();
    let script = &script;
    symcsp::stack::with_large_stack(|| {
        let (mut procs, start) = Processes::with_root(script, root).expect("a process");
        let symmetry = Symmetry::from_items(script, procs.evaluator(), &items, Origin::CommandLine)
            .expect("types");
        let mut machine = Machine::new(&mut procs, start).expect("the machine compiles");
        SystemSymmetry::new(Arc::new(symmetry), &mut machine, &mut procs)
            .map(|s| {
                s.generators()
                    .iter()
                    .map(|(_, alpha)| alpha.clone())
                    .collect()
            })
            .map_err(|refusal| refusal.problems)
    })
}

#[test]
fn a_symmetric_system_maps_its_components_by_their_identities() {
    // ||| x : T @ P(x): components P(A), P(B), P(C); the transposition
    // A ↔ B exchanges the first two, the cycle rotates all three.
    assert_eq!(
        mappable("||| x : T @ P(x)", &["T"]),
        Ok(vec![vec![1, 0, 2], vec![1, 2, 0]])
    );
    // Over {A, B} only, C's component stays.
    assert_eq!(
        mappable(
            "(||| x : T @ P(x)) [| {| d |} |] RUN({| d |})",
            &["diff(T, {C})"]
        ),
        Ok(vec![vec![1, 0, 2, 3]])
    );
}

#[test]
fn a_synchronisation_set_that_singles_out_a_value_is_refused() {
    let problems =
        mappable("(||| x : T @ P(x)) [| {| c.A |} |] RUN({| c |})", &["T"]).expect_err("refused");
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(
        problems[0].contains("the synchronisation set of `[| {c.A} |]` is not symmetric")
            && problems[0].contains("c.A is in it but its image c.B is not"),
        "{problems:?}"
    );
}

#[test]
fn components_in_different_places_of_the_tree_are_refused() {
    // P(A) alone on one side, P(B) and P(C) together on the other: the
    // labels are symmetric, the tree is not.
    let problems = mappable("P(A) [| {| d |} |] (P(B) ||| P(C))", &["T"]).expect_err("refused");
    assert!(
        problems
            .iter()
            .any(|p| p.contains("are not exchanged with those of another such operator")),
        "{problems:?}"
    );
}

#[test]
fn a_component_whose_image_is_no_component_is_refused() {
    let problems = mappable("P(A) ||| P(B)", &["T"]).expect_err("refused");
    assert!(
        problems
            .iter()
            .any(|p| p.contains("component 2 starts as P(B), but no component starts as P(C)")),
        "{problems:?}"
    );
}
