//! The machine's unit tests.

use super::*;
use crate::script::Script;

/// The ids of `a` and `b` (after τ and ✓).
const EVENT_A: EventId = 2;
const EVENT_B: EventId = 3;

/// The machine of `expr` in a script with channels `a` and `b`.
fn with_machine<T>(expr: &str, body: impl FnOnce(&mut Processes, &mut Machine) -> T) -> T {
    let mut script = Script::load_str("test.csp", "channel a, b\n").expect("loads");
    let func = script.add_expr("<process>", expr).expect("resolves");
    let (mut procs, root) = Processes::with_root(&script, func).expect("a process");
    let mut machine = Machine::new(&mut procs, root).expect("compiles");
    body(&mut procs, &mut machine)
}

/// The state after firing the first move with `event`.
fn fire(procs: &mut Processes, machine: &mut Machine, state: &[u32], event: EventId) -> Vec<u32> {
    let mut moves = Moves::default();
    machine.moves(procs, state, &mut moves).expect("moves");
    let m = moves
        .list
        .iter()
        .find(|m| m.event == event)
        .expect("enabled");
    let mut next = Vec::new();
    moves.apply(m, state, &mut next);
    next
}

#[test]
fn a_parallel_tick_marks_every_component_below_it_and_moves_none_of_them() {
    with_machine("(SKIP ||| SKIP) ||| SKIP", |procs, machine| {
        let mut state = machine.initial().to_vec();
        // Each SKIP terminates by τ (its ✓ inside a parallel), and so
        // does the inner parallel.
        let mut moves = Moves::default();
        loop {
            machine.moves(procs, &state, &mut moves).expect("moves");
            if !moves.list.iter().any(|m| m.event == TAU) {
                break;
            }
            state = fire(procs, machine, &state, TAU);
        }
        machine.moves(procs, &state, &mut moves).expect("moves");
        let tick = moves.list.iter().find(|m| m.event == TICK).expect("✓");
        assert_eq!(moves.changes(tick).len(), 3, "the outer ✓ marks all three");
        assert!(machine.participants(moves.changes(tick)).is_empty());
        let done = fire(procs, machine, &state, TICK);
        let markers: Vec<&Term> = (0..3)
            .map(|slot| procs.term(machine.process_state(slot, done[slot])))
            .collect();
        assert_eq!(markers, vec![&Term::Done(0); 3]);
        machine.moves(procs, &done, &mut moves).expect("moves");
        assert!(moves.list.is_empty(), "terminated: no more moves");
    });
}

#[test]
fn the_inner_parallel_terminates_first_and_stays_terminated() {
    with_machine("(SKIP ||| SKIP) ||| a -> SKIP", |procs, machine| {
        let mut state = machine.initial().to_vec();
        state = fire(procs, machine, &state, TAU);
        state = fire(procs, machine, &state, TAU);
        // The inner ✓ (a τ for the outer node) marks slots 0 and 1.
        state = fire(procs, machine, &state, TAU);
        let inner: Vec<&Term> = (0..2)
            .map(|slot| procs.term(machine.process_state(slot, state[slot])))
            .collect();
        assert_eq!(inner, vec![&Term::Done(1); 2]);
        state = fire(procs, machine, &state, EVENT_A);
        state = fire(procs, machine, &state, TAU);
        let done = fire(procs, machine, &state, TICK);
        let all: Vec<&Term> = (0..3)
            .map(|slot| procs.term(machine.process_state(slot, done[slot])))
            .collect();
        assert_eq!(all, vec![&Term::Done(0); 3]);
    });
}

#[test]
fn shared_tables_number_a_state_alike_in_every_component() {
    let expr = "(||| i : {0, 1} @ a -> STOP) ||| b -> STOP";
    with_machine(expr, |procs, machine| {
        assert_eq!(machine.initial(), &[0, 0, 0]);
        machine.share_tables(&[vec![0, 1, 2]]);
        // The two `a -> STOP` are one state, `b -> STOP` another.
        let initial = machine.initial().to_vec();
        assert_eq!(initial[0], initial[1]);
        assert_ne!(initial[0], initial[2]);
        assert_eq!(machine.table_of(0), machine.table_of(2));
        let stop = procs.intern(Term::Stop);
        let local = machine.local_of(2, stop);
        assert_eq!(machine.find_local(0, stop), Some(local));
        let after = fire(procs, machine, &initial, EVENT_B);
        assert_eq!(after, vec![initial[0], initial[1], local]);
    });
}
