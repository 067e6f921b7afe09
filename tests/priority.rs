//! FDR's priority operators (`prioritise`, `prioritise_nocache`,
//! `timed_priority`, `prioritisepo`) in every use: exploration by both paths, the
//! animator's moves, every check (the specification side goes through
//! the normaliser), and checks reduced by symmetry.

use symcsp::check;
use symcsp::lts::Budget;
use symcsp::lts::animator::Animator;
use symcsp::script::Script;
use symcsp::symmetry::spec::Reduce;

mod state_counts;

use state_counts::{counts, every_assertion_passes};

const FIXTURE: &str = "tests/fixtures/check/priority.csp";
const ORDER_FIXTURE: &str = "tests/fixtures/check/priority_order.csp";

fn load() -> Script {
    state_counts::load(FIXTURE)
}

#[test]
fn a_partial_order_holds_back_what_it_puts_below_what_is_offered() {
    let mut script = state_counts::load(ORDER_FIXTURE);
    // a over b over c: only a (and d, outside the order) remain.
    assert_eq!(counts(&mut script, "Chain"), (2, 2, 1));
    // a and b over c, incomparable: a, b and d.
    assert_eq!(counts(&mut script, "Fork"), (2, 3, 1));
    // τ over a (not maximal): a waits while the choice can slide.
    assert_eq!(counts(&mut script, "Slides"), (3, 2, 1));
    assert_eq!(counts(&mut script, "Free"), (3, 3, 1));
    // Refusal testing: ref.x only where x is not offered, and stable.
    assert_eq!(counts(&mut script, "OneWay"), (2, 4, 0));
    assert_eq!(counts(&mut script, "EitherWay"), (4, 8, 0));
    assert_eq!(counts(&mut script, "Watched"), (8, 24, 0));
}

#[test]
fn every_partial_order_assertion_answers_as_fdr() {
    every_assertion_passes(&state_counts::load(ORDER_FIXTURE));
}

#[test]
fn a_partial_order_symmetric_in_a_type_is_reduced() {
    let script = state_counts::load(ORDER_FIXTURE);
    let index = (0..script.assertions.len())
        .find(|&i| {
            check::assertion_text(&script, i).contains("Watched :[deadlock free] :[symmetry")
        })
        .expect("the reduced deadlock check");
    let run = |reduce: &Reduce| {
        symcsp::stack::with_large_stack(|| {
            check::check_reduced(&script, index, &Budget::default(), Some(reduce))
        })
        .unwrap_or_else(|d| panic!("{}", d.render(&script.sources)))
    };
    let (plain, reduced) = (run(&Reduce::Off), run(&Reduce::Automatic));
    // How many of the three users are done: 4 classes of 8 states.
    assert_eq!((plain.states, reduced.states), (8, 4));
    assert_eq!(plain.verdict, reduced.verdict);
}

#[test]
fn the_animator_offers_a_refusal_only_where_the_event_is_not_offered() {
    let mut script = state_counts::load(ORDER_FIXTURE);
    let func = script.add_expr("<process>", "OneWay").expect("resolves");
    let script = &script;
    symcsp::stack::with_large_stack(|| {
        let mut animator = Animator::load(script, func).expect("loads");
        let start = animator.initial();
        let moves = animator.enabled(&start).expect("moves");
        let labels: Vec<&str> = moves.iter().map(|m| m.label.as_str()).collect();
        assert_eq!(labels, ["a", "ref.b"]);
        let after_a = moves
            .iter()
            .find(|m| m.label == "a")
            .expect("a")
            .target
            .clone();
        let labels: Vec<String> = animator
            .enabled(&after_a)
            .expect("moves")
            .into_iter()
            .map(|m| m.label)
            .collect();
        assert_eq!(labels, ["ref.a", "ref.b"]);
    });
}

#[test]
fn prioritised_processes_have_the_state_spaces_worked_out_by_hand() {
    let mut script = load();
    // Without priority: 4 states, each client's two moves in each.
    assert_eq!(counts(&mut script, "Free"), (4, 8, 0));
    // Requests first: (1,0) and (0,1) cannot grant.
    assert_eq!(counts(&mut script, "Sys"), (4, 6, 0));
    // Hurry idles (tock), performs c or the hidden a into TSTOP \ {a};
    // Urgent cannot idle before the hidden a.
    assert_eq!(counts(&mut script, "Hurry"), (2, 4, 0));
    assert_eq!(counts(&mut script, "Urgent"), (2, 3, 0));
}

#[test]
fn the_animator_offers_only_what_priority_allows() {
    let mut script = load();
    let func = script.add_expr("<process>", "Sys").expect("resolves");
    let script = &script;
    symcsp::stack::with_large_stack(|| {
        let mut animator = Animator::load(script, func).expect("loads");
        let labels = |animator: &mut Animator, state: &[u32]| -> Vec<String> {
            let moves = animator.enabled(state).expect("moves");
            moves.into_iter().map(|m| m.label).collect()
        };
        let start = animator.initial();
        assert_eq!(labels(&mut animator, &start), ["req.A", "req.B"]);
        let after_a = animator
            .enabled(&start)
            .expect("moves")
            .into_iter()
            .find(|m| m.label == "req.A")
            .expect("req.A")
            .target;
        // grant.A waits: req.B can still be made.
        assert_eq!(labels(&mut animator, &after_a), ["req.B"]);
        let both = animator.enabled(&after_a).expect("moves").remove(0).target;
        assert_eq!(labels(&mut animator, &both), ["grant.A", "grant.B"]);
    });
}

#[test]
fn every_assertion_answers_as_fdr() {
    every_assertion_passes(&load());
}

#[test]
fn reduced_checks_agree_with_unreduced_ones() {
    let script = load();
    let run = |index: usize, reduce: &Reduce| {
        symcsp::stack::with_large_stack(|| {
            check::check_reduced(&script, index, &Budget::default(), Some(reduce))
        })
        .unwrap_or_else(|d| panic!("{}", d.render(&script.sources)))
    };
    let mut reduced_some = false;
    for index in 0..script.assertions.len() {
        let text = check::assertion_text(&script, index);
        if !text.contains("symmetry reduce") {
            continue;
        }
        let plain = run(index, &Reduce::Off);
        let reduced = run(index, &Reduce::Automatic);
        assert_eq!(plain.verdict, reduced.verdict, "{text}");
        assert!(reduced.symmetry.is_some(), "{text}: reduced");
        assert!(reduced.states <= plain.states, "{text}");
        reduced_some = true;
    }
    assert!(reduced_some);
    // Deadlock freedom of Sys: (1,0) and (0,1) are one class.
    let plain = run(1, &Reduce::Off);
    let reduced = run(1, &Reduce::Automatic);
    assert_eq!((plain.states, reduced.states), (4, 3));
}
