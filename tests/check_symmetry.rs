//! Checks reduced by symmetry against the same checks unreduced: every
//! assertion of every model gives the same verdict both ways, with no
//! more representatives than states and a counterexample of the same
//! length that replays on the unreduced system; systems whose orbits
//! have closed forms get exactly that many representatives.

use symcsp::check::counterexample::{Counterexample, Kind};
use symcsp::check::{self, CheckResult, Verdict, trace};
use symcsp::lts::machine::Machine;
use symcsp::lts::search::Budget;
use symcsp::process::{Processes, TAU};
use symcsp::script::Script;
use symcsp::script::ir::AssertionKind;
use symcsp::symmetry::spec::Reduce;

fn run(script: &Script, index: usize, reduce: &Reduce) -> CheckResult {
    symcsp::stack::with_large_stack(|| {
        check::check_reduced(script, index, &Budget::default(), Some(reduce))
    })
    .unwrap_or_else(|d| panic!("{}", d.render(&script.sources)))
}

/// Whether `cx`'s path (τ included, the error event too when the
/// implementation performs it) is a behaviour of the assertion's
/// implementation, replayed on a fresh unreduced machine.
fn replays(script: &Script, index: usize, cx: &Counterexample) -> bool {
    let imp = script.assertions[index].kind.implementation();
    let path: Vec<_> = cx.steps.iter().map(|s| s.event).collect();
    if let Some(from) = cx.loop_from {
        // The τ-loop goes back to the state before it: once round is
        // still a path.
        assert!(path[from..].iter().all(|&e| e == TAU));
    }
    symcsp::stack::with_large_stack(|| {
        let (mut procs, root) = Processes::with_root(script, imp).expect("a process");
        let mut machine = Machine::new(&mut procs, root).expect("the machine compiles");
        let reached = trace::replay(&mut machine, &mut procs, &path).expect("replays");
        !reached.is_empty()
    })
}

/// Every searched assertion of `models/{name}.csp`, unreduced and reduced
/// automatically.
fn agree(name: &str) {
    agree_as(name, Reduce::Automatic);
}

/// Every searched assertion of `models/{name}.csp`, unreduced and reduced
/// as `reduce` asks.
fn agree_as(name: &str, reduce: Reduce) {
    let path = format!("models/{name}.csp");
    let script = Script::load_file(path.as_ref()).expect("a model loads");
    for (index, assertion) in script.assertions.iter().enumerate() {
        if matches!(assertion.kind, AssertionKind::Symmetric { .. }) {
            continue;
        }
        let follows_a_trace = matches!(assertion.kind, AssertionKind::HasTrace { .. });
        let plain = run(&script, index, &Reduce::Off);
        let reduced = run(&script, index, &reduce);
        let what = format!("{path}: assert {}", index + 1);
        assert!(plain.symmetry.is_none(), "{what}: off is not reduced");
        assert_eq!(plain.verdict, reduced.verdict, "{what}: verdicts");
        assert!(
            reduced.states <= plain.states,
            "{what}: {} representatives, {} states",
            reduced.states,
            plain.states
        );
        // A trace's walk explores only the states along the trace: it may
        // have nothing to reduce.
        if reduce == Reduce::Automatic
            && reduced.symmetry.is_some()
            && name != "tokenring"
            && !follows_a_trace
        {
            assert!(reduced.states < plain.states, "{what}: nothing reduced");
        }
        match (&plain.counterexample, &reduced.counterexample) {
            (None, None) => {}
            (Some(a), Some(b)) => {
                assert_eq!(a.kind, b.kind, "{what}: kinds of counterexample");
                // A breadth-first search of the reduced product finds the
                // violation at the same depth (Lemma 20 keeps lengths).
                assert_eq!(a.steps.len(), b.steps.len(), "{what}: path lengths");
                assert_eq!(a.loop_from, b.loop_from, "{what}: τ-loops");
                assert!(replays(&script, index, b), "{what}: replays");
                if b.kind == Kind::Trace && b.ends_with_error {
                    assert!(b.error_event.is_some(), "{what}: an error event");
                }
            }
            _ => panic!("{what}: a counterexample one way only"),
        }
    }
}

macro_rules! models {
    ($($name:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                agree(stringify!($name));
            }
        )*

        /// The same under the structural group (issue 51), where the
        /// model has one.
        mod structurally {
            $(
                #[test]
                fn $name() {
                    super::agree_as(stringify!($name), super::Reduce::Structural);
                }
            )*
        }
    };
}

models!(
    buffers,
    database,
    diningring,
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

const TRACES: &str = "\
datatype T = A | B | C
channel c, d, b : T
channel a
-- Two values in turn, then the first again if they were equal.
Same = c?x -> c?y -> (if x == y then d!x -> STOP else STOP)
-- Two different values in turn, then the first.
Differ = c?x -> c?y -> (x != y & d!x -> STOP)
-- Three cells, each passing on what it holds.
Cell(x) = c!x -> d?y -> Cell(y)
Cells = ||| x : T @ Cell(x)
assert Same :[has trace]: <c.A, c.A, d.A>
assert Same :[has trace]: <c.A, c.B, d.A>
assert Same :[has trace]: <c.C, c.C, d.B>
assert Differ :[has trace]: <c.B, c.A, d.B>
assert Differ :[has trace]: <c.A, c.A, d.A>
assert Differ :[has trace]: <c.A, c.B, d.B>
assert Cells :[has trace]: <c.A, c.B, d.A, c.A>
assert Cells :[has trace]: <c.A, c.A>
assert not Cells :[has trace]: <c.B, d.B, c.B, d.C, c.C>
-- Three workers, in any order, each then finishing inside.
Hidden = (||| x : T @ a -> b.x -> STOP) \\ {| b |}
assert Hidden :[has trace]: <a, a, a, a>
";

#[test]
fn a_given_trace_is_followed_reduced_by_a_partial_bijection_of_its_values() {
    let script = Script::load_str("traces.csp", TRACES).expect("loads");
    let expected = [
        Verdict::Passed,
        Verdict::Failed,
        Verdict::Failed,
        Verdict::Passed,
        Verdict::Failed,
        Verdict::Failed,
        Verdict::Passed,
        Verdict::Failed,
        Verdict::Failed,
        Verdict::Failed,
    ];
    for (index, &verdict) in expected.iter().enumerate() {
        let plain = run(&script, index, &Reduce::Off);
        let reduced = run(&script, index, &Reduce::Automatic);
        let what = format!("assert {}", index + 1);
        assert_eq!(plain.verdict, verdict, "{what} unreduced");
        assert_eq!(reduced.verdict, verdict, "{what} reduced");
        let symmetry = reduced.symmetry.as_ref().expect("reduced");
        assert_eq!(symmetry.type_list(), "T (3)", "{what}");
        assert!(reduced.states <= plain.states, "{what}");
        // The run shown (the whole trace, or as far as it goes) is a run
        // of the real process, unwound from the representatives.
        let (a, b) = (plain.counterexample, reduced.counterexample);
        if let (Some(a), Some(b)) = (&a, &b) {
            assert_eq!(a.steps.len(), b.steps.len(), "{what}: the runs' lengths");
            assert!(replays(&script, index, b), "{what}: replays");
            assert_eq!(a.trace(), b.trace(), "{what}: the same events");
        }
        assert_eq!(a.is_some(), b.is_some(), "{what}");
    }
    // The trace names no value of T, and asks for one a too many: the
    // walk meets every state. Unreduced, each worker is waiting, started
    // or done: 3^3 states; reduced, one representative per multiset of
    // those places: C(3 + 3 - 1, 3) = 10.
    let plain = run(&script, 9, &Reduce::Off);
    let reduced = run(&script, 9, &Reduce::Automatic);
    assert_eq!((reduced.states, plain.states), (10, 27));
}

/// The representatives and states of `assert System :[deadlock free]` in
/// `script`, reduced by its `:[symmetry reduce]` and not.
fn deadlock_counts(text: &str) -> (u64, u64) {
    let script = Script::load_str("closed_form.csp", text).expect("loads");
    let reduced = run(&script, 0, &Reduce::of_assertion(&script.assertions[0]));
    let plain = run(&script, 0, &Reduce::Off);
    assert!(reduced.symmetry.is_some(), "reduced");
    assert_eq!(reduced.verdict, plain.verdict);
    (reduced.states, plain.states)
}

fn binomial(n: u64, k: u64) -> u64 {
    (0..k).fold(1, |acc, i| acc * (n - i) / (i + 1))
}

/// Names of `n` values of a datatype: `V0 | V1 | ...`.
fn values(prefix: &str, n: usize) -> String {
    (0..n)
        .map(|i| format!("{prefix}{i}"))
        .collect::<Vec<_>>()
        .join(" | ")
}

#[test]
fn interleaved_copies_have_multiset_many_orbits() {
    // N copies of a k-state cycle, indexed by a datatype of N values: a
    // class is how many copies are in each of the k states, one of
    // C(N + k - 1, N) multisets.
    for (n, k) in [(2, 2), (3, 3), (4, 3), (5, 2), (3, 5)] {
        let steps: Vec<String> = (0..k).map(|s| format!("s{s}.i")).collect();
        let text = format!(
            "datatype Id = {}\nchannel {} : Id\nCopy(i) = {} -> Copy(i)\n\
             System = ||| i : Id @ Copy(i)\n\
             assert System :[deadlock free] :[symmetry reduce]: Id\n",
            values("I", n),
            (0..k)
                .map(|s| format!("s{s}"))
                .collect::<Vec<_>>()
                .join(", "),
            steps.join(" -> ")
        );
        let (representatives, states) = deadlock_counts(&text);
        assert_eq!(states, (k as u64).pow(n as u32), "N = {n}, k = {k}");
        assert_eq!(
            representatives,
            binomial((n + k - 1) as u64, n as u64),
            "N = {n}, k = {k}"
        );
    }
}

/// Stirling numbers of the second kind, S(n, k).
fn stirling(n: u64, k: u64) -> u64 {
    match (n, k) {
        (0, 0) => 1,
        (_, 0) | (0, _) => 0,
        _ => k * stirling(n - 1, k) + stirling(n - 1, k - 1),
    }
}

#[test]
fn slots_of_symmetric_data_have_restricted_growth_many_orbits() {
    // m numbered slots, each empty or holding one of d data values that
    // may be permuted: a class is which slots are full and which of them
    // hold equal values (a restricted growth string over the full ones,
    // with at most d letters).
    for (m, d) in [(2u64, 2u64), (3, 2), (3, 3), (4, 2), (4, 4)] {
        let text = format!(
            "datatype Data = {}\nchannel put, get : {{0..{}}}.Data\n\
             Slot(i) = put.i?x -> get.i!x -> Slot(i)\n\
             System = ||| i : {{0..{}}} @ Slot(i)\n\
             assert System :[deadlock free] :[symmetry reduce]: Data\n",
            values("D", d as usize),
            m - 1,
            m - 1
        );
        let (representatives, states) = deadlock_counts(&text);
        let expected: u64 = (0..=m)
            .map(|full| {
                binomial(m, full) * (0..=full.min(d)).map(|b| stirling(full, b)).sum::<u64>()
            })
            .sum();
        assert_eq!(states, (d + 1).pow(m as u32), "m = {m}, d = {d}");
        assert_eq!(representatives, expected, "m = {m}, d = {d}");
    }
}

const UNSAFE: &str = "
datatype T = A | B | C
channel enter, leave : T
User(i) = enter.i -> leave.i -> User(i)
Users = ||| i : T @ User(i)
Mutex = enter?i -> leave!i -> Mutex
assert Mutex [T= Users :[symmetry reduce]: T
assert Mutex [F= Users :[symmetry reduce]: T
assert Users :[deadlock free] :[symmetry reduce]: T
assert Mutex :[deterministic] :[symmetry reduce]: T
assert (Users [| {| enter |} |] Mutex) \\ {| enter |} :[divergence free] :[symmetry reduce]: T
";

#[test]
fn a_failing_reduced_check_unwinds_into_a_genuine_counterexample() {
    let script = Script::load_str("unsafe.csp", UNSAFE).expect("loads");
    for index in 0..script.assertions.len() {
        let reduced = run(
            &script,
            index,
            &Reduce::of_assertion(&script.assertions[index]),
        );
        let plain = run(&script, index, &Reduce::Off);
        assert!(reduced.symmetry.is_some(), "assert {}", index + 1);
        assert_eq!(reduced.verdict, plain.verdict, "assert {}", index + 1);
        if let Some(cx) = &reduced.counterexample {
            assert!(replays(&script, index, cx), "assert {}", index + 1);
        }
    }
    // The spec's node is permuted along: after enter.X only leave.X.
    let first = run(&script, 0, &Reduce::Automatic);
    assert_eq!(first.verdict, Verdict::Failed);
    let cx = first.counterexample.expect("a counterexample");
    let procs = symcsp::stack::with_large_stack(|| Processes::new(&script).expect("ok"));
    let shown: Vec<String> = cx.steps.iter().map(|s| procs.show_event(s.event)).collect();
    assert_eq!(shown.len(), 2);
    assert!(shown[0].starts_with("enter.") && shown[1].starts_with("enter."));
    assert_ne!(shown[0], shown[1]);
}

#[test]
fn a_request_the_script_does_not_support_is_refused_with_reasons() {
    let text = "
datatype T = A | B | C
channel c : T
P(i) = c.i -> P(i)
System = ||| i : T @ P(i)
Special = c.A -> Special
assert Special [T= System :[symmetry reduce]: T
assert System :[deadlock free] :[symmetry reduce]: T
assert System [| {c.A} |] STOP :[deadlock free] :[symmetry reduce]: T
";
    let script = Script::load_str("refused.csp", text).expect("loads");
    let refusal = |index: usize, reduce: Option<&Reduce>| {
        symcsp::stack::with_large_stack(|| {
            check::check_reduced(&script, index, &Budget::default(), reduce)
        })
        .expect_err("refused")
        .render(&script.sources)
    };
    // The specification names A.
    let named = refusal(0, None);
    assert!(named.contains("cannot be reduced by symmetry"), "{named}");
    assert!(named.contains("A is named here"), "{named}");
    // The same check runs without reduction when asked.
    assert_eq!(run(&script, 0, &Reduce::Off).verdict, Verdict::Failed);
    // Automatic mode leaves A out, so T permutes B and C only, and the
    // specification is symmetric in them; the set is called what it is.
    let auto = run(&script, 0, &Reduce::Automatic);
    assert_eq!(auto.verdict, Verdict::Failed);
    assert_eq!(
        auto.symmetry.expect("reduced").types,
        [("T less A".to_string(), 2)]
    );
    // Asked for all of T, the synchronisation set's A is a reason too.
    let rendered = refusal(2, None);
    assert!(rendered.contains("cannot be reduced"), "{rendered}");
    // Automatically, A is left out: B and C are exchanged, {c.A} stays.
    let auto = run(&script, 2, &Reduce::Automatic);
    assert_eq!(auto.verdict, Verdict::Passed);
    assert_eq!(auto.states, 1);
    assert_eq!(
        auto.symmetry.expect("reduced").types,
        [("T less A".to_string(), 2)]
    );
}

#[test]
fn a_reduced_check_finds_the_same_representatives_on_any_number_of_threads() {
    // ListStack's reduced assertion at the paper's (6, 4, 3), big enough that blocks
    // of successors are split between threads, and the philosophers'
    // failing reduced deadlock check with its counterexample.
    let list = std::fs::read_to_string("models/liststack.csp")
        .unwrap()
        .replace(
            "datatype NodeIDType = Null | N0 | N1 | N2",
            "datatype NodeIDType = Null | N0 | N1 | N2 | N3 | N4 | N5",
        )
        .replace("datatype Data = A | B", "datatype Data = A | B | C | D")
        .replace(
            "datatype ThreadID = T0 | T1",
            "datatype ThreadID = T0 | T1 | T2",
        );
    let philosophers = std::fs::read_to_string("models/philosophers.csp").unwrap();
    for (path, text, index) in [
        ("liststack (6, 4, 3)", list, 1),
        ("philosophers", philosophers, 3),
    ] {
        let script = Script::load_str(path, &text).expect("a model loads");
        let results: Vec<CheckResult> = [1, 2, 3]
            .iter()
            .map(|&threads| {
                let budget = Budget {
                    threads,
                    ..Budget::default()
                };
                symcsp::stack::with_large_stack(|| {
                    check::check_reduced(&script, index, &budget, Some(&Reduce::Automatic))
                })
                .unwrap_or_else(|d| panic!("{}", d.render(&script.sources)))
            })
            .collect();
        let first = &results[0];
        assert!(first.symmetry.is_some(), "{path}: reduced");
        if path.starts_with("liststack") {
            assert_eq!(first.states, 3_665, "{path}: representatives");
        } else {
            assert!(first.counterexample.is_some(), "{path}: a counterexample");
        }
        for other in &results[1..] {
            assert_eq!(other.verdict, first.verdict, "{path}");
            assert_eq!(other.states, first.states, "{path}: representatives");
            assert_eq!(other.transitions, first.transitions, "{path}: transitions");
            let steps = |r: &CheckResult| {
                r.counterexample
                    .as_ref()
                    .map(|cx| cx.steps.iter().map(|s| s.event).collect::<Vec<_>>())
            };
            assert_eq!(steps(other), steps(first), "{path}: the counterexample");
        }
    }
}

/// A stack of at most one value short of its nodes under a failures
/// specification with internal choices: its normal-form nodes hold
/// several states, kept as keys under symmetry and made process terms
/// only to be shown.
const SHORT_STACK: &str = "
datatype NodeIDType = Null | N0 | N1 | N2
NodeID = diff(NodeIDType, {Null})
datatype Data = A | B
datatype ThreadID = T0 | T1
channel initNode : ThreadID.NodeID.Data.NodeIDType
channel freeNode : ThreadID.NodeID
channel getTop, setTop : ThreadID.NodeIDType
channel getNext : ThreadID.NodeID.NodeIDType
channel getDatum : ThreadID.NodeID.Data
channel lock, unlock : ThreadID
channel push, pop : ThreadID.Data
channel popEmpty : ThreadID
FreeNode(me) = initNode?t!me?d?next -> Node(me, d, next)
Node(me, d, next) = getDatum?t!me!d -> Node(me, d, next)
  [] getNext?t!me!next -> Node(me, d, next) [] freeNode?t!me -> FreeNode(me)
Top(top) = getTop?t!top -> Top(top) [] setTop?t?top' -> Top(top')
Lock = lock?t -> unlock!t -> Lock
Thread(me) = lock!me -> (Push(me) [] Pop(me))
Push(me) = [] d : Data @ getTop!me?top -> initNode!me?n!d!top -> setTop!me!n ->
  push!me!d -> unlock!me -> Thread(me)
Pop(me) = getTop!me?top -> if top == Null then popEmpty!me -> unlock!me -> Thread(me)
  else getNext!me!top?next -> setTop!me!next -> getDatum!me!top?d ->
    pop!me!d -> freeNode!me!top -> unlock!me -> Thread(me)
Internal = {| initNode, getDatum, getNext, freeNode, getTop, setTop, lock, unlock |}
System = ((||| t : ThreadID @ Thread(t)) [| Internal |]
  ((||| n : NodeID @ FreeNode(n)) ||| Top(Null) ||| Lock)) \\ Internal
Short(s) = |~| t : ThreadID @ Op(t, s)
Op(t, s) = (if #s < card(NodeID) - 1 then (|~| d : Data @ push!t!d -> Short(<d>^s)) else STOP)
  |~| (if s == <> then popEmpty!t -> Short(s) else pop!t!head(s) -> Short(tail(s)))
assert Short(<>) [F= System :[symmetry reduce]: NodeID, Data, ThreadID
";

#[test]
fn a_normal_form_kept_as_keys_shows_the_specification_states_a_plain_check_shows() {
    let script = Script::load_str("short.csp", SHORT_STACK).expect("loads");
    let reduced = run(&script, 0, &Reduce::of_assertion(&script.assertions[0]));
    let plain = run(&script, 0, &Reduce::Off);
    assert!(reduced.symmetry.is_some());
    assert_eq!(reduced.verdict, Verdict::Failed);
    assert_eq!(plain.verdict, Verdict::Failed);
    let procs = symcsp::stack::with_large_stack(|| Processes::new(&script).expect("ok"));
    // The specification's states after each step, as the user reads them.
    let shown = |cx: &Counterexample| -> Vec<Vec<String>> {
        cx.steps
            .iter()
            .filter_map(|step| step.spec.as_ref())
            .map(|spec| {
                spec.members
                    .iter()
                    .map(|member| procs.show_key(&member[0]))
                    .collect()
            })
            .collect()
    };
    let (reduced_cx, plain_cx) = (
        reduced.counterexample.expect("a counterexample"),
        plain.counterexample.expect("a counterexample"),
    );
    assert!(replays(&script, 0, &reduced_cx));
    let after_reduced = shown(&reduced_cx);
    assert_eq!(after_reduced.last(), shown(&plain_cx).last());
    let last = after_reduced.last().expect("states shown");
    assert_eq!(last[0], "Short(<A, A>)", "{last:?}");
}
