//! The process-independent state encoding (`Processes::encode_state`):
//! a state of any shipped model, written by one `Processes` and read by
//! another that interned its states in a different order, is the same
//! state there — it prints alike, it writes the same bytes back, and its
//! moves lead to states with the same bytes. Malformed bytes are an
//! error, never a panic.

use proptest::prelude::*;
use rustc_hash::FxHashSet;
use symcsp::process::{ProcId, Processes};
use symcsp::script::Script;
use symcsp::script::ir::FuncId;

mod shipped;
use shipped::models;

/// How many states of each process the test walks.
const STATES: usize = 400;

fn load(model: &str) -> Script {
    Script::load_file(std::path::Path::new(&format!("models/{model}.csp")))
        .unwrap_or_else(|e| panic!("{model} loads: {}", e.render()))
}

/// The processes the model's assertions are about.
fn roots(script: &Script) -> Vec<FuncId> {
    let mut roots: Vec<FuncId> = script
        .assertions
        .iter()
        .map(|a| a.kind.implementation())
        .collect();
    roots.dedup();
    roots
}

/// Up to [`STATES`] states reachable from `root`, breadth first.
fn reachable(procs: &mut Processes, root: ProcId) -> Vec<ProcId> {
    let mut order = vec![root];
    let mut seen: FxHashSet<ProcId> = [root].into_iter().collect();
    let mut next = 0;
    while let Some(&state) = order.get(next) {
        for t in procs.transitions(state).expect("transitions").iter() {
            if order.len() < STATES && seen.insert(t.target) {
                order.push(t.target);
            }
        }
        next += 1;
    }
    order
}

fn encoded(procs: &Processes, state: ProcId) -> Vec<u8> {
    let mut bytes = Vec::new();
    procs.encode_state(state, &mut bytes);
    bytes
}

/// Each move of `state`: its event and its target's bytes, sorted (the
/// process layer lists a state's moves in its own numbering's order).
fn moves(procs: &mut Processes, state: ProcId) -> Vec<(u32, Vec<u8>)> {
    let transitions = procs.transitions(state).expect("transitions");
    let mut moves: Vec<_> = transitions
        .iter()
        .map(|t| (t.event, encoded(procs, t.target)))
        .collect();
    moves.sort();
    moves
}

/// Every state the model's processes reach (up to a bound), written by
/// one `Processes` and read by another that first read them in the
/// order `shuffle` gives; returns how many states were compared.
fn round_trip(model: &str, shuffle: u64) -> usize {
    let script = load(model);
    let roots = roots(&script);
    round_trip_of(&script, &roots, model, shuffle)
}

/// [`round_trip`] of the processes `roots` of `script`.
fn round_trip_of(script: &Script, roots: &[FuncId], model: &str, shuffle: u64) -> usize {
    symcsp::stack::with_large_stack(|| {
        let mut compared = 0;
        for &root in roots {
            let (mut here, start) = Processes::with_root(script, root).expect("a process");
            let states = reachable(&mut here, start);
            let bytes: Vec<Vec<u8>> = states.iter().map(|&s| encoded(&here, s)).collect();
            let (mut there, _) = Processes::with_root(script, root).expect("a process");
            // Read in a shuffled order first, so the numbering differs.
            let mut order: Vec<usize> = (0..states.len()).collect();
            fastrand::Rng::with_seed(shuffle).shuffle(&mut order);
            let mut read = vec![ProcId(0); states.len()];
            for &i in &order {
                read[i] = there.decode_state(&bytes[i]).expect("decodes");
            }
            let distinct: FxHashSet<ProcId> = read.iter().copied().collect();
            assert_eq!(distinct.len(), states.len(), "{model}: one state each");
            for (i, &state) in states.iter().enumerate() {
                let shown = here.show_state(state);
                assert_eq!(there.show_state(read[i]), shown, "{model}");
                assert_eq!(encoded(&there, read[i]), bytes[i], "{model}: {shown}");
                assert_eq!(
                    moves(&mut here, state),
                    moves(&mut there, read[i]),
                    "{model}: {shown}"
                );
                compared += 1;
            }
        }
        compared
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn a_state_read_by_another_processes_is_the_same_state(
        model in 0..models().len(),
        shuffle in any::<u64>(),
    ) {
        prop_assert!(round_trip(&models()[model], shuffle) > 10);
    }
}

#[test]
fn every_model_round_trips() {
    for model in models() {
        let compared = round_trip(&model, 7);
        assert!(compared >= 50, "{model}: only {compared} states");
    }
}

#[test]
fn malformed_bytes_are_an_error() {
    for model in models() {
        malformed_bytes_of(&model);
    }
}

/// Cut and changed encodings of `model`'s states.
fn malformed_bytes_of(model: &str) {
    let script = load(model);
    let root = roots(&script)[0];
    let script = &script;
    symcsp::stack::with_large_stack(|| {
        let (mut procs, start) = Processes::with_root(script, root).expect("a process");
        let bytes = encoded(&procs, start);
        for cut in 0..bytes.len() {
            let error = procs.decode_state(&bytes[..cut]).expect_err("cut short");
            assert!(error.to_string().starts_with("malformed state encoding"));
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(procs.decode_state(&longer).is_err(), "bytes left over");
        for tag in [200u8, 0xff] {
            assert!(procs.decode_state(&[tag]).is_err());
        }
        // Every single-byte change reads as some state or is an error, and
        // a state it reads as can be stepped: an evaluation error at worst,
        // never a panic.
        let states = reachable(&mut procs, start);
        let mut read = 0;
        for &state in states.iter().step_by(25) {
            let bytes = encoded(&procs, state);
            for i in 0..bytes.len() {
                for flip in [1u8, 2, 0x80, 0xff] {
                    let mut changed = bytes.clone();
                    changed[i] ^= flip;
                    if let Ok(other) = procs.decode_state(&changed) {
                        let _ = procs.transitions(other);
                        read += 1;
                    }
                }
            }
        }
        assert!(read > 5, "{model}: {read} changed encodings read as states");
        assert_eq!(procs.decode_state(&bytes), Ok(start));
    });
}

/// Issue 66: a state of halves composed and normalised level by level
/// (2^n philosophers, `normal` per level) holds each level's half twice
/// as a tree but once as a term: its encoding writes a subterm met again
/// as a reference, so it grows with the levels, not with 2^n (at forty
/// levels, 2^40 leaves), and reads back as the same state.
#[test]
fn halves_normalised_level_by_level_encode_in_linear_size() {
    let mut script = Script::load_file(std::path::Path::new("tests/fixtures/compress/phils.csp"))
        .unwrap_or_else(|e| panic!("loads: {}", e.render()));
    let sizes: Vec<usize> = [10, 20, 40]
        .iter()
        .map(|levels| {
            let func = script
                .add_expr("<process>", &format!("PHILS({levels})"))
                .expect("resolves");
            let script = &script;
            symcsp::stack::with_large_stack(|| {
                let (here, start) = Processes::with_root(script, func).expect("a process");
                let bytes = encoded(&here, start);
                let (mut there, _) = Processes::with_root(script, func).expect("a process");
                let read = there.decode_state(&bytes).expect("decodes");
                assert_eq!(encoded(&there, read), bytes);
                assert_eq!(there.show_state(read), here.show_state(start));
                bytes.len()
            })
        })
        .collect();
    // Each ten levels add about as much as the first ten.
    assert!(sizes[2] < 5 * sizes[0], "{sizes:?} bytes");
    assert!(sizes[2] < 1 << 16, "{sizes:?} bytes");
}

/// A reference to a subterm not yet read, or to one still being read
/// (a term inside itself), is malformed.
#[test]
fn a_reference_to_no_earlier_subterm_is_an_error() {
    let script = load("philosophers");
    let root = roots(&script)[0];
    let script = &script;
    symcsp::stack::with_large_stack(|| {
        let (mut procs, _) = Processes::with_root(script, root).expect("a process");
        // REFERENCE (26) to subterm 0 as the whole state: nothing read yet.
        assert!(procs.decode_state(&[26, 0]).is_err());
        // A hiding (17) whose operand is the hiding itself.
        assert!(procs.decode_state(&[17, 26, 0, 0]).is_err());
    });
}

/// Issue 66: a state of a compression that names its classes by a
/// member (`sbisim`, `wbisim`, `dbisim`, `diamond`, ...) has one encoding
/// in every `Processes`, whatever order each met the original's states
/// in: a class is named by the original's initial state, or else by its
/// member of least encoding. So such states cross between workers.
#[test]
fn compressed_states_are_named_alike_in_every_process() {
    let mut script = Script::load_file(std::path::Path::new(
        "tests/fixtures/cluster/compressed.csp",
    ))
    .unwrap_or_else(|e| panic!("loads: {}", e.render()));
    let roots: Vec<FuncId> = [
        "Bisimilar",
        "Weak",
        "Divergent",
        "Diamond",
        "Loops",
        "Explicit",
        "Nested",
    ]
    .iter()
    .map(|name| script.add_expr("<process>", name).expect("resolves"))
    .collect();
    for shuffle in [1, 2, 3] {
        let compared = round_trip_of(&script, &roots, "compressed.csp", shuffle);
        assert!(compared >= 40, "{compared} states");
    }
}

/// `prioritisepo`'s and `BUFFER`'s states cross between processes: a
/// priority order and a buffer's queue are read back as written.
#[test]
fn priority_orders_and_buffers_round_trip() {
    for (file, names, least) in [
        (
            "tests/fixtures/check/priority_order.csp",
            &["Chain", "EitherWay", "Watched"][..],
            12,
        ),
        ("tests/fixtures/check/buffer.csp", &["Two", "Three"][..], 50),
    ] {
        let mut script = Script::load_file(std::path::Path::new(file))
            .unwrap_or_else(|e| panic!("loads: {}", e.render()));
        let roots: Vec<FuncId> = names
            .iter()
            .map(|name| script.add_expr("<process>", name).expect("resolves"))
            .collect();
        for shuffle in [1, 2] {
            let compared = round_trip_of(&script, &roots, file, shuffle);
            assert!(compared >= least, "{file}: {compared} states");
        }
    }
}

/// The member a class is named by does not follow the order a process
/// met the members in: a process that made `Right` before `Left` names
/// the class of the two as one that made `Left` first does.
#[test]
fn a_class_is_named_alike_whichever_member_a_process_met_first() {
    let mut script = Script::load_file(std::path::Path::new(
        "tests/fixtures/cluster/compressed.csp",
    ))
    .unwrap_or_else(|e| panic!("loads: {}", e.render()));
    let split = script
        .add_expr("<process>", "sbisim(Split)")
        .expect("resolves");
    let right = script.add_expr("<process>", "Right").expect("resolves");
    let script = &script;
    symcsp::stack::with_large_stack(|| {
        // Each process's state of the class, after f and a τ.
        let after_f = |procs: &mut Processes, start: ProcId| {
            let moves = procs.transitions(start).expect("transitions");
            assert_eq!(moves.len(), 1, "f alone");
            let moves = procs.transitions(moves[0].target).expect("transitions");
            assert_eq!(moves.len(), 1, "one τ, to the class of Left and Right");
            let class = moves[0].target;
            assert!(
                procs.show_state(class).contains("sbisim"),
                "{}",
                procs.show_state(class)
            );
            encoded(procs, class)
        };
        let (mut here, start) = Processes::with_root(script, split).expect("a process");
        let named_here = after_f(&mut here, start);
        let (mut there, _) = Processes::with_root(script, right).expect("a process");
        let value = there.evaluator().eval_constant(split).expect("evaluates");
        let span = script.function(split).span;
        let start = there.state(&value, span).expect("a state");
        assert_eq!(after_f(&mut there, start), named_here);
    });
}
