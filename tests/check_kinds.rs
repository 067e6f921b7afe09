//! Every kind of assertion on small scripts with known answers: the
//! verdict, the counterexample event by event, and a replay of each
//! counterexample's exact path on the implementation to show it is a
//! real behaviour.

use symcsp::check::counterexample::{Counterexample, Kind, RenderedCounterexample};
use symcsp::check::{self, CheckResult, Verdict};
use symcsp::lts::search::{Budget, Stopped};
use symcsp::process::Processes;
use symcsp::script::Script;

mod replay;

const DEFS: &str = "
channel a, b, c, tock
P = a -> b -> P
Q = a -> (b -> Q [] c -> STOP)
X = a -> X
Hidden = X \\ {a}
LateDiv = b -> Hidden
S = a -> S |~| b -> S
E = a -> E [] b -> E
";

/// What one assertion should give.
struct Expect {
    verdict: Verdict,
    /// `(kind, trace, error event)` of the counterexample, if one.
    counterexample: Option<(Kind, &'static [&'static str], Option<&'static str>)>,
}

const PASS: Expect = Expect {
    verdict: Verdict::Passed,
    counterexample: None,
};

fn fail(kind: Kind, trace: &'static [&'static str], error: Option<&'static str>) -> Expect {
    Expect {
        verdict: Verdict::Failed,
        counterexample: Some((kind, trace, error)),
    }
}

fn load(assertions: &str) -> Script {
    let text = format!("{DEFS}{assertions}\nexternal chase, chase_nocache\n");
    Script::load_str("test.csp", &text).expect("the script loads")
}

fn run(script: &Script, index: usize, budget: &Budget) -> CheckResult {
    symcsp::stack::with_large_stack(|| check::check(script, index, budget)).unwrap_or_else(|d| {
        panic!(
            "assertion {index} is an error: {}",
            d.render(&script.sources)
        )
    })
}

/// The counterexample in words, printed by process states of the script
/// other than the check's own (as the command line prints it).
fn words(script: &Script, cx: &Counterexample) -> RenderedCounterexample {
    symcsp::stack::with_large_stack(|| cx.render(&mut Processes::new(script).expect("events")))
}

/// Checks each assertion of `assertions` (one per line) against `expect`.
fn check_all(assertions: &str, expect: &[Expect]) {
    let script = load(assertions);
    assert_eq!(
        script.assertions.len(),
        expect.len(),
        "one expectation per assertion"
    );
    for (i, want) in expect.iter().enumerate() {
        let text = check::assertion_text(&script, i);
        let result = run(&script, i, &Budget::default());
        assert_eq!(result.verdict, want.verdict, "{text}");
        let shown = result
            .counterexample
            .as_ref()
            .filter(|_| want.counterexample.is_some() || result.verdict == Verdict::Failed);
        match (&want.counterexample, shown) {
            (Some((kind, trace, error)), Some(cx)) => {
                let shown = words(&script, cx);
                assert_eq!(cx.kind, *kind, "{text}");
                assert_eq!(shown.trace, *trace, "{text}");
                assert_eq!(shown.error_event.as_deref(), *error, "{text}");
                replay(&script, i, cx);
            }
            (None, None) => {}
            (want, got) => panic!(
                "{text}: expected counterexample {:?}, got {got:?}",
                want.as_ref().map(|w| w.0)
            ),
        }
    }
}

/// Replays the counterexample's exact path (τ included) on the
/// implementation and checks that the violation is really there.
fn replay(script: &Script, index: usize, cx: &Counterexample) {
    if let Err(why) = replay::violation_at_end(script, index, cx) {
        panic!("{why}");
    }
}

#[test]
fn trace_refinement() {
    check_all(
        "assert P [T= P
assert P [T= Q
assert not P [T= Q
assert Q [T= P
assert STOP [T= Hidden
assert a -> STOP [T= a -> b -> STOP
",
        &[
            PASS,
            fail(Kind::Trace, &["a"], Some("c")),
            Expect {
                verdict: Verdict::Passed,
                counterexample: Some((Kind::Trace, &["a"], Some("c"))),
            },
            PASS,
            PASS,
            fail(Kind::Trace, &["a"], Some("b")),
        ],
    );
}

/// `chase` takes τs at once: it may lose what the process could do
/// instead (c below), refines the process, and keeps a τ-loop as a
/// divergence.
#[test]
fn chase_refines_the_process_and_keeps_its_divergence() {
    check_all(
        "assert chase((a -> b -> STOP [] c -> STOP) \\ {a}) [T= b -> STOP
assert b -> STOP [FD= chase((a -> b -> STOP [] c -> STOP) \\ {a})
assert (a -> b -> STOP [] c -> STOP) \\ {a} [F= chase((a -> b -> STOP [] c -> STOP) \\ {a})
assert chase((a -> b -> STOP [] c -> STOP) \\ {a}) [T= (a -> b -> STOP [] c -> STOP) \\ {a}
assert chase(Hidden) :[divergence free]
assert chase_nocache(b -> Hidden) :[divergence free]
assert chase(P) [FD= P
",
        &[
            PASS,
            PASS,
            PASS,
            fail(Kind::Trace, &[], Some("c")),
            fail(Kind::Divergence, &[], None),
            fail(Kind::Divergence, &["b"], None),
            PASS,
        ],
    );
}

#[test]
fn failures_refinement() {
    check_all(
        "assert S [F= X
assert S [F= E
assert S [T= STOP
assert S [F= STOP
assert E [F= (a -> E |~| b -> E)
assert E [F= Hidden
assert (a -> STOP [] SKIP) [F= (a -> STOP |~| SKIP)
assert SKIP [F= (a -> STOP [] SKIP) \\ {a}
",
        &[
            PASS,
            PASS,
            PASS,
            fail(Kind::Refusal, &[], None),
            fail(Kind::Refusal, &[], None),
            // A process without stable states has no failures.
            PASS,
            // a -> STOP [] SKIP must accept ✓; one branch refuses it.
            fail(Kind::Refusal, &[], None),
            // Hiding a turns the choice into one that may refuse ✓.
            fail(Kind::Refusal, &[], None),
        ],
    );
}

#[test]
fn failures_divergences_refinement() {
    check_all(
        "assert RUN({a, b}) [FD= Hidden
assert RUN({a, b}) [F= Hidden
assert RUN({b}) [FD= LateDiv
assert (b -> DIV) [FD= b -> STOP
assert (b -> DIV) [FD= b -> STOP [] c -> STOP
assert (b -> DIV) [FD= LateDiv
assert P [FD= P
",
        &[
            fail(Kind::Divergence, &[], None),
            PASS,
            fail(Kind::Divergence, &["b"], None),
            // After b the specification diverges: it allows anything.
            PASS,
            fail(Kind::Trace, &[], Some("c")),
            PASS,
            PASS,
        ],
    );
}

#[test]
fn deadlock_freedom() {
    check_all(
        "assert X :[deadlock free]
assert (a -> b -> STOP) :[deadlock free]
assert (a -> SKIP) :[deadlock free]
assert ((a -> b -> SKIP) [| {a, b} |] (b -> a -> SKIP)) :[deadlock free [F]]
assert Hidden :[deadlock free [F]]
assert Hidden :[deadlock free [FD]]
assert not (a -> b -> STOP) :[deadlock-free]
assert (a -> SKIP ; b -> STOP) :[deadlock free]
assert Hidden :[deadlock free]
",
        &[
            PASS,
            fail(Kind::Deadlock, &["a", "b"], None),
            PASS,
            fail(Kind::Deadlock, &[], None),
            PASS,
            fail(Kind::Divergence, &[], None),
            Expect {
                verdict: Verdict::Passed,
                counterexample: Some((Kind::Deadlock, &["a", "b"], None)),
            },
            fail(Kind::Deadlock, &["a", "b"], None),
            // Without a model, FD, as in FDR: the divergence fails it.
            fail(Kind::Divergence, &[], None),
        ],
    );
}

#[test]
fn divergence_freedom() {
    check_all(
        "assert Hidden :[divergence free]
assert LateDiv :[livelock free]
assert (a -> b -> STOP) \\ {a} :[divergence free]
assert P :[divergence-free]
",
        &[
            fail(Kind::Divergence, &[], None),
            fail(Kind::Divergence, &["b"], None),
            PASS,
            PASS,
        ],
    );
}

/// A divergence is found where it is: seven hidden counters of ten
/// states each make 10^7 states, all τ-connected, and the initial state's
/// τ-cycle (the first counter going round) is ten steps long. The search
/// ends once the states down to it are recorded, not after the whole
/// component (which takes the 10^7).
#[test]
fn a_divergence_at_the_start_of_a_vast_tau_component_is_found_there() {
    let text = "channel a, b, c, d, e, f, g : {0..9}
C(x, n) = x.n -> C(x, (n + 1) % 10)
System = (C(a, 0) ||| C(b, 0) ||| C(c, 0) ||| C(d, 0) ||| C(e, 0) ||| C(f, 0) ||| C(g, 0)) \\ Events
assert System :[divergence free]
";
    let script = Script::load_str("vast.csp", text).expect("the script loads");
    // The states stored, as the progress shows them (the result counts
    // up to the divergent state's level: the first).
    let live = std::sync::Arc::new(symcsp::budget::Live::default());
    let budget = Budget {
        max_states: Some(200_000),
        live: Some(live.clone()),
        ..Budget::default()
    };
    let result = run(&script, 0, &budget);
    assert_eq!(result.verdict, Verdict::Failed);
    let stored = live.states.load(std::sync::atomic::Ordering::Relaxed);
    assert!(stored < 50_000, "{stored} states stored");
    assert_eq!((result.states, result.depth), (1, 0));
    let cx = result.counterexample.as_ref().expect("a counterexample");
    assert_eq!(words(&script, cx).kind, Kind::Divergence);
    assert!(cx.trace().is_empty());
    replay(&script, 0, cx);
}

/// An initial state with a τ to itself diverges at once, whatever τ-chain
/// goes on beside it: the search ends with the state whose recording
/// showed it, on any thread count (two states stored, as the progress
/// shows them), and the check counts through the level of the divergent
/// state, the first.
#[test]
fn a_tau_to_itself_at_the_start_is_answered_with_a_few_states() {
    let text = "channel a, b : {0..9}
Counter(n) = n < 5000 & b.(n % 10) -> Counter(n + 1)
Spin = a.0 -> Spin
System = (Spin ||| Counter(0)) \\ {| a, b |}
assert System :[divergence free]
";
    let script = Script::load_str("spin.csp", text).expect("the script loads");
    for threads in [1, 2, 3] {
        let live = std::sync::Arc::new(symcsp::budget::Live::default());
        let budget = Budget {
            threads,
            live: Some(live.clone()),
            ..Budget::default()
        };
        let result = run(&script, 0, &budget);
        assert_eq!(result.verdict, Verdict::Failed);
        assert_eq!(live.states.load(std::sync::atomic::Ordering::Relaxed), 2);
        assert_eq!(
            (result.states, result.transitions, result.depth),
            (1, 0, 0),
            "{threads} threads"
        );
        let cx = result.counterexample.as_ref().expect("a counterexample");
        assert_eq!(words(&script, cx).kind, Kind::Divergence);
        replay(&script, 0, cx);
    }
}

/// Divergence is answered from the search's own τ-transitions, a level
/// or so behind the judging; a breach of another kind found meanwhile
/// must still lose to a divergence at an earlier state (here the first,
/// whose τ-run reaches its loop only after twenty states), and win over
/// one at a later state.
#[test]
fn the_first_breach_in_search_order_wins_over_a_divergence_not_yet_answered() {
    check_all(
        "channel d
Chain(n) = if n < 20 then d -> Chain(n + 1) else d -> Chain(n)
assert RUN({a}) [FD= (a -> c -> STOP [] Chain(0)) \\ {d}
assert RUN({a}) [FD= (a -> Chain(0)) \\ {d}
assert RUN({a, b}) [FD= a -> c -> STOP [] b -> Hidden
assert (a -> Chain(0)) \\ {d} :[divergence free]
assert ((a -> STOP) [] Chain(0)) \\ {d} :[deadlock free [FD]]
",
        &[
            fail(Kind::Divergence, &[], None),
            fail(Kind::Divergence, &["a"], None),
            fail(Kind::Refusal, &["a"], None),
            fail(Kind::Divergence, &["a"], None),
            fail(Kind::Divergence, &[], None),
        ],
    );
}

/// Issue 82's rule for a search that stops in a level (the state budget,
/// an evaluation error): the level is judged to its end, and a
/// divergence counts where the τ-moves between the states of the levels
/// judged close a loop — so every engine answers alike.
#[test]
fn a_divergence_counts_over_the_whole_levels_judged_when_an_error_or_a_budget_stops_the_search() {
    let verdict_of = |script: &Script, budget: &Budget| {
        let result = run(script, 0, budget);
        let trace = result.counterexample.map(|cx| {
            assert_eq!(cx.kind, Kind::Divergence);
            words(script, &cx).trace
        });
        (result.verdict, trace)
    };
    let budget_of = |states: usize| Budget {
        max_states: Some(states),
        ..Budget::default()
    };
    // The first state diverges (a loop of three hidden a's, through
    // levels 1 to 3). After b (level 1) a component fails to evaluate:
    // level 1 judged, the loop does not close among whole levels, and the
    // error is the answer; at level 3, judged to its end, it closes.
    let script = load(
        "Three = a -> a -> a -> Three
Broken = c -> (if head(<>) == 0 then STOP else STOP)
assert (b -> Broken [] (Three \\ {a})) :[divergence free]
",
    );
    let error = symcsp::stack::with_large_stack(|| check::check(&script, 0, &Budget::default()))
        .expect_err("level 1 holds an error and no breach");
    assert_eq!(error.message, "`head` of the empty sequence");
    let script = load(
        "Three = a -> a -> a -> Three
Later = c -> tock -> tock -> (if head(<>) == 0 then STOP else STOP)
assert (b -> Later [] (Three \\ {a})) :[divergence free]
",
    );
    let (verdict, trace) = verdict_of(&script, &Budget::default());
    assert_eq!((verdict, trace), (Verdict::Failed, Some(Vec::new())));
    // After w.0 a loop of three hidden a's (levels 1 to 3), after w.1 one
    // of one (level 1): the budget of four states stops the search in
    // level 2, so only the short loop is among whole levels.
    let script = load(
        "channel w : {0, 1}
Long = a -> a -> a -> Long
Short = a -> Short
assert (w.0 -> Long [] w.1 -> Short) \\ {a} :[divergence free]
",
    );
    let (verdict, trace) = verdict_of(&script, &budget_of(4));
    assert_eq!(
        (verdict, trace),
        (Verdict::Failed, Some(vec!["w.1".to_string()]))
    );
    // A thousand states after the first event, each on a loop of two
    // hidden a's through the next level: stopped storing that level, no
    // loop is among whole levels; one more level, and each closes.
    let script = load(
        "channel v : {0..999}
Two(x) = a -> a -> Two(x)
assert ([] x : {0..999} @ v.x -> Two(x)) \\ {a} :[divergence free]
",
    );
    let (verdict, _) = verdict_of(&script, &budget_of(1001));
    assert_eq!(verdict, Verdict::Inconclusive(Stopped::StateBudget));
    let (verdict, trace) = verdict_of(&script, &budget_of(2001));
    assert_eq!(
        (verdict, trace),
        (Verdict::Failed, Some(vec!["v.0".to_string()]))
    );
}

/// An evaluation error met in a later state says the trace that reached
/// it (its visible events, a shortest way there), on any thread count;
/// one in the initial state needs none.
#[test]
fn an_evaluation_error_names_the_trace_that_reached_it() {
    let script = load(
        "channel d : {0..3}
Count(n) = if n == 3 then d.head(<>) -> STOP else d.n -> Count(n + 1)
Hid = (a -> Count(0)) \\ {a}
assert Count(0) :[deadlock free]
assert Hid :[deadlock free]
assert d.head(<>) -> STOP :[deadlock free]
",
    );
    let note = |index: usize, threads: usize| {
        let budget = Budget {
            threads,
            ..Budget::default()
        };
        let error = symcsp::stack::with_large_stack(|| check::check(&script, index, &budget))
            .expect_err("an evaluation error");
        assert!(
            error.message.contains("`head` of the empty sequence"),
            "{}",
            error.message
        );
        error
            .notes
            .iter()
            .find(|n| n.starts_with("met in"))
            .cloned()
    };
    for threads in [1, 2, 3] {
        assert_eq!(
            note(0, threads).as_deref(),
            Some("met in a state the process reaches after <d.0, d.1, d.2>")
        );
        assert_eq!(
            note(1, threads).as_deref(),
            Some("met in a state the process reaches after <d.0, d.1, d.2> (and τ steps)")
        );
        assert_eq!(note(2, threads), None);
    }
}

#[test]
fn determinism() {
    check_all(
        "assert (a -> STOP [] b -> STOP) :[deterministic]
assert (a -> STOP |~| a -> STOP) :[deterministic]
assert (a -> STOP [] a -> b -> STOP) :[deterministic [F]]
assert Hidden :[deterministic [F]]
assert Hidden :[deterministic [FD]]
assert Hidden :[deterministic]
",
        &[
            PASS,
            PASS,
            fail(Kind::Nondeterminism, &["a"], Some("b")),
            PASS,
            fail(Kind::Divergence, &[], None),
            fail(Kind::Divergence, &[], None),
        ],
    );
}

#[test]
fn a_nondeterministic_choice_has_a_witness_that_takes_the_other_branch() {
    let script = load("assert (a -> STOP |~| b -> STOP) :[deterministic]\n");
    let result = run(&script, 0, &Budget::default());
    assert_eq!(result.verdict, Verdict::Failed);
    let cx = result.counterexample.expect("a counterexample");
    assert_eq!(cx.kind, Kind::Nondeterminism);
    assert!(cx.trace().is_empty());
    let error = cx.error_event.expect("an error event");
    // One branch accepts only one event; the other performs the other.
    assert_eq!(cx.accepted.len(), 1);
    assert_ne!(cx.accepted[0], error);
    assert_eq!(cx.witness, Some(vec![error]));
}

#[test]
fn has_trace() {
    check_all(
        "assert P :[has trace]: <a, b, a>
assert P :[has trace]: <a, a>
assert not P :[has trace]: <b>
assert LateDiv :[has trace [FD]]: <b, c>
assert LateDiv :[has trace [T]]: <b, c>
",
        &[
            PASS,
            fail(Kind::Trace, &["a"], Some("a")),
            PASS,
            PASS,
            fail(Kind::Trace, &["b"], Some("c")),
        ],
    );
}

#[test]
fn tau_priority_removes_events_where_tau_is_possible() {
    check_all(
        "assert (tock -> STOP [> STOP) :[has trace]: <tock>
assert (tock -> STOP [> STOP) :[has trace]: <tock> :[tau priority over]: {tock}
assert (tock -> STOP [] (b -> STOP)) :[has trace]: <tock> :[tau priority over]: {tock}
",
        &[PASS, fail(Kind::Trace, &[], Some("tock")), PASS],
    );
}

#[test]
fn symmetry_reduce_reduces_and_symmetric_is_the_static_check() {
    let script = Script::load_str(
        "test.csp",
        "datatype T = A | B | C\nchannel left, right : T\nCOPY = left?x -> right!x -> COPY\n\
         ONE = left!A -> ONE\n\
         assert COPY [T= COPY :[symmetry reduce]: T\nassert COPY :[symmetric]: T\n\
         assert ONE :[symmetric]: T\nassert not ONE :[symmetric]: T\n\
         assert ONE :[symmetric]: diff(T, {A})\nassert COPY :[symmetric]: {left.A}\n",
    )
    .expect("loads");
    let result = run(&script, 0, &Budget::default());
    assert_eq!(result.verdict, Verdict::Passed);
    assert!(result.notes.is_empty(), "{:?}", result.notes);
    // COPY's states are itself and one per value held: A, B and C are
    // one class, so two representatives.
    assert_eq!(result.states, 2);
    let reduced = result.symmetry.expect("reduced");
    assert_eq!(reduced.types, [("T".to_string(), 3)]);
    assert_eq!(reduced.group_order.value().to_string(), "6");
    let verdict = |i| {
        let r = run(&script, i, &Budget::default());
        assert!(!r.searched, "a static check explores nothing");
        (r.verdict, r.reasons.len())
    };
    assert_eq!(verdict(1), (Verdict::Passed, 0));
    // ONE names A: not symmetric in T (one reason), symmetric without A.
    assert_eq!(verdict(2), (Verdict::Failed, 1));
    assert_eq!(verdict(3), (Verdict::Passed, 1));
    assert_eq!(verdict(4), (Verdict::Passed, 0));
    let error = symcsp::stack::with_large_stack(|| check::check(&script, 5, &Budget::default()))
        .expect_err("not a type");
    assert!(
        error
            .message
            .contains("is not a set of datatype constructors"),
        "{}",
        error.message
    );
}

/// Processes that the failures model cannot tell apart and the revivals
/// model can (`S1`, `S2`: the same failures, but only `S2` can accept just
/// `a` and then perform it), and processes with the same revivals that
/// refusal testing tells apart (`T1`, `T2`: after refusing all but `a`,
/// only `T2` goes on to `b`).
const REVIVALS: &str = "
S1 = (a -> STOP [] b -> STOP) |~| STOP
S2 = a -> STOP |~| b -> STOP |~| STOP
T1 = (a -> b -> STOP [] c -> STOP) |~| (a -> STOP)
T2 = (a -> STOP [] c -> STOP) |~| (a -> b -> STOP)
";

#[test]
fn revivals_refinement() {
    check_all(
        &format!(
            "{REVIVALS}assert S1 [F= S2
assert S1 [V= S2
assert S2 [V= S1
assert T1 [V= T2
assert T1 [V= a -> STOP
assert S1 [V= Hidden
assert S1 [VD= Hidden
assert DIV [VD= S2
assert (a -> STOP [] SKIP) [V= SKIP
assert SKIP [V= (a -> STOP [] SKIP)
assert S2 :[deadlock free [V]]
assert E :[deterministic [VD]]
"
        ),
        &[
            PASS,
            fail(Kind::Trace, &[], Some("a")),
            PASS,
            PASS,
            PASS,
            PASS,
            fail(Kind::Divergence, &[], None),
            PASS,
            PASS,
            fail(Kind::Trace, &[], Some("a")),
            fail(Kind::Deadlock, &[], None),
            PASS,
        ],
    );
}

#[test]
fn refusal_testing_refinement() {
    check_all(
        &format!(
            "{REVIVALS}assert S1 [R= S2
assert S2 [R= S1
assert T1 [R= T2
assert T1 [F= T2
assert T2 [R= T1
assert S1 [R= Hidden
assert S1 [RD= Hidden
assert DIV [RD= T2
assert T2 [RD= T2
assert SKIP [R= SKIP
"
        ),
        &[
            fail(Kind::Trace, &[], Some("a")),
            PASS,
            fail(Kind::Trace, &["a"], Some("b")),
            PASS,
            fail(Kind::Refusal, &["a"], None),
            PASS,
            fail(Kind::Divergence, &[], None),
            PASS,
            PASS,
            PASS,
        ],
    );
}

/// Checks `assertion` (over [`REVIVALS`]): it fails, with `note`.
#[track_caller]
fn fails_with_note(assertion: &str, note: &str) {
    let script = load(&format!("{REVIVALS}{assertion}\n"));
    let result = run(&script, 0, &Budget::default());
    assert_eq!(result.verdict, Verdict::Failed);
    assert!(result.notes.iter().any(|n| n == note), "{:?}", result.notes);
}

#[test]
fn a_revival_the_specification_lacks_is_explained() {
    fails_with_note(
        "assert S1 [V= S2",
        "the state before the last step is stable and accepts only {a}: the specification \
         cannot perform the last event after refusing the rest",
    );
}

/// `<a, b>` is a trace of T1: what it lacks is `b` after refusing `c`
/// at the first stable state. The note says the refusals count.
#[test]
fn a_refusal_testing_failure_says_the_refusals_count() {
    fails_with_note(
        "assert T1 [R= T2",
        "in the refusal-testing model the specification is held to what the stable states \
         along the path refuse as well as to the trace, so the trace itself may be one of its \
         own",
    );
}

#[test]
fn bad_operands_are_diagnostics() {
    let script = load("assert P [T= P\nassert P :[has trace]: <a, 3>\nassert P [T= 3\n");
    let messages: Vec<String> = (1..3)
        .map(|i| {
            let d =
                symcsp::stack::with_large_stack(|| check::check(&script, i, &Budget::default()))
                    .expect_err("an error");
            assert!(d.span.is_some(), "the diagnostic has a place");
            d.message
        })
        .collect();
    assert_eq!(messages[0], "3 is not an event of any channel");
    assert_eq!(messages[1], "expected a process, but this is an integer");
}

#[test]
fn budgets_end_a_check_inconclusive_with_the_counts_so_far() {
    let script = Script::load_str(
        "big.csp",
        "channel up\nCount(n) = n < 100000 & up -> Count(n + 1)\n\
         assert Count(0) :[divergence free]\nassert Count(0) :[deadlock free]\n",
    )
    .expect("loads");
    let small = Budget {
        max_states: Some(500),
        ..Budget::default()
    };
    let result = run(&script, 0, &small);
    assert_eq!(result.verdict, Verdict::Inconclusive(Stopped::StateBudget));
    // Exactly the budget: a state past it is never stored.
    assert_eq!(result.states, 500);
    assert!(result.counterexample.is_none());
    let quick = Budget {
        timeout: Some(std::time::Duration::ZERO),
        ..Budget::default()
    };
    let result = run(&script, 1, &quick);
    assert_eq!(result.verdict, Verdict::Inconclusive(Stopped::Timeout));
    // Without a budget the deadlock at the end of the count is found,
    // at depth 100 000.
    let result = run(&script, 1, &Budget::default());
    assert_eq!(result.verdict, Verdict::Failed);
    assert_eq!(result.states, 100_001);
    assert_eq!(result.counterexample.expect("one").trace().len(), 100_000);
}

#[test]
fn a_worker_reports_progress_and_can_be_cancelled() {
    let script = std::sync::Arc::new(
        Script::load_str(
            "cells.csp",
            "channel put : {0..6}.{0..9}\nCell(i, v) = put.i.v -> Cell(i, (v + 1) % 10)\n\
             System = ||| i : {0..6} @ Cell(i, 0)\nassert System :[deadlock free]\n",
        )
        .expect("loads"),
    );
    let handle = check::worker::CheckHandle::spawn(script.clone(), 0, Budget::default());
    // Wait until it is under way, then cancel.
    let started = std::time::Instant::now();
    while handle.progress().states < 10_000
        && !handle.is_finished()
        && started.elapsed().as_secs() < 60
    {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    handle.cancel();
    let result = handle.join().expect("no error");
    assert_eq!(result.verdict, Verdict::Inconclusive(Stopped::Cancelled));
    assert!(result.states >= 10_000 && result.states < 10_000_000);
    // A small check on a worker runs to its verdict.
    let done = check::worker::CheckHandle::spawn(
        std::sync::Arc::new(load("assert P [T= Q\n")),
        0,
        Budget::default(),
    );
    let result = done.join().expect("no error");
    assert_eq!(result.verdict, Verdict::Failed);
}

#[test]
fn each_component_of_a_hidden_synchronisation_names_the_shared_event() {
    // Cell(1) can reach itself by put.1 or by get.1; only the User's
    // partner event tells which one the hidden step was. The User's
    // states print without the comments of its source.
    let script = Script::load_str(
        "cell.csp",
        "channel put, get : {0, 1}
channel done
Cell(v) = put?w -> Cell(w) [] get!v -> Cell(v)
User = put!1 -> -- hand a value over
  get?x -> {- then -} done -> STOP
System = (Cell(0) [| {| put, get |} |] User) \\ {| put, get |}
assert STOP [T= System
",
    )
    .expect("the script loads");
    let result = run(&script, 0, &Budget::default());
    let cx = words(&script, &result.counterexample.expect("a counterexample"));
    let moves = |c: usize| -> Vec<(usize, &str, &str)> {
        cx.components[c]
            .moves
            .iter()
            .map(|m| (m.step, m.event.as_str(), m.state.as_str()))
            .collect()
    };
    assert!(cx.trace.is_empty());
    assert_eq!(cx.error_event.as_deref(), Some("done"));
    assert_eq!(
        moves(0),
        [(0, "put.1", "Cell(1)"), (1, "get.1", "Cell(1)")],
        "the cell"
    );
    assert_eq!(
        moves(1),
        [
            (0, "put.1", "get?x -> done -> STOP"),
            (1, "get.1", "done -> STOP"),
            (2, "done", "STOP")
        ],
        "the user"
    );
}

#[test]
fn a_divergence_counterexample_ends_with_its_tau_loop() {
    // Ring(0) passes a token round three places, all hidden; LateDiv
    // diverges after b, on a one-step loop.
    let script = load(
        "channel pass : {0..2}
Ring(i) = pass.i -> Ring((i + 1) % 3)
assert (c -> Ring(0)) \\ {| pass |} :[divergence free]
assert b -> STOP [FD= LateDiv
",
    );
    let cx = run(&script, 0, &Budget::default())
        .counterexample
        .expect("a counterexample");
    let shown = words(&script, &cx);
    let events: Vec<&str> = shown.steps.iter().map(|s| s.event.as_str()).collect();
    assert_eq!(events, ["c", "τ", "τ", "τ"]);
    let hidden: Vec<Option<&str>> = shown.steps.iter().map(|s| s.hidden.as_deref()).collect();
    assert_eq!(
        hidden,
        [None, Some("pass.0"), Some("pass.1"), Some("pass.2")]
    );
    assert_eq!(cx.loop_from, Some(1));
    assert_eq!(shown.loop_steps().as_deref(), Some("steps 2–4"));
    let own: Vec<&str> = shown.components[0]
        .moves
        .iter()
        .map(|m| m.event.as_str())
        .collect();
    assert_eq!(own, ["c", "pass.0", "pass.1", "pass.2"]);
    replay(&script, 0, &cx);
    // In a refinement, the implementation's divergence the same way.
    let cx = run(&script, 1, &Budget::default())
        .counterexample
        .expect("a counterexample");
    let shown = words(&script, &cx);
    assert_eq!(cx.kind, Kind::Divergence);
    assert_eq!(shown.trace, ["b"]);
    assert_eq!(shown.loop_steps().as_deref(), Some("step 2"));
    replay(&script, 1, &cx);
}

/// The event a τ is labelled with is one the system really performed at
/// that step: when two hidden events take a component to the same state
/// and only one of them is possible, the label is that one. Shown by the
/// counterexample and by the animator's list of moves alike.
#[test]
fn a_tau_is_labelled_with_the_hidden_event_really_performed() {
    let script = Script::load_str(
        "hidden.csp",
        "channel a, b, c
P = a -> R [] b -> R
R = c -> STOP
-- a is refused by the STOP: the step is b.
Sys = (P [| {a} |] STOP) \\ {a, b}
datatype Node = N0 | N1
channel start : Node
channel pass : Node.Node
-- The bug the label must show: each node passes the token to itself.
-- start is refused (the STOP), so every loop is a pass.
Ring = ((||| i : Node @ Cell(i)) [| {| start |} |] STOP) \\ {| start, pass |}
Cell(i) = start.i -> Cell(i) [] pass.i.i -> Cell(i)
-- Renamed, then hidden: the label is what the component performed (b,
-- renamed to d); its a is refused by the STOP.
channel d
Renamed = ((P [[ b <- d ]]) [| {a} |] STOP) \\ {d}
assert Sys :[deadlock free]
assert Ring :[divergence free]
assert Renamed :[deadlock free]
",
    )
    .expect("the script loads");
    let labels = |index: usize| -> Vec<(String, Option<String>)> {
        let result = run(&script, index, &Budget::default());
        let cx = result.counterexample.expect("a counterexample");
        replay(&script, index, &cx);
        words(&script, &cx)
            .steps
            .into_iter()
            .map(|s| (s.event, s.hidden))
            .collect()
    };
    let tau = |hidden: &str| ("τ".to_string(), Some(hidden.to_string()));
    assert_eq!(labels(0), vec![tau("b"), ("c".to_string(), None)]);
    let ring = labels(1);
    assert!(!ring.is_empty());
    assert!(
        ring.iter()
            .all(|step| *step == tau("pass.N0.N0") || *step == tau("pass.N1.N1")),
        "{ring:?}"
    );
    assert_eq!(labels(2), vec![tau("b"), ("c".to_string(), None)]);

    // The animator lists the same labels.
    symcsp::stack::with_large_stack(|| {
        let sys = script.assertions[0].kind.implementation();
        let mut animator = symcsp::lts::animator::Animator::load(&script, sys).expect("loads");
        let initial = animator.initial();
        let enabled = animator.enabled(&initial).expect("moves");
        let shown: Vec<(String, Option<String>)> = enabled
            .iter()
            .map(|e| (e.label.clone(), e.hidden.clone()))
            .collect();
        assert_eq!(shown, vec![tau("b")]);
        let own: Vec<String> = enabled[0]
            .participants
            .iter()
            .map(|p| p.own_event.clone())
            .collect();
        assert_eq!(own, vec!["b".to_string()]);
    });
}

/// Issue 66: a divergence is reported as soon as its τ-cycle closes,
/// and shown as a shortest lasso from the divergent state (the fewest
/// τs after which a state repeats): at the root, after visible events,
/// behind τs that lead nowhere divergent, and where the shortest loop is
/// not through the first state the search came to on it. Each is
/// replayed; `(prefix, loop)` are the τs before the loop and in it, the
/// fewest there are.
#[test]
fn a_divergence_is_shown_as_a_shortest_lasso() {
    let text = "channel a, b, c, d, e, go
channel tick : {0..59}
channel step : {0..9}
Ring = a -> b -> c -> d -> e -> Ring
Clock(n) = tick.n -> Clock((n + 1) % 60)
-- The initial state on a five-step τ-cycle, beside a sixty-step one.
AtRoot = (Clock(0) ||| Ring) \\ Events
-- The same after two visible events.
Deep = go -> go -> AtRoot
-- τs through ten states that diverge nowhere, then the ring.
Chain(n) = if n == 9 then Ring else step.n -> Chain(n + 1)
Behind = (Chain(0) ||| Clock(0)) \\ {| step, a, b, c, d, e |}
-- From the start: τ to L or R; L to M; R to M; M to R. The loop R, M
-- (two steps) is reached through R, not through L, which the search
-- came to first.
L = b -> M
R = c -> M
M = d -> R
Fork = (a -> L [] a -> R) \\ {a, b, c, d}
-- From the start: τ to A or B; A to C, B to D, C to B, D to A. The one
-- loop, A C B D, is reached by both, and no τ goes back to a state on a
-- shortest path to where it leaves from.
A = b -> C
B = c -> D
C = d -> B
D = e -> A
Cross = (a -> A [] a -> B) \\ {a, b, c, d, e}
assert AtRoot :[divergence free]
assert Deep :[divergence free]
assert Behind :[divergence free]
assert Fork :[divergence free]
assert Cross :[divergence free]
";
    let script = Script::load_str("lassos.csp", text).expect("the script loads");
    for (index, trace, (prefix, round), most_states) in [
        (0, &[][..], (0, 5), 40),
        (1, &["go", "go"][..], (0, 5), 60),
        (2, &[][..], (9, 5), 2_000),
        (3, &[][..], (1, 2), 10),
        (4, &[][..], (1, 4), 10),
    ] {
        // The states stored, as the progress shows them (the result
        // counts up to the divergent state's level only).
        let live = std::sync::Arc::new(symcsp::budget::Live::default());
        let budget = Budget {
            live: Some(live.clone()),
            ..Budget::default()
        };
        let result = run(&script, index, &budget);
        assert_eq!(result.verdict, Verdict::Failed, "assertion {}", index + 1);
        let stored = live.states.load(std::sync::atomic::Ordering::Relaxed);
        assert!(
            stored <= most_states && result.states <= stored,
            "assertion {}: {stored} states stored, {} counted",
            index + 1,
            result.states
        );
        let cx = result.counterexample.as_ref().expect("a counterexample");
        let shown = words(&script, cx);
        assert_eq!(shown.kind, Kind::Divergence);
        // Counted through the level of the first state that diverges
        // (it can reach the loop by τs): here each is reached by the
        // visible events alone.
        assert_eq!(
            result.depth as usize,
            trace.len(),
            "assertion {}",
            index + 1
        );
        assert_eq!(shown.trace, trace, "assertion {}", index + 1);
        let loop_from = cx.loop_from.expect("a τ-loop");
        let visible = trace.len();
        assert_eq!(
            (loop_from - visible, cx.steps.len() - loop_from),
            (prefix, round),
            "assertion {}: {:?}",
            index + 1,
            shown
                .steps
                .iter()
                .map(|s| s.event.as_str())
                .collect::<Vec<_>>()
        );
        replay(&script, index, cx);
    }
}
