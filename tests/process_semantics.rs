//! Transition lists of small processes for every operator, τ/✓ corner
//! cases included, computed by the plain operational semantics.

use std::collections::BTreeSet;

use symcsp::eval::Evaluator;
use symcsp::lts::{Budget, plain};
use symcsp::process::Processes;
use symcsp::script::Script;

const CHANNELS: &str = "channel a, b, c, d\nchannel e : {0..2}\nchannel f : {0..1}.{0..1}\n";

/// Every transition reachable from `expr`, as `state -event-> state`
/// lines in breadth-first order of their source.
fn lts(defs: &str, expr: &str) -> Vec<String> {
    let mut script = Script::load_str("test.csp", &format!("{CHANNELS}{defs}")).expect("loads");
    let func = script.add_expr("<process>", expr).expect("resolves");
    let script = &script;
    symcsp::stack::with_large_stack(|| {
        let mut procs = Processes::new(script).expect("events");
        let value = procs.evaluator().eval_constant(func).expect("evaluates");
        let root = procs.state(&value, Default::default()).expect("a process");
        let mut order = vec![root];
        let mut seen: BTreeSet<_> = [root].into();
        let mut lines = Vec::new();
        let mut i = 0;
        while i < order.len() {
            let s = order[i];
            for t in procs.transitions(s).expect("transitions").iter() {
                lines.push(format!(
                    "{} -{}-> {}",
                    procs.show_state(s),
                    procs.show_event(t.event),
                    procs.show_state(t.target)
                ));
                if seen.insert(t.target) {
                    order.push(t.target);
                }
            }
            i += 1;
        }
        lines
    })
}

fn counts(defs: &str, expr: &str) -> (u64, u64, u64) {
    let mut script = Script::load_str("test.csp", &format!("{CHANNELS}{defs}")).expect("loads");
    let func = script.add_expr("<process>", expr).expect("resolves");
    let script = &script;
    symcsp::stack::with_large_stack(|| {
        let evaluator = Evaluator::new(script);
        let value = evaluator.eval_constant(func).expect("evaluates");
        let mut procs = Processes::with_evaluator(evaluator).expect("events");
        let root = procs.state(&value, Default::default()).expect("a process");
        let x = plain::explore_terms(&mut procs, root, &Budget::default()).expect("explores");
        (x.states, x.transitions, x.deadlock_states)
    })
}

#[test]
fn a_recursive_process_name_is_one_state() {
    assert_eq!(lts("P = a -> P", "P"), vec!["P -a-> P"]);
    assert_eq!(counts("P = a -> b -> P", "P"), (2, 2, 0));
}

#[test]
fn skip_terminates_into_omega_and_stop_deadlocks() {
    assert_eq!(lts("", "SKIP"), vec!["SKIP -✓-> Ω"]);
    assert_eq!(counts("", "SKIP"), (2, 1, 0));
    assert_eq!(counts("", "STOP"), (1, 0, 1));
}

#[test]
fn external_choice_is_resolved_by_tick_but_not_by_tau() {
    assert_eq!(
        lts("", "SKIP [] a -> STOP"),
        vec!["SKIP [] a -> STOP -✓-> Ω", "SKIP [] a -> STOP -a-> STOP"]
    );
    assert_eq!(
        lts("", "(a -> STOP |~| b -> STOP) [] c -> STOP"),
        vec![
            "(a -> STOP |~| b -> STOP) [] c -> STOP -τ-> (a -> STOP) [] (c -> STOP)",
            "(a -> STOP |~| b -> STOP) [] c -> STOP -τ-> (b -> STOP) [] (c -> STOP)",
            "(a -> STOP |~| b -> STOP) [] c -> STOP -c-> STOP",
            "(a -> STOP) [] (c -> STOP) -a-> STOP",
            "(a -> STOP) [] (c -> STOP) -c-> STOP",
            "(b -> STOP) [] (c -> STOP) -b-> STOP",
            "(b -> STOP) [] (c -> STOP) -c-> STOP",
        ]
    );
}

#[test]
fn sequential_composition_turns_tick_into_tau() {
    assert_eq!(
        lts("", "(a -> SKIP) ; b -> STOP"),
        vec![
            "(a -> SKIP) ; b -> STOP -a-> SKIP ; (b -> STOP)",
            "SKIP ; (b -> STOP) -τ-> b -> STOP",
            "b -> STOP -b-> STOP",
        ]
    );
}

#[test]
fn interleaved_skips_terminate_together_then_continue() {
    assert_eq!(
        lts("", "(SKIP ||| SKIP) ; a -> STOP"),
        vec![
            "(SKIP ||| SKIP) ; a -> STOP -τ-> (Ω ||| SKIP) ; (a -> STOP)",
            "(SKIP ||| SKIP) ; a -> STOP -τ-> (SKIP ||| Ω) ; (a -> STOP)",
            "(Ω ||| SKIP) ; (a -> STOP) -τ-> (Ω ||| Ω) ; (a -> STOP)",
            "(SKIP ||| Ω) ; (a -> STOP) -τ-> (Ω ||| Ω) ; (a -> STOP)",
            "(Ω ||| Ω) ; (a -> STOP) -τ-> a -> STOP",
            "a -> STOP -a-> STOP",
        ]
    );
}

#[test]
fn an_interrupted_skip_may_terminate_or_be_interrupted() {
    assert_eq!(
        lts("P = a -> P", "P /\\ SKIP"),
        vec!["P /\\ SKIP -✓-> Ω", "P /\\ SKIP -a-> P /\\ SKIP"]
    );
    assert_eq!(
        lts("", "SKIP /\\ a -> STOP"),
        vec![
            "SKIP /\\ (a -> STOP) -✓-> Ω",
            "SKIP /\\ (a -> STOP) -a-> STOP"
        ]
    );
}

#[test]
fn hiding_a_cycle_creates_divergence() {
    assert_eq!(
        lts("P = a -> b -> P", "P \\ {a, b}"),
        vec![
            "P \\ {a, b} -τ-> (b -> P) \\ {a, b}",
            "(b -> P) \\ {a, b} -τ-> P \\ {a, b}",
        ]
    );
    assert_eq!(counts("P = a -> P", "P \\ {a}"), (1, 1, 0));
}

#[test]
fn renaming_onto_a_hidden_event_hides_it() {
    assert_eq!(
        lts("P = a -> b -> STOP", "(P [[ a <- c ]]) \\ {c}"),
        vec![
            "(P [[a <- c]]) \\ {c} -τ-> ((b -> STOP) [[a <- c]]) \\ {c}",
            "((b -> STOP) [[a <- c]]) \\ {c} -b-> (STOP [[a <- c]]) \\ {c}",
        ]
    );
}

#[test]
fn renaming_may_be_one_to_many_and_many_to_one() {
    assert_eq!(
        lts("", "(a -> STOP) [[ a <- b, a <- c ]]"),
        vec![
            "(a -> STOP) [[a <- b, a <- c]] -b-> STOP [[a <- b, a <- c]]",
            "(a -> STOP) [[a <- b, a <- c]] -c-> STOP [[a <- b, a <- c]]",
        ]
    );
    assert_eq!(
        counts("", "(a -> STOP [] b -> STOP) [[ a <- c, b <- c ]]"),
        (2, 1, 1)
    );
    assert_eq!(
        lts("", "(f.1?y -> STOP) [[ f.1 <- e ]]"),
        vec![
            "(f.1?y -> STOP) [[f.1.0 <- e.0, f.1.1 <- e.1]] -e.0-> STOP [[f.1.0 <- e.0, f.1.1 <- e.1]]",
            "(f.1?y -> STOP) [[f.1.0 <- e.0, f.1.1 <- e.1]] -e.1-> STOP [[f.1.0 <- e.0, f.1.1 <- e.1]]",
        ]
    );
}
