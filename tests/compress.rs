//! FDR's compressions: every compression equal to its process in every
//! model (both ways round), and the hierarchy they make small — 2^n
//! philosophers, each level normalised, checked for n up to 1000 with
//! the verdicts of the uncompressed system where it fits.

use symcsp::check::{self, Verdict};
use symcsp::lts::search::Budget;
use symcsp::script::Script;

const COMPRESSIONS: [&str; 10] = [
    "normal",
    "sbisim",
    "wbisim",
    "dbisim",
    "diamond",
    "tau_loop_factor",
    "explicate",
    "model_compress",
    "lazynorm",
    "lazyenumerate",
];

fn verdicts(script: &Script) -> Vec<(String, Verdict, u64)> {
    symcsp::stack::with_large_stack(|| {
        (0..script.assertions.len())
            .map(|i| {
                let result = check::check(script, i, &Budget::default())
                    .unwrap_or_else(|d| panic!("{}", d.render(&script.sources)));
                let text = script
                    .sources
                    .snippet(script.assertions[i].span)
                    .to_string();
                (text, result.verdict, result.states)
            })
            .collect()
    })
}

#[test]
fn every_compression_is_its_process_in_every_model() {
    let processes = std::fs::read_to_string("tests/fixtures/compress/processes.csp").unwrap();
    let mut text = format!("transparent {}\n{processes}\n", COMPRESSIONS.join(", "));
    let names: Vec<String> = (1..=10).map(|i| format!("P{i}")).collect();
    for f in COMPRESSIONS {
        for p in &names {
            for model in ["T", "F", "FD"] {
                text.push_str(&format!("assert {p} [{model}= {f}({p})\n"));
                text.push_str(&format!("assert {f}({p}) [{model}= {p}\n"));
            }
        }
    }
    let script = Script::load_str("equal.csp", &text).expect("the script loads");
    let results = verdicts(&script);
    assert_eq!(results.len(), COMPRESSIONS.len() * 10 * 6);
    let failed: Vec<&String> = results
        .iter()
        .filter(|(_, v, _)| *v != Verdict::Passed)
        .map(|(t, _, _)| t)
        .collect();
    assert!(failed.is_empty(), "not equal: {failed:#?}");
}

#[test]
fn a_difference_survives_compression() {
    // Compressing must not make unequal processes equal: P2 may refuse a
    // where P1 may not, P6 diverges where P9 does not.
    let processes = std::fs::read_to_string("tests/fixtures/compress/processes.csp").unwrap();
    let mut text = format!("transparent {}\n{processes}\n", COMPRESSIONS.join(", "));
    for f in COMPRESSIONS {
        text.push_str(&format!("assert {f}(a -> STOP [] b -> STOP) [F= {f}(P2)\n"));
        text.push_str(&format!("assert {f}(P6) [FD= {f}(P6) \\ {{a}}\n"));
        text.push_str(&format!("assert {f}(DIV) [FD= {f}(P8)\n"));
        text.push_str(&format!("assert STOP [T= {f}(P8)\n"));
    }
    let script = Script::load_str("differ.csp", &text).expect("the script loads");
    for (text, verdict, _) in verdicts(&script) {
        let expected = if text.contains("DIV") {
            Verdict::Passed
        } else {
            Verdict::Failed
        };
        assert_eq!(verdict, expected, "{text}");
    }
}

#[test]
fn two_to_the_n_philosophers_are_a_few_states_at_every_level() {
    let script =
        Script::load_file("tests/fixtures/compress/phils.csp".as_ref()).expect("the script loads");
    let results = verdicts(&script);
    let expect: [(&str, Verdict, Option<u64>); 12] = [
        ("PHILS(10) :[deadlock free [F]]", Verdict::Passed, Some(6)),
        ("PHILS(100) :[deadlock free [F]]", Verdict::Passed, Some(6)),
        ("PHILS(1000) :[deadlock free [F]]", Verdict::Passed, Some(6)),
        ("RING(10) :[deadlock free [F]]", Verdict::Failed, Some(9)),
        ("RING(100) :[deadlock free [F]]", Verdict::Failed, Some(9)),
        ("RING(1000) :[deadlock free [F]]", Verdict::Failed, Some(9)),
        // Eight philosophers uncompressed: the same verdicts.
        (
            "LINE(3) :[deadlock free [F]]",
            Verdict::Passed,
            Some(57_284),
        ),
        ("CIRCLE(3) :[deadlock free [F]]", Verdict::Failed, None),
        ("PHILS(3) [F= LINE(3)", Verdict::Passed, None),
        ("LINE(3) [F= PHILS(3)", Verdict::Passed, None),
        ("LINE(3) :[divergence free]", Verdict::Failed, None),
        ("PHILS(3) :[divergence free]", Verdict::Failed, None),
    ];
    assert_eq!(results.len(), expect.len());
    for ((text, verdict, states), (what, expected, count)) in results.iter().zip(expect) {
        assert!(text.contains(what), "{text} is not {what}");
        assert_eq!(*verdict, expected, "{text}");
        if let Some(count) = count {
            assert_eq!(*states, count, "{text}");
        }
    }
}

#[test]
fn a_counterexample_through_compressed_components_unwinds_to_real_runs() {
    use symcsp::process::compress::Ending;
    use symcsp::process::{Processes, TAU};
    let mut script =
        Script::load_file("tests/fixtures/compress/phils.csp".as_ref()).expect("the script loads");
    let ring = script
        .assertions
        .iter()
        .position(|a| script.sources.snippet(a.span).contains("RING(10)"))
        .expect("RING(10) is checked");
    let root = script.add_expr("<ring>", "RING(10)").expect("resolves");
    symcsp::stack::with_large_stack(|| {
        let result = check::check(&script, ring, &Budget::default()).expect("checks");
        assert_eq!(result.verdict, Verdict::Failed);
        let cx = result.counterexample.expect("a deadlock");
        // A Processes of its own, as whoever shows the counterexample has.
        let (mut procs, _) = Processes::with_root(&script, root).expect("a process");
        let rendered = cx.render(&mut procs);
        let mut unwound = 0;
        for slot in 0..cx.initial.len() {
            let own: Vec<u32> = cx
                .steps
                .iter()
                .flat_map(|s| s.moved.iter().filter(|m| m.slot == slot))
                .map(|m| m.event)
                .filter(|&e| e != TAU)
                .collect();
            let last = cx
                .steps
                .iter()
                .flat_map(|s| s.moved.iter().filter(|m| m.slot == slot))
                .last()
                .map_or(&cx.initial[slot], |m| &m.state);
            let from = procs.import(&cx.initial[slot]);
            let to = procs.import(last);
            let run = procs
                .unwind(from, &own, to, Ending::Stable)
                .expect("within budget")
                .expect("a run of the uncompressed process");
            // Replayed on the uncompressed process: every step one of its
            // transitions, the component's events in order, ending stable.
            assert_eq!(run.start, run.of, "the run starts where the process does");
            let mut at = run.start;
            let mut visible = Vec::new();
            for step in &run.steps {
                let transitions = procs.transitions(at).expect("transitions");
                assert!(transitions.contains(step), "a real transition");
                if step.event != TAU {
                    visible.push(step.event);
                }
                at = step.target;
            }
            assert_eq!(visible, own);
            let end = procs.transitions(at).expect("transitions");
            assert!(end.iter().all(|t| t.event != TAU), "stable at the end");
            assert!(rendered.components[slot].unwound.is_some());
            unwound += 1;
        }
        assert_eq!(unwound, 2, "both halves of the ring unwound");
    });
}

#[test]
fn the_animator_shows_which_original_states_a_compressed_state_stands_for() {
    use symcsp::lts::animator::Animator;
    let mut script = Script::load_str(
        "shown.csp",
        "transparent sbisim\nchannel a, b\nTwin = a -> Twin'\nTwin' = a -> Twin\n\
         P = sbisim(Twin) ||| b -> STOP\n",
    )
    .expect("the script loads");
    let root = script.add_expr("<p>", "P").expect("resolves");
    symcsp::stack::with_large_stack(|| {
        let animator = Animator::load(&script, root).expect("a process");
        let initial = animator.initial();
        assert_eq!(
            animator.show_component(0, initial[0]),
            "sbisim(Twin)⟨≈ Twin⟩  — stands for 2 of its process's 2 states: Twin; Twin'"
        );
        assert_eq!(animator.show_component(1, initial[1]), "b -> STOP");
    });
}
