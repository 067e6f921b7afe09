//! Transition lists of small processes for every operator, τ/✓ corner
//! cases included, computed by the plain operational semantics.

use std::collections::BTreeSet;

use symcsp::lts::{Budget, plain};
use symcsp::process::{ProcId, Processes};
use symcsp::script::Script;

const CHANNELS: &str = "channel a, b, c, d\nchannel e : {0..2}\nchannel f : {0..1}.{0..1}\n";

/// FDR's functions a script declares before it uses them (after the
/// definitions, so that their lines are the ones the tests name).
const IMPORTS: &str = "\nexternal chase, chase_nocache, loop, prioritise, prioritise_nocache\ntransparent normal, sbisim, diamond\n";

/// `f` on the process layer of a script of `defs` and the state of
/// `expr` in it, on a large stack.
fn with_process<T: Send>(
    defs: &str,
    expr: &str,
    f: impl FnOnce(&mut Processes, ProcId) -> T + Send,
) -> T {
    let text = format!("{CHANNELS}{defs}{IMPORTS}");
    let mut script = Script::load_str("test.csp", &text).expect("loads");
    let func = script.add_expr("<process>", expr).expect("resolves");
    let script = &script;
    symcsp::stack::with_large_stack(|| {
        let (mut procs, root) = Processes::with_root(script, func).expect("a process");
        f(&mut procs, root)
    })
}

/// Every transition reachable from `expr`, as `state -event-> state`
/// lines in breadth-first order of their source.
fn lts(defs: &str, expr: &str) -> Vec<String> {
    with_process(defs, expr, |procs, root| {
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

/// The diagnostic that refuses `expr`, where it is first unfolded:
/// building the process or its first moves.
fn refusal(defs: &str, expr: &str) -> String {
    let mut script = Script::load_str("test.csp", &format!("{CHANNELS}{defs}")).expect("loads");
    let func = script.add_expr("<process>", expr).expect("resolves");
    let script = &script;
    let error = symcsp::stack::with_large_stack(|| {
        Processes::with_root(script, func)
            .and_then(|(mut procs, root)| procs.transitions(root).map(|_| ()))
            .expect_err("refused")
    });
    error.to_diagnostic().render(&script.sources)
}

fn key(x: &symcsp::lts::Exploration) -> (u64, u64, u64) {
    (x.states, x.transitions, x.deadlock_states)
}

/// States, transitions and deadlock states of `expr`, by the plain
/// semantics, after checking that the supercombinator agrees.
fn counts(defs: &str, expr: &str) -> (u64, u64, u64) {
    with_process(defs, expr, |procs, root| {
        let budget = Budget::default();
        let terms = plain::explore_terms(procs, root, &budget).expect("explores");
        let machine = symcsp::lts::explore(procs, root, &budget).expect("explores");
        assert_eq!(
            key(&terms),
            key(&machine),
            "the two paths disagree on {expr}"
        );
        key(&terms)
    })
}

/// States, transitions and deadlock states of `expr` by the
/// supercombinator alone.
fn machine_counts(defs: &str, expr: &str) -> (u64, u64, u64) {
    with_process(defs, expr, |procs, root| {
        key(&symcsp::lts::explore(procs, root, &Budget::default()).expect("explores"))
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

/// A recursion through hiding: each time round would hide once more,
/// but `(P \ B) \ A` is `P \ (A ∪ B)`, so `S` is one state that
/// diverges, not one more `\` a step (which ran until memory ran out).
#[test]
fn a_hiding_of_a_hiding_is_one_hiding() {
    assert_eq!(
        lts("S = (a -> S) \\ {a}", "S"),
        vec!["(a -> S) \\ {a} -τ-> (a -> S) \\ {a}"]
    );
    assert_eq!(
        lts("", "((a -> b -> c -> STOP) \\ {a}) \\ {b}"),
        vec![
            "(a -> b -> c -> STOP) \\ {a, b} -τ-> (b -> c -> STOP) \\ {a, b}",
            "(b -> c -> STOP) \\ {a, b} -τ-> (c -> STOP) \\ {a, b}",
            "(c -> STOP) \\ {a, b} -c-> STOP \\ {a, b}",
        ]
    );
    assert_eq!(
        lts("T = (a -> T [] b -> STOP) \\ {a}", "T \\ {b}"),
        vec![
            "(a -> T [] b -> STOP) \\ {a, b} -τ-> (a -> T [] b -> STOP) \\ {a, b}",
            "(a -> T [] b -> STOP) \\ {a, b} -τ-> STOP \\ {a, b}",
        ]
    );
    // The supercombinator keeps the hiding it was built with as an
    // operator over the prefix, whose states then hide again: one state
    // more than the plain semantics, finite all the same.
    assert_eq!(machine_counts("S = (a -> S) \\ {a}", "S"), (2, 2, 0));
}

/// `chase(P)`: the first τ is taken at once until none is offered; what
/// that state offers is what `chase(P)` offers, and a τ-loop on the way
/// is a divergence.
#[test]
fn chase_takes_the_first_tau_until_none_is_left() {
    // The τ (a hidden) goes before c is offered; b follows.
    assert_eq!(
        lts("", "chase((a -> b -> STOP [] c -> STOP) \\ {a})"),
        vec!["chase((a -> b -> STOP [] c -> STOP) \\ {a}) -b-> chase(STOP \\ {a})",]
    );
    // A chain of τs is one state; ✓ goes on as it is.
    assert_eq!(
        lts("", "chase((a -> a -> b -> SKIP) \\ {a})"),
        vec![
            "chase((a -> a -> b -> SKIP) \\ {a}) -b-> chase(SKIP \\ {a})",
            "chase(SKIP \\ {a}) -✓-> Ω",
        ]
    );
    // τs that loop: chase diverges there, and after a visible event too.
    assert_eq!(
        lts("L = a -> L", "chase(L \\ {a})"),
        vec!["chase(L \\ {a}) -τ-> DIV", "DIV -τ-> DIV"]
    );
    assert_eq!(
        lts("L = a -> L", "chase(b -> L \\ {a})"),
        vec!["chase((b -> L) \\ {a}) -b-> DIV", "DIV -τ-> DIV"]
    );
    // chase_nocache is chase.
    assert_eq!(
        lts("", "chase_nocache((a -> b -> STOP) \\ {a})"),
        vec!["chase((a -> b -> STOP) \\ {a}) -b-> chase(STOP \\ {a})"]
    );
}

/// `P \ A [] Q` is `(P \ A) [] Q` (FDR's rule for a hiding before a
/// process operator): `Q`'s events are offered, not hidden, and the
/// script is not an error (`{a} [] b -> STOP` hid a process).
#[test]
fn a_hiding_before_a_process_operator_hides_its_first_operand() {
    assert_eq!(
        lts("", "a -> STOP \\ {a} [] b -> STOP"),
        [
            "a -> STOP \\ {a} [] b -> STOP -τ-> (STOP \\ {a}) [] (b -> STOP)",
            "a -> STOP \\ {a} [] b -> STOP -b-> STOP",
            "(STOP \\ {a}) [] (b -> STOP) -b-> STOP",
        ]
    );
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

#[test]
fn inputs_bind_the_rest_of_the_event_or_one_field() {
    assert_eq!(
        lts("", "f?x -> STOP"),
        vec![
            "f?x -> STOP -f.0.0-> STOP",
            "f?x -> STOP -f.0.1-> STOP",
            "f?x -> STOP -f.1.0-> STOP",
            "f?x -> STOP -f.1.1-> STOP",
        ]
    );
    assert_eq!(
        lts(
            "",
            "f?x?y:{y' | y' <- {0..1}, y' != x} -> e!(x + y) -> STOP"
        ),
        // What a state holds is worked out (`{0..1}` is `{0, 1}`,
        // `x + y` is 1); two states that then read alike are told apart
        // by their bindings.
        vec![
            "f?x?y:{y' | y' <- {0, 1}, y' != x} -> e!(x + y) -> STOP -f.0.1-> e!1 -> STOP  where \
             x = 0, y = 1",
            "f?x?y:{y' | y' <- {0, 1}, y' != x} -> e!(x + y) -> STOP -f.1.0-> e!1 -> STOP  where \
             x = 1, y = 0",
            "e!1 -> STOP  where x = 0, y = 1 -e.1-> STOP",
            "e!1 -> STOP  where x = 1, y = 0 -e.1-> STOP",
        ]
    );
}

/// FDR splits a dotted input pattern into its parts: each takes one
/// field of the event, a constructor stands for itself, and only the last
/// part of the last field takes the rest (these were prefixes with no
/// events at all).
#[test]
fn a_dotted_input_takes_one_field_per_part() {
    let defs = "channel g : {0..1}.{0..1}.{0..1}\ndatatype T = Pk.{0..1}.{0..1}\n\
                channel h : T.{0..1}\nchannel out : {0..1}.{0..1}\n";
    assert_eq!(
        lts(defs, "g?x.y!1 -> out!x.y -> STOP")[..4],
        [
            "g?x.y!1 -> out!x.y -> STOP -g.0.0.1-> out!0.0 -> STOP",
            "g?x.y!1 -> out!x.y -> STOP -g.0.1.1-> out!0.1 -> STOP",
            "g?x.y!1 -> out!x.y -> STOP -g.1.0.1-> out!1.0 -> STOP",
            "g?x.y!1 -> out!x.y -> STOP -g.1.1.1-> out!1.1 -> STOP",
        ]
    );
    // (states, transitions, deadlocks)
    assert_eq!(counts(defs, "g?x.y?z -> STOP"), (2, 8, 1));
    assert_eq!(counts(defs, "h?Pk.s?t.u -> out!s.u -> STOP"), (6, 12, 1));
    assert_eq!(counts(defs, "g$x.y?z -> STOP"), (6, 12, 1));
    // A dotted last field: its last part takes the rest (two fields).
    assert_eq!(counts(defs, "g?x.y -> out!y -> STOP"), (6, 12, 1));
    // A restricted input that is not the last field takes its set's
    // values, which may span fields, as FDR does (it had no events).
    assert_eq!(counts(defs, "g?x:{0.1}!0 -> STOP"), (2, 1, 1));
    assert_eq!(counts(defs, "g?x:{0.1, 1.1}!0 -> out!x -> STOP"), (4, 4, 1));
    assert_eq!(counts(defs, "g?x:{0, 5}?y -> STOP"), (2, 4, 1));
    // An infinite set restricts the channel's values instead.
    assert_eq!(counts(defs, "g?x:Int!0.1 -> STOP"), (2, 2, 1));
    // A channel named in the pattern is part of the event, as a
    // constructor is.
    let events = "channel inner : {0..1}\nchannel carry : {| inner |}\n";
    assert_eq!(counts(events, "carry?inner.x -> a -> STOP"), (3, 3, 1));
}

#[test]
fn an_input_pattern_naming_a_value_of_another_type_is_refused() {
    let defs = "datatype Coin = Ten | Twenty\ndatatype Colour = Red | Blue\n\
                channel insert : Coin\nchannel pair : Coin.Colour\n";
    for (expr, says) in [
        // `b` is a channel: it stands for itself, it binds nothing.
        (
            "insert?b -> STOP",
            "pattern `b` is a channel, but the values input here are values of datatype Coin \
             (such as Ten)",
        ),
        (
            "insert?Red -> STOP",
            "pattern `Red` is a value of datatype Colour, but the values input here are values \
             of datatype Coin",
        ),
        (
            "e?true -> STOP",
            "pattern `true` is a boolean, but the values input here are integers (such as 0)",
        ),
        // A part of a dotted pattern, as a whole field.
        (
            "pair?x.true -> STOP",
            "pattern `true` is a boolean, but the values input here are values of datatype \
             Colour (such as Red)",
        ),
        // The rest of an event is of its first field's kind.
        (
            "pair?Blue -> STOP",
            "values of datatype Coin (such as Ten.Red)",
        ),
    ] {
        let shown = refusal(defs, expr);
        assert!(shown.contains(says), "{expr}: {shown}");
        assert!(shown.contains("<process>:1:1"), "{expr}: {shown}");
    }
    // So is a set to input from, pointed at where it is written.
    let shown = refusal(defs, "insert?x:{Red, Blue} -> STOP");
    assert!(
        shown.contains(
            "this input's set holds values of datatype Colour (such as Red), but the values \
             input here are values of datatype Coin (such as Ten): none of them can be input here"
        ),
        "{shown}"
    );
    assert!(shown.contains("<process>:1:10"), "{shown}");
    // Of the right type, a set may hold values the channel does not carry.
    assert_eq!(counts(defs, "e?x:{1, 7} -> STOP"), (2, 1, 1));
    // A value of the right type that the channel does not carry is no
    // error (FDR's type checker accepts it): the input offers nothing.
    assert_eq!(counts(defs, "e?5 -> STOP"), (1, 0, 1));
    assert_eq!(counts(defs, "insert?Ten -> STOP"), (2, 1, 1));
    assert_eq!(counts(defs, "pair?Ten -> STOP"), (1, 0, 1));
}

#[test]
fn a_nondeterministic_input_chooses_by_tau() {
    assert_eq!(
        lts("", "e$x:{0, 1} -> STOP"),
        vec![
            "e$x:{0, 1} -> STOP -τ-> e$x:{0, 1} -> STOP {$ 0}",
            "e$x:{0, 1} -> STOP -τ-> e$x:{0, 1} -> STOP {$ 1}",
            "e$x:{0, 1} -> STOP {$ 0} -e.0-> STOP",
            "e$x:{0, 1} -> STOP {$ 1} -e.1-> STOP",
        ]
    );
    // Over no value it is no process, as in FDR (it was STOP), whole or
    // in dotted parts.
    for empty in ["e$x:{} -> STOP", "none$x.y -> STOP"] {
        let shown = refusal("channel none : {0..1}.{}\n", empty);
        assert!(
            shown.contains("a nondeterministic input over no value is not a process"),
            "{empty}: {shown}"
        );
    }
}

#[test]
fn parallel_operators_synchronise_on_their_sets() {
    assert_eq!(
        counts("P = a -> b -> P\nQ = a -> c -> Q", "P [| {a} |] Q"),
        (4, 5, 0)
    );
    assert_eq!(
        counts("P = a -> b -> P\nQ = a -> c -> Q", "P ||| Q"),
        (4, 8, 0)
    );
    assert_eq!(
        counts(
            "P = a -> b -> P\nQ = a -> c -> Q",
            "P [ {a, b} || {a, c} ] Q"
        ),
        (4, 5, 0)
    );
    // Alphabets block what is outside them: P may not do b here.
    assert_eq!(
        counts("P = a -> b -> P\nQ = a -> c -> Q", "P [ {a} || {a, c} ] Q"),
        (3, 2, 1)
    );
    assert_eq!(
        counts("R(i) = e.i -> a -> R(i)", "[| {a} |] i : {0..2} @ R(i)"),
        (8, 13, 0)
    );
    assert_eq!(
        counts("R(i) = e.i -> a -> R(i)", "|| i : {0..2} @ [{e.i, a}] R(i)"),
        (8, 13, 0)
    );
}

#[test]
fn linked_parallel_joins_and_hides_the_linked_events() {
    assert_eq!(
        lts("", "(a -> b -> STOP) [ a <-> c ] (c -> STOP)"),
        vec![
            "(a -> b -> STOP) [a <-> c] (c -> STOP) -τ-> (b -> STOP) [a <-> c] STOP",
            "(b -> STOP) [a <-> c] STOP -b-> STOP [a <-> c] STOP",
        ]
    );
    assert_eq!(
        counts(
            "Cell = e?x -> f.0!(x % 2) -> Cell",
            "[ f.0 <-> e ] i : <1, 2, 3> @ Cell"
        ),
        counts(
            "Cell = e?x -> f.0!(x % 2) -> Cell",
            "Cell [ f.0 <-> e ] (Cell [ f.0 <-> e ] Cell)"
        )
    );
}

/// FDR refuses a linked parallel that names an event twice on one side
/// (it would link one event to two); symcsp linked `c.0` to both.
#[test]
fn a_linked_parallel_naming_an_event_twice_is_an_error() {
    for (linked, twice) in [
        (
            "P [f.0.0 <-> e.0, f.0.0 <-> e.1] Q",
            "f.0.0 is named more than once on the left",
        ),
        (
            "P [f.0.0 <-> e.0, f.1.1 <-> e.0] Q",
            "e.0 is named more than once on the right",
        ),
        (
            "[f.0.0 <-> e.0, f.0.0 <-> e.1] i : <P, Q> @ i",
            "f.0.0 is named more than once on the left",
        ),
    ] {
        let shown = refusal("P = f?x -> P\nQ = e?x -> Q\n", linked);
        assert!(shown.contains(twice), "{linked}: {shown}");
    }
}

#[test]
fn parallel_compositions_terminate_together() {
    // The inner composition has five states (its two operands' four,
    // and Ω after its own ✓); the outer adds the third SKIP and its Ω.
    assert_eq!(counts("", "(SKIP ||| SKIP) ||| SKIP"), (11, 16, 0));
    assert_eq!(
        counts("", "((SKIP ||| SKIP) ||| SKIP) ; a -> STOP"),
        (12, 17, 1)
    );
    assert_eq!(
        counts("", "(a -> SKIP [| {a} |] a -> SKIP) \\ {a}"),
        (6, 6, 0)
    );
    assert_eq!(counts("", "(SKIP [ a <-> b ] SKIP)"), (5, 5, 0));
    assert_eq!(
        counts("", "(SKIP [ {a} || {b} ] SKIP) [[ a <- b ]]"),
        (5, 5, 0)
    );
}

#[test]
fn empty_replications_mean_what_fdr_says() {
    assert_eq!(lts("", "[] x : {} @ e.x -> STOP"), Vec::<String>::new());
    assert_eq!(lts("", "||| x : {} @ e.x -> STOP"), vec!["SKIP -✓-> Ω"]);
    assert_eq!(
        lts("", "[| {a} |] x : {} @ e.x -> STOP"),
        vec!["SKIP -✓-> Ω"]
    );
    // `;` over nothing is SKIP; its control state stays a label of its own.
    assert_eq!(
        lts("", "; x : <> @ e.x -> STOP"),
        vec!["; x : <> @ e.x -> STOP -✓-> Ω"]
    );
    assert_eq!(counts("", "; x : <0, 1, 2> @ e.x -> SKIP"), (7, 6, 0));
}

#[test]
fn chaos_and_run() {
    assert_eq!(counts("", "RUN({a, b})"), (1, 2, 0));
    assert_eq!(
        lts("", "CHAOS({a})"),
        vec![
            "CHAOS({a}) -τ-> STOP",
            "CHAOS({a}) -τ-> [] x : {a} @ x -> CHAOS({a})",
            "[] x : {a} @ x -> CHAOS({a}) -a-> CHAOS({a})",
        ]
    );
}

#[test]
fn exception_sliding_choice_and_synchronising_operators() {
    assert_eq!(
        lts("P = a -> P [] b -> P", "P [| {b} |> c -> STOP"),
        vec![
            "P [| {b} |> (c -> STOP) -a-> P [| {b} |> (c -> STOP)",
            "P [| {b} |> (c -> STOP) -b-> c -> STOP",
            "c -> STOP -c-> STOP",
        ]
    );
    assert_eq!(
        lts("", "(a -> STOP) [> (b -> STOP)"),
        vec![
            "(a -> STOP) [> (b -> STOP) -τ-> b -> STOP",
            "(a -> STOP) [> (b -> STOP) -a-> STOP",
            "b -> STOP -b-> STOP",
        ]
    );
    // Events of A keep a synchronising choice open; others resolve it.
    assert_eq!(
        lts("P = a -> b -> STOP\nQ = a -> c -> STOP", "P [+ {a} +] Q"),
        vec![
            "P [+ {a} +] Q -a-> (b -> STOP) [+ {a} +] (c -> STOP)",
            "(b -> STOP) [+ {a} +] (c -> STOP) -b-> STOP",
            "(b -> STOP) [+ {a} +] (c -> STOP) -c-> STOP",
        ]
    );
    assert_eq!(
        counts(
            "P = a -> P [] b -> STOP\nQ = a -> Q [] c -> STOP",
            "P /+ {a} +\\ Q"
        ),
        (3, 4, 1)
    );
}

#[test]
fn guards_and_loops() {
    assert_eq!(counts("P(n) = n > 0 & a -> P(n - 1)", "P(3)"), (4, 3, 1));
    assert_eq!(counts("", "loop(a -> SKIP)"), (2, 2, 0));
}

#[test]
fn a_function_held_by_a_state_is_the_same_however_often_it_is_built() {
    // Each step builds the closure afresh: equal closures, one state (the
    // lambda of the first call is another function, so another state).
    let defs = "T(g) = e!g(0) -> T(\\x @ x + 1)";
    assert_eq!(counts(defs, "T(\\x @ x + 1)"), (2, 2, 0));
    assert_eq!(
        lts(defs, "T(\\x @ x)"),
        vec![
            "T(\\x @ x) -e.0-> T(\\x @ x + 1)",
            "T(\\x @ x + 1) -e.1-> T(\\x @ x + 1)"
        ]
    );
}

#[test]
fn compressions_are_exact_stand_ins() {
    assert_eq!(
        counts("P = a -> b -> P", "normal(P)"),
        counts("P = a -> b -> P", "P")
    );
    assert_eq!(counts("P = a -> b -> P", "sbisim(diamond(P))"), (2, 2, 0));
}

#[test]
fn event_sets_print_whole_channels_as_productions() {
    // Every event of e and f: productions; part of a channel: listed.
    assert_eq!(
        lts("", "(e?x -> STOP) \\ {| e, f |}"),
        vec!["(e?x -> STOP) \\ {| e, f |} -τ-> STOP \\ {| e, f |}"]
    );
    assert_eq!(
        lts("", "(a -> STOP) \\ union({| e |}, {a, f.0.1})"),
        vec!["(a -> STOP) \\ union({| e |}, {a, f.0.1}) -τ-> STOP \\ union({| e |}, {a, f.0.1})"]
    );
    assert_eq!(
        lts("", "(a -> STOP) \\ {a, e.1}"),
        vec!["(a -> STOP) \\ {a, e.1} -τ-> STOP \\ {a, e.1}"]
    );
}

#[test]
fn prioritise_holds_back_events_of_later_sets() {
    // a (first set) goes before b (second): b is held back while a is
    // offered, whatever the environment would accept.
    assert_eq!(
        lts("", "prioritise(a -> STOP [] b -> STOP, <{a}, {b}>)"),
        vec!["prioritise(a -> STOP [] b -> STOP, <{a}, {b}>) -a-> prioritise(STOP, <{a}, {b}>)"]
    );
    // c is in no set: never held back, holds nothing back; b is offered
    // where a is not.
    assert_eq!(
        lts(
            "",
            "prioritise(c -> STOP [] b -> STOP [] a -> STOP, <{a}, {b}>)"
        ),
        vec![
            "prioritise(c -> STOP [] b -> STOP [] a -> STOP, <{a}, {b}>) -a-> prioritise(STOP, <{a}, {b}>)",
            "prioritise(c -> STOP [] b -> STOP [] a -> STOP, <{a}, {b}>) -c-> prioritise(STOP, <{a}, {b}>)",
        ]
    );
    assert_eq!(
        lts("", "prioritise(c -> STOP [] b -> STOP, <{a}, {b}>)"),
        vec![
            "prioritise(c -> STOP [] b -> STOP, <{a}, {b}>) -b-> prioritise(STOP, <{a}, {b}>)",
            "prioritise(c -> STOP [] b -> STOP, <{a}, {b}>) -c-> prioritise(STOP, <{a}, {b}>)",
        ]
    );
    // Events of one set do not hold each other back.
    assert_eq!(
        counts("", "prioritise(a -> STOP [] b -> STOP, <{a, b}>)"),
        (2, 2, 1)
    );
}

#[test]
fn tau_and_tick_rank_with_the_first_set() {
    // τ holds back b (second set) but not a (first set, with τ).
    assert_eq!(
        lts(
            "",
            "prioritise(((d -> STOP) \\ {d}) [] b -> STOP, <{}, {b}>)"
        ),
        vec![
            "prioritise(((d -> STOP) \\ {d}) [] b -> STOP, <{}, {b}>) -τ-> prioritise((STOP \\ {d}) [] (b -> STOP), <{}, {b}>)",
            "prioritise((STOP \\ {d}) [] (b -> STOP), <{}, {b}>) -b-> prioritise(STOP, <{}, {b}>)",
        ]
    );
    assert_eq!(
        counts(
            "",
            "prioritise(((d -> STOP) \\ {d}) [] a -> STOP, <{a}, {b}>)"
        ),
        (3, 3, 1)
    );
    // ✓ likewise: it holds back b, and goes to Ω outside the operator.
    assert_eq!(
        lts("", "prioritise(SKIP [] b -> STOP, <{}, {b}>)"),
        vec!["prioritise(SKIP [] b -> STOP, <{}, {b}>) -✓-> Ω"]
    );
    assert_eq!(
        counts("", "prioritise(SKIP [] b -> STOP, <{b}>)"),
        (3, 2, 1)
    );
    // The τ of a sliding choice goes before b; a compression under the
    // operator is the identity (docs/cspm.md), so the same holds there.
    assert_eq!(
        lts("", "prioritise(b -> STOP [> STOP, <{}, {b}>)"),
        vec!["prioritise(b -> STOP [> STOP, <{}, {b}>) -τ-> prioritise(STOP, <{}, {b}>)"]
    );
    assert_eq!(
        counts("", "prioritise(normal(b -> STOP [> STOP), <{}, {b}>)"),
        (2, 1, 1)
    );
}

#[test]
fn prioritise_judges_its_operand_alone() {
    // After the operator: the interleaving offers a and b, so b waits for
    // a (3 states, not 4).
    assert_eq!(
        counts("", "prioritise(a -> STOP ||| b -> STOP, <{a}, {b}>)"),
        (3, 2, 1)
    );
    assert_eq!(counts("", "a -> STOP ||| b -> STOP"), (4, 4, 1));
    // Under a parallel composition: the left operand holds its b back for
    // its a, which its partner refuses, so only the right's b happens.
    assert_eq!(
        counts(
            "",
            "prioritise(a -> STOP [] b -> STOP, <{a}, {b}>) [| {a} |] b -> STOP"
        ),
        (2, 1, 1)
    );
    // Synchronised on both events: its partner's offer does not change
    // what the prioritised operand offers (a only), and the partner's
    // own c and d happen alone.
    assert_eq!(
        counts(
            "",
            "prioritise(a -> STOP [] b -> STOP, <{a}, {b}>) [| {a, b} |] \
             (a -> STOP [] b -> STOP [] c -> STOP [] d -> STOP)"
        ),
        (3, 3, 2)
    );
    // A recursive process keeps its priority at every step.
    assert_eq!(
        counts(
            "P = a -> P [] b -> c -> P",
            "prioritise(P, <{c}, {b}, {a}>)"
        ),
        (2, 2, 0)
    );
    // a is in no set: it and b are both offered.
    assert_eq!(
        counts("P = a -> P [] b -> c -> P", "prioritise_nocache(P, <{b}>)"),
        (2, 3, 0)
    );
}

#[test]
fn a_lazy_comprehension_feeds_a_prefix() {
    // The first value above 1 of an infinite comprehension: e.2 only.
    assert_eq!(
        counts("", "e!head(<x | x <- <0..>, (x > 1)>) -> STOP"),
        (2, 1, 1)
    );
    assert_eq!(
        counts(
            "take(0, _) = <>\ntake(n, <x>^s) = <x> ^ take(n - 1, s)\n\
             P(<>) = SKIP\nP(<x>^s) = e!x -> P(s)",
            "P(take(3, <x % 3 | x <- <0..>>))"
        ),
        (5, 4, 0)
    );
}

/// A chain of `[]` or `;` written left-nested (as the operators
/// associate) is one operator over all its operands: a τ inside one
/// keeps the others beside it, and a sequence hands over step by step.
#[test]
fn a_chain_of_choices_or_steps_is_one_operator() {
    assert_eq!(
        lts("", "(a -> STOP |~| b -> STOP) [] c -> STOP [] d -> STOP"),
        vec![
            "(a -> STOP |~| b -> STOP) [] c -> STOP [] d -> STOP -τ-> (a -> STOP) [] (c -> STOP) [] (d -> STOP)",
            "(a -> STOP |~| b -> STOP) [] c -> STOP [] d -> STOP -τ-> (b -> STOP) [] (c -> STOP) [] (d -> STOP)",
            "(a -> STOP |~| b -> STOP) [] c -> STOP [] d -> STOP -c-> STOP",
            "(a -> STOP |~| b -> STOP) [] c -> STOP [] d -> STOP -d-> STOP",
            "(a -> STOP) [] (c -> STOP) [] (d -> STOP) -a-> STOP",
            "(a -> STOP) [] (c -> STOP) [] (d -> STOP) -c-> STOP",
            "(a -> STOP) [] (c -> STOP) [] (d -> STOP) -d-> STOP",
            "(b -> STOP) [] (c -> STOP) [] (d -> STOP) -b-> STOP",
            "(b -> STOP) [] (c -> STOP) [] (d -> STOP) -c-> STOP",
            "(b -> STOP) [] (c -> STOP) [] (d -> STOP) -d-> STOP",
        ]
    );
    assert_eq!(
        lts("", "(a -> SKIP) ; (b -> SKIP) ; c -> STOP"),
        vec![
            "(a -> SKIP) ; (b -> SKIP) ; c -> STOP -a-> SKIP ; ((b -> SKIP) ; (c -> STOP))",
            "SKIP ; ((b -> SKIP) ; (c -> STOP)) -τ-> (b -> SKIP) ; (c -> STOP)",
            "(b -> SKIP) ; (c -> STOP) -b-> SKIP ; (c -> STOP)",
            "SKIP ; (c -> STOP) -τ-> c -> STOP",
            "c -> STOP -c-> STOP",
        ]
    );
}

/// Joining a chain changes no state count: a state of the nested
/// operators (`((P1 ; P2) ; P3)` after `P1` moved) is one of the joined
/// operator (`P1' ; P2 ; P3`) and back. A named process is never opened,
/// so a recursive one stays one state.
#[test]
fn a_joined_chain_has_the_states_of_the_nested_one() {
    let defs = "Q = (a -> SKIP) ; Q\nR = (b -> SKIP [] c -> SKIP) ; d -> R\n\
                C = (a -> STOP |~| b -> C) [] c -> C\n";
    // `[]` is opened wherever it is nested: the bracketing is not seen.
    for (left, right) in [
        (
            "((C [] R) [] (d -> C)) [] SKIP",
            "C [] (R [] ((d -> C) [] SKIP))",
        ),
        (
            "((a -> STOP |~| b -> SKIP) [] (c -> C |~| SKIP)) [] C",
            "(a -> STOP |~| b -> SKIP) [] ((c -> C |~| SKIP) [] C)",
        ),
    ] {
        assert_eq!(
            counts(defs, left),
            counts(defs, right),
            "{left} against {right}"
        );
    }
    assert_eq!(counts(defs, "((C [] R) [] (d -> C)) [] SKIP"), (11, 30, 1));
    // `;` is opened on the left: the start, then `Q`'s two states before
    // the rest, which never starts.
    assert_eq!(counts(defs, "((Q ; R) ; SKIP) ; STOP"), (3, 3, 0));
    // The start, `a` done, then `R`'s three states before `b -> SKIP`.
    assert_eq!(
        counts(defs, "((a -> SKIP) ; R) ; (b -> SKIP) ; R"),
        (5, 6, 0)
    );
}
