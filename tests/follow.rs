//! Replaying a check's counterexample in the animator: the check runs on
//! a worker thread with process states of its own, and the animator
//! follows the counterexample by event ids and state keys in its own
//! `Processes`, which numbers states differently.

use std::sync::Arc;

use symcsp::check::counterexample::Counterexample;
use symcsp::check::worker::CheckHandle;
use symcsp::lts::animator::{Animator, Enabled, FollowError, PathStep};
use symcsp::lts::search::Budget;
use symcsp::process::{EventId, Processes, StateKey, TAU};
use symcsp::script::Script;
use symcsp::stack::with_large_stack;

const FIXTURE: &str = "tests/fixtures/check/follow.csp";

fn script() -> Arc<Script> {
    Arc::new(Script::load_file(FIXTURE.as_ref()).expect("the fixture loads"))
}

/// Assertion `index`'s counterexample, found on a worker thread.
fn counterexample(script: &Arc<Script>, index: usize) -> Counterexample {
    CheckHandle::spawn(script.clone(), index, Budget::default())
        .join()
        .expect("the check runs")
        .counterexample
        .expect("the assertion fails")
}

/// An animator of assertion `index`'s implementation.
fn animator(script: &Script, index: usize) -> Animator<'_> {
    let imp = script.assertions[index].kind.implementation();
    Animator::load(script, imp).expect("the implementation evaluates")
}

/// The key of each component that takes part in `e`, in its new state.
fn targets(animator: &Animator, e: &Enabled) -> Vec<(usize, StateKey)> {
    e.slots()
        .map(|slot| {
            let state = animator.component_state(slot, e.target[slot]);
            (slot, animator.processes().export(state))
        })
        .collect()
}

#[test]
fn a_counterexample_from_a_worker_is_followed_by_its_states_where_moves_look_alike() {
    let script = script();
    for index in 0..script.assertions.len() {
        let cx = counterexample(&script, index);
        with_large_stack(|| {
            let mut animator = animator(&script, index);
            let followed = animator.follow(cx.path()).expect("the path is followed");
            assert_eq!(followed.len(), cx.steps.len());
            let mut state = animator.initial();
            let mut told_apart_by_state = 0;
            for ((choice, taken), step) in followed.iter().zip(&cx.steps) {
                let enabled = animator.enabled(&state).expect("moves");
                assert_eq!(&enabled[*choice], taken, "the choice is the move's place");
                assert_eq!(taken.event, step.event);
                let recorded: Vec<(usize, StateKey)> = step
                    .moved
                    .iter()
                    .map(|m| (m.slot, m.state.clone()))
                    .collect();
                assert_eq!(targets(&animator, taken), recorded);
                let alike: Vec<&Enabled> = enabled
                    .iter()
                    .filter(|e| e.event == step.event && e.slots().eq(taken.slots()))
                    .collect();
                if alike.len() > 1 {
                    // The first move that looks alike is not the one
                    // recorded: only the states tell them apart.
                    assert_ne!(targets(&animator, alike[0]), recorded);
                    told_apart_by_state += 1;
                }
                state.clone_from(&taken.target);
            }
            assert_eq!(
                told_apart_by_state,
                1,
                "assertion {}: one step has a look-alike",
                index + 1
            );
        });
    }
}

#[test]
fn a_path_is_followed_only_as_far_as_it_is_a_behaviour() {
    let script = script();
    let choice = counterexample(&script, 0);
    let hidden = counterexample(&script, 1);
    with_large_stack(|| {
        let procs = Processes::new(&script).expect("events");
        let event = |name: &str| {
            (0..procs.events().id_count() as EventId)
                .find(|&e| procs.show_event(e) == name)
                .expect("an event of the script")
        };
        // The cell and its user have no τ of one component alone.
        let error = animator(&script, 1)
            .follow(choice.path())
            .expect_err("not a behaviour");
        assert_eq!(
            error,
            FollowError {
                step: 0,
                event: TAU
            }
        );
        // After handing over 1, the cell offers get.1, not get.0.
        let wrong_event = [
            hidden.path().next().expect("a first step"),
            PathStep {
                event: event("get.0"),
                moved: &hidden.steps[1].moved,
            },
        ];
        let error = animator(&script, 1)
            .follow(wrong_event)
            .expect_err("not a behaviour");
        assert_eq!(error.step, 1);
        assert_eq!(procs.show_event(error.event), "get.0");
        // Both hand-overs look alike; neither leaves the components in
        // their initial states, so neither is taken.
        let mut unreachable = hidden.steps[0].moved.clone();
        for m in &mut unreachable {
            m.state = hidden.initial[m.slot].clone();
        }
        let wrong_states = [PathStep {
            event: TAU,
            moved: &unreachable,
        }];
        let error = animator(&script, 1)
            .follow(wrong_states)
            .expect_err("no move reaches those states");
        assert_eq!(
            error,
            FollowError {
                step: 0,
                event: TAU
            }
        );
    });
}

/// A choice of twenty thousand events, hidden or synchronised, lists
/// each move with the event its components performed. (Finding it once
/// compared every event of a component with every other, for each move:
/// minutes for a choice this wide, with the animator frozen.)
#[test]
fn a_wide_choice_lists_every_move_with_what_its_components_performed() {
    let script = Script::load_str(
        "wide.csp",
        "channel c, d : {0..19999}
P = c?x -> d!x -> P
Q = c?x -> d!x -> Q
Loop = c?x -> Loop
assert STOP [T= P \\ {| c |}
assert STOP [T= P [| {| c |} |] Q
assert STOP [T= (P [| {| c |} |] Q) \\ {| c |}
assert STOP [T= Loop
",
    )
    .expect("the script loads");
    with_large_stack(|| {
        for (index, shown, hidden) in [
            (0, "τ", Some("c.12345")),
            (1, "c.12345", None),
            (2, "τ", Some("c.12345")),
            // Every move back to the same state.
            (3, "c.12345", None),
        ] {
            let mut animator = animator(&script, index);
            let initial = animator.initial();
            let moves = animator.enabled(&initial).expect("the moves");
            assert_eq!(moves.len(), 20_000, "assertion {index}");
            let one = &moves[12345];
            assert_eq!(one.label, shown, "assertion {index}");
            assert_eq!(one.hidden.as_deref(), hidden, "assertion {index}");
            let own: Vec<&str> = one
                .participants
                .iter()
                .map(|p| p.own_event.as_str())
                .collect();
            assert!(own.iter().all(|&e| e == "c.12345"), "{own:?}");
        }
    });
}
