//! FDR's built-in `BUFFER(N, ins_outs)`: its state space worked out by
//! hand, by both paths; every assertion of the fixture (refinement both
//! ways against a buffer written in CSPM, determinism, traces); and the
//! orbits of a buffer of a symmetric datatype.

use symcsp::check;
use symcsp::lts::Budget;
use symcsp::script::Script;
use symcsp::symmetry::spec::Reduce;

mod state_counts;

use state_counts::{counts, every_assertion_passes};

const FIXTURE: &str = "tests/fixtures/check/buffer.csp";

fn load() -> Script {
    state_counts::load(FIXTURE)
}

#[test]
fn a_buffer_has_a_state_for_each_sequence_it_can_hold() {
    let mut script = load();
    // Empty, 3 of one value, 9 of two: 13 states, 3 + 3·4 + 9 moves.
    assert_eq!(counts(&mut script, "Two"), (13, 24, 0));
    assert_eq!(counts(&mut script, "BUFFER(1, Pairs)"), (4, 6, 0));
    // 1 + 3 + 9 + 27 sequences of up to 3 values.
    assert_eq!(counts(&mut script, "Three"), (40, 78, 0));
}

#[test]
fn every_assertion_answers_as_fdr() {
    every_assertion_passes(&load());
}

#[test]
fn a_buffer_of_symmetric_values_has_one_representative_per_set_partition() {
    let script = load();
    let index = (0..script.assertions.len())
        .find(|&i| check::assertion_text(&script, i).contains("Three :[deadlock free]"))
        .expect("the reduced check");
    let run = |reduce: &Reduce| {
        symcsp::stack::with_large_stack(|| {
            check::check_reduced(&script, index, &Budget::default(), Some(reduce))
        })
        .unwrap_or_else(|d| panic!("{}", d.render(&script.sources)))
    };
    // Bell numbers by length, at most 3 blocks: 1 + 1 + 2 + 5.
    assert_eq!(
        (run(&Reduce::Off).states, run(&Reduce::Automatic).states),
        (40, 9)
    );
}
