//! Two ways to the same answer: trace refinement against explicitly
//! enumerated trace sets, and the order of the semantic models (a
//! failures-divergences refinement of a divergence-free specification
//! is a failures refinement, and every failures refinement is a traces
//! refinement); revivals refinement against enumerated revivals, and
//! refusal testing ⇒ revivals ⇒ failures.

use std::collections::{BTreeMap, BTreeSet};

use symcsp::check::{self, Verdict};
use symcsp::lts::machine::{Machine, Moves};
use symcsp::lts::search::Budget;
use symcsp::process::{EventId, Processes, TAU, TICK};
use symcsp::script::Script;
use symcsp::script::ir::{AssertionKind, FuncId};

/// Every trace of at most `depth` visible events of the constant `func`,
/// level by level: each trace with the τ-closed set of states after it.
/// Each call has process states of its own; event ids are the same in
/// all of them, and in the check's.
fn traces(script: &Script, func: FuncId, depth: usize) -> BTreeSet<Vec<EventId>> {
    symcsp::stack::with_large_stack(|| {
        let (mut procs, root) = Processes::with_root(script, func).expect("a process");
        let mut machine = Machine::new(&mut procs, root).expect("the machine compiles");
        let mut moves = Moves::default();
        let mut next = Vec::new();
        // The states after each trace of the current length, τ-closed.
        let mut level: BTreeMap<Vec<EventId>, BTreeSet<Vec<u32>>> = BTreeMap::new();
        level.insert(Vec::new(), [machine.initial().to_vec()].into());
        let mut all = BTreeSet::new();
        for length in 0..=depth {
            let mut after: BTreeMap<Vec<EventId>, BTreeSet<Vec<u32>>> = BTreeMap::new();
            for (trace, states) in &mut level {
                let mut todo: Vec<Vec<u32>> = states.iter().cloned().collect();
                while let Some(row) = todo.pop() {
                    machine.moves(&mut procs, &row, &mut moves).expect("moves");
                    for m in &moves.list {
                        moves.apply(m, &row, &mut next);
                        if m.event == TAU {
                            if states.insert(next.clone()) {
                                todo.push(next.clone());
                            }
                        } else if length < depth {
                            let mut longer = trace.clone();
                            longer.push(m.event);
                            after.entry(longer).or_default().insert(next.clone());
                        }
                    }
                }
                all.insert(trace.clone());
            }
            level = after;
        }
        all
    })
}

fn verdict(script: &Script, index: usize) -> (Verdict, Option<Vec<EventId>>) {
    let result =
        symcsp::stack::with_large_stack(|| check::check(script, index, &Budget::default()))
            .unwrap_or_else(|d| panic!("{}", d.render(&script.sources)));
    let failing_trace = result.counterexample.as_ref().map(|cx| {
        let mut t = cx.trace();
        t.extend(cx.error_event.filter(|_| cx.ends_with_error));
        t
    });
    (result.verdict, failing_trace)
}

const PROCESSES: &[(&str, &str)] = &[
    ("P1", "a -> P1"),
    ("P2", "a -> b -> P2"),
    ("P3", "a -> P3 [] b -> P3"),
    ("P4", "a -> P4 |~| b -> P4"),
    ("P5", "a -> STOP [] b -> SKIP"),
    ("P6", "let Q = a -> b -> Q within Q \\ {b}"),
    ("P7", "STOP"),
    ("P8", "let Q = a -> Q within Q \\ {a}"),
    ("P9", "a -> STOP |~| a -> b -> STOP"),
    ("P10", "SKIP"),
    ("P11", "a -> b -> STOP [> b -> SKIP"),
    ("P12", "(a -> STOP) ||| (b -> SKIP)"),
];

/// Processes with no divergence, as specifications for FD ⇒ F.
const DIVERGENT: &[&str] = &["P6", "P8"];

#[test]
fn trace_refinement_agrees_with_trace_sets_and_the_models_are_ordered() {
    let mut text = String::from("channel a, b\n");
    for (name, body) in PROCESSES {
        text.push_str(&format!("{name} = {body}\n"));
    }
    let mut pairs = Vec::new();
    for (spec, _) in PROCESSES {
        for (imp, _) in PROCESSES {
            for model in ["T", "F", "FD"] {
                text.push_str(&format!("assert {spec} [{model}= {imp}\n"));
            }
            pairs.push((*spec, *imp));
        }
    }
    let script = Script::load_str("pairs.csp", &text).expect("loads");
    const DEPTH: usize = 5;
    let mut failed = 0;
    for (k, (spec, imp)) in pairs.iter().enumerate() {
        let (t, t_trace) = verdict(&script, 3 * k);
        let (f, _) = verdict(&script, 3 * k + 1);
        let (fd, _) = verdict(&script, 3 * k + 2);
        let AssertionKind::Refinement {
            spec: spec_func,
            imp: imp_func,
            ..
        } = script.assertions[3 * k].kind
        else {
            unreachable!()
        };
        let spec_traces = traces(&script, spec_func, DEPTH);
        let imp_traces = traces(&script, imp_func, DEPTH);
        let included = imp_traces.is_subset(&spec_traces);
        assert_eq!(t == Verdict::Passed, included, "{spec} [T= {imp}");
        if let Some(trace) = t_trace {
            assert!(
                imp_traces.contains(&trace) && !spec_traces.contains(&trace),
                "{spec} [T= {imp}: {trace:?} should separate them"
            );
        }
        if f == Verdict::Passed {
            assert_eq!(t, Verdict::Passed, "{spec} [F= {imp} but not [T=");
        }
        if fd == Verdict::Passed && !DIVERGENT.contains(spec) {
            assert_eq!(f, Verdict::Passed, "{spec} [FD= {imp} but not [F=");
        }
        failed += usize::from(t == Verdict::Failed);
    }
    // The pairs are not all alike.
    assert!(failed > 20 && failed < pairs.len() - 20, "{failed}");
}

#[test]
fn the_models_trace_refinements_agree_with_their_trace_sets() {
    const DEPTH: usize = 4;
    for entry in std::fs::read_dir("models").expect("models/") {
        let path = entry.expect("an entry").path();
        if path.extension().is_none_or(|x| x != "csp") {
            continue;
        }
        let script = Script::load_file(&path).expect("a model loads");
        for (i, a) in script.assertions.iter().enumerate() {
            let AssertionKind::Refinement { spec, imp, model } = a.kind else {
                continue;
            };
            if model != symcsp::syntax::ast::Model::Traces || a.negated {
                continue;
            }
            let (t, trace) = verdict(&script, i);
            let spec_traces = traces(&script, spec, DEPTH);
            let imp_traces = traces(&script, imp, DEPTH);
            let text = check::assertion_text(&script, i);
            match trace {
                None => assert!(imp_traces.is_subset(&spec_traces), "{text}"),
                Some(trace) if trace.len() <= DEPTH => {
                    assert!(
                        imp_traces.contains(&trace) && !spec_traces.contains(&trace),
                        "{text}"
                    )
                }
                Some(_) => assert_eq!(t, Verdict::Failed),
            }
        }
    }
}

/// Every trace of at most `depth` visible events of the constant `func`
/// with the acceptances of the stable states after it (✓ as a signal: a
/// stable state that can terminate accepts only ✓).
fn acceptances(
    script: &Script,
    func: FuncId,
    depth: usize,
) -> BTreeMap<Vec<EventId>, BTreeSet<Vec<EventId>>> {
    symcsp::stack::with_large_stack(|| {
        let (mut procs, root) = Processes::with_root(script, func).expect("a process");
        let mut machine = Machine::new(&mut procs, root).expect("the machine compiles");
        let mut moves = Moves::default();
        let mut next = Vec::new();
        let mut level: BTreeMap<Vec<EventId>, BTreeSet<Vec<u32>>> = BTreeMap::new();
        level.insert(Vec::new(), [machine.initial().to_vec()].into());
        let mut all = BTreeMap::new();
        for length in 0..=depth {
            let mut after: BTreeMap<Vec<EventId>, BTreeSet<Vec<u32>>> = BTreeMap::new();
            for (trace, states) in &mut level {
                let mut accepted: BTreeSet<Vec<EventId>> = BTreeSet::new();
                let mut todo: Vec<Vec<u32>> = states.iter().cloned().collect();
                while let Some(row) = todo.pop() {
                    machine.moves(&mut procs, &row, &mut moves).expect("moves");
                    let events: BTreeSet<EventId> = moves.list.iter().map(|m| m.event).collect();
                    if !events.contains(&TAU) {
                        accepted.insert(if events.contains(&TICK) {
                            vec![TICK]
                        } else {
                            events.iter().copied().collect()
                        });
                    }
                    for m in &moves.list {
                        moves.apply(m, &row, &mut next);
                        if m.event == TAU {
                            if states.insert(next.clone()) {
                                todo.push(next.clone());
                            }
                        } else if length < depth && m.event != TICK {
                            let mut longer = trace.clone();
                            longer.push(m.event);
                            after.entry(longer).or_default().insert(next.clone());
                        } else if m.event == TICK && length < depth {
                            let mut longer = trace.clone();
                            longer.push(TICK);
                            after.entry(longer).or_default();
                        }
                    }
                }
                all.insert(trace.clone(), accepted);
            }
            level = after;
        }
        all
    })
}

/// Whether every trace, stable failure and revival (trace, refusal of a
/// stable state, an event that state then performs) of `imp` up to the
/// depth is one of `spec`'s.
fn revivals_included(
    spec: &BTreeMap<Vec<EventId>, BTreeSet<Vec<EventId>>>,
    imp: &BTreeMap<Vec<EventId>, BTreeSet<Vec<EventId>>>,
) -> bool {
    let subset = |a: &[EventId], b: &[EventId]| a.iter().all(|x| b.contains(x));
    imp.iter().all(|(trace, accepted)| {
        let Some(allowed) = spec.get(trace) else {
            return false;
        };
        accepted.iter().all(|a| {
            allowed.iter().any(|s| subset(s, a))
                && a.iter()
                    .filter(|&&e| e != TICK)
                    .all(|e| allowed.iter().any(|s| subset(s, a) && s.contains(e)))
        })
    })
}

/// Revivals refinement against revivals enumerated from the processes,
/// and the order of the finer models: refusal testing implies revivals,
/// which implies stable failures (with divergences: RD ⇒ VD ⇒ FD).
#[test]
fn revivals_agree_with_enumerated_revivals_and_the_finer_models_are_ordered() {
    // Beside the common processes: S1 and S2 have the same failures and
    // different revivals, T1 and T2 the same revivals and different
    // refusal traces.
    let extra = [
        ("S1", "(a -> STOP [] b -> STOP) |~| STOP"),
        ("S2", "a -> STOP |~| b -> STOP |~| STOP"),
        ("T1", "(a -> b -> STOP [] b -> STOP) |~| (a -> STOP)"),
        ("T2", "(a -> STOP [] b -> STOP) |~| (a -> b -> STOP)"),
    ];
    let processes: Vec<(&str, &str)> = PROCESSES.iter().copied().chain(extra).collect();
    let mut text = String::from("channel a, b\n");
    for (name, body) in &processes {
        text.push_str(&format!("{name} = {body}\n"));
    }
    let models = ["F", "V", "R", "FD", "VD", "RD"];
    let mut pairs = Vec::new();
    for (spec, _) in &processes {
        for (imp, _) in &processes {
            for model in models {
                text.push_str(&format!("assert {spec} [{model}= {imp}\n"));
            }
            pairs.push((*spec, *imp));
        }
    }
    let script = Script::load_str("pairs.csp", &text).expect("loads");
    const DEPTH: usize = 5;
    let (mut differ, mut finer) = (0, 0);
    for (k, (spec, imp)) in pairs.iter().enumerate() {
        let at = |m: usize| verdict(&script, models.len() * k + m).0 == Verdict::Passed;
        let (f, v, r, fd, vd, rd) = (at(0), at(1), at(2), at(3), at(4), at(5));
        let AssertionKind::Refinement {
            spec: spec_func,
            imp: imp_func,
            ..
        } = script.assertions[models.len() * k].kind
        else {
            unreachable!()
        };
        let included = revivals_included(
            &acceptances(&script, spec_func, DEPTH),
            &acceptances(&script, imp_func, DEPTH),
        );
        assert_eq!(v, included, "{spec} [V= {imp}");
        assert!(!r || v, "{spec} [R= {imp} but not [V=");
        assert!(!v || f, "{spec} [V= {imp} but not [F=");
        assert!(!rd || vd, "{spec} [RD= {imp} but not [VD=");
        assert!(!vd || fd, "{spec} [VD= {imp} but not [FD=");
        differ += usize::from(f && !v);
        finer += usize::from(v && !r);
    }
    // Some pairs are told apart by revivals and not by failures, and some
    // by refusal testing and not by revivals.
    assert!(differ > 0 && finer > 0, "{differ} {finer}");
}
