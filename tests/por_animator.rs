//! Issue 63 in the animator: at a state, the moves a search reduced by
//! partial order follows, and why the others are left out. What the
//! animator explains is what the reduced search does (the same moves at
//! every state of the reduced graph, on the shipped table and on random
//! networks), the set it names is a stubborn set (what it follows is
//! within it, what it leaves out changes none of its components), and
//! the `p` key shows it in the Events pane.

// The helpers every animator test shares; this one needs the screen only.
#[allow(dead_code)]
mod common;

use common::{fire, run};
mod random_networks;

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use proptest::prelude::*;
use symcsp::lts::animator::Animator;
use symcsp::lts::machine::{Joined, Moves, Preserve, StubbornSet};
use symcsp::process::EventId;
use symcsp::script::Script;
use symcsp::stack::with_large_stack;
use symcsp::tui::app::{Action, App, Start, update};
use symcsp::tui::config::{Command, Config};
use symcsp::tui::model::Source;

/// A move as both sides see it: its event and the state after it.
type Step = (EventId, Vec<u32>);

/// The states of the graph of assertion `index`'s process reduced by
/// partial order keeping `preserve` visited (up to `limit`), at each
/// the reduced search's moves and those the animator says it follows
/// compared; checks at each that the explained set is a stubborn set.
/// Returns the states visited and how many of them left a move out.
fn explained_alike(
    script: &Script,
    index: usize,
    preserve: Preserve,
    limit: usize,
) -> (usize, usize) {
    with_large_stack(|| {
        let func = script.assertions[index].kind.implementation();
        let mut animator = Animator::load(script, func).expect("animates");
        // The reduced search's moves at each state it reaches, on the
        // animator's own machine (so that states are numbered alike).
        let searched = animator.lend_machine(|procs, mut machine| {
            let note = machine
                .reduce_partial_order(procs, preserve)
                .expect("reduces");
            let mut found: BTreeMap<Vec<u32>, Vec<Step>> = BTreeMap::new();
            if note.contains("applied (") {
                let mut todo = vec![machine.initial().to_vec()];
                let (mut moves, mut next) = (Moves::default(), Vec::new());
                while let Some(state) = todo.pop() {
                    if found.contains_key(&state) {
                        continue;
                    }
                    machine.moves(procs, &state, &mut moves).expect("moves");
                    let mut steps = Vec::new();
                    for m in &moves.list {
                        moves.apply(m, &state, &mut next);
                        steps.push((m.event, next.clone()));
                        if found.len() < limit {
                            todo.push(next.clone());
                        }
                    }
                    found.insert(state, steps);
                }
            }
            machine.forget_partial_order();
            (machine, found)
        });
        let initial = animator.initial();
        let explained = matches!(animator.stubborn_set(&initial, preserve), Ok(Ok(_)));
        assert_eq!(explained, !searched.is_empty());
        let (states, mut reduced_states) = (searched.len(), 0);
        for (state, mut searched) in searched {
            let enabled = animator.enabled(&state).expect("moves");
            let (_, set) = animator
                .stubborn_set(&state, preserve)
                .expect("explains")
                .expect("applies");
            let followed: Vec<bool> = match &set {
                StubbornSet::Trivial | StubbornSet::Whole(_) => vec![true; enabled.len()],
                StubbornSet::Reduced { followed, members } => {
                    reduced_states += 1;
                    let slots: BTreeSet<usize> = members.iter().map(|m| m.slot).collect();
                    assert_eq!(members[0].joined, Joined::Seed);
                    for (k, e) in enabled.iter().enumerate() {
                        let own: BTreeSet<usize> = e.slots().collect();
                        if followed[k] {
                            assert!(own.is_subset(&slots), "{} outside {slots:?}", e.label);
                        } else {
                            // A move left out takes part with the set's
                            // components only by steps that leave them
                            // as they are.
                            for &slot in own.intersection(&slots) {
                                assert_eq!(
                                    e.target[slot],
                                    state[slot],
                                    "{} changes #{} of {slots:?}",
                                    e.label,
                                    slot + 1
                                );
                            }
                        }
                    }
                    for (n, member) in members.iter().enumerate() {
                        let earlier = |slot| members[..n].iter().any(|m| m.slot == slot);
                        match member.joined {
                            Joined::Seed => assert_eq!(n, 0),
                            Joined::Shares { with, m } => {
                                assert!(earlier(with));
                                let own: Vec<usize> = enabled[m].slots().collect();
                                assert!(own.contains(&with) && own.contains(&member.slot));
                            }
                            Joined::Waits { of, .. } => assert!(earlier(of)),
                        }
                    }
                    followed.clone()
                }
            };
            assert_eq!(followed.len(), enabled.len());
            let mut said: Vec<Step> = enabled
                .iter()
                .zip(&followed)
                .filter(|(_, f)| **f)
                .map(|(e, _)| (e.event, e.target.clone()))
                .collect();
            searched.sort();
            said.sort();
            assert_eq!(said, searched, "at {state:?}");
        }
        (states, reduced_states)
    })
}

fn forks(n: usize) -> Script {
    let text = std::fs::read_to_string("models/forks.csp").expect("the model");
    let text = text.replace("N = 5\n", &format!("N = {n}\n"));
    Script::load_str("forks.csp", &text).unwrap_or_else(|e| panic!("{}", e.render()))
}

#[test]
fn the_animator_explains_the_moves_the_reduced_search_follows() {
    let script = forks(4);
    // The table, the table with its butler, and the butler's table with
    // eating hidden (where traces kept leave the τs to reduce).
    for (index, preserve) in [
        (0, Preserve::Deadlocks),
        (0, Preserve::Behaviour),
        (2, Preserve::Deadlocks),
        (4, Preserve::Divergences),
        (4, Preserve::Behaviour),
    ] {
        let (states, reduced) = explained_alike(&script, index, preserve, 4000);
        assert!(states > 10, "assertion {}: {states} states", index + 1);
        if preserve == Preserve::Deadlocks {
            assert!(reduced > 0, "assertion {}: nothing left out", index + 1);
        }
    }
    // Pollers sharing a cell, where moves left out read what the set
    // reads.
    let reads = Script::load_file(std::path::Path::new("tests/fixtures/por/reads.csp"))
        .unwrap_or_else(|e| panic!("{}", e.render()));
    let (states, reduced) = explained_alike(&reads, 0, Preserve::Deadlocks, 4000);
    assert_eq!(states, 64, "of 133 whole");
    assert!(reduced > 0);
    // Keeping traces, the reads are visible: every state whole.
    assert_eq!(
        explained_alike(&reads, 0, Preserve::Behaviour, 4000),
        (133, 0)
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// On random networks, plain and with an event hidden, the animator's
    /// marks are the reduced search's moves, in every mode.
    #[test]
    fn random_networks_are_explained_as_they_are_searched(text in random_networks::network()) {
        let script = Script::load_str("network.csp", &text)
            .unwrap_or_else(|e| panic!("{}\n{text}", e.render()));
        for preserve in [Preserve::Deadlocks, Preserve::Divergences, Preserve::Behaviour] {
            // Assertion 1 is the system, 2 the system with an event hidden.
            explained_alike(&script, 0, preserve, 2000);
            explained_alike(&script, 1, preserve, 2000);
        }
    }
}

fn screen(app: &mut App) -> String {
    update(
        app,
        Action::Resize {
            width: 140,
            height: 40,
        },
    );
    app.settle();
    common::screen(app, 140, 40)
}

fn animate(path: &str, process: &str) -> App {
    let mut app = App::start(
        Source::File(PathBuf::from(path)),
        Start {
            process: Some(process.into()),
            ..Start::default()
        },
        Config::default(),
    );
    app.settle();
    app
}

/// The Events pane's text: the columns right of the State pane.
fn events_pane(screen: &str) -> String {
    screen
        .lines()
        .map(|line| {
            line.chars()
                .skip(90)
                .map(|c| if c == '│' { ' ' } else { c })
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_p_key_marks_the_stubborn_set_and_says_why_the_rest_is_left_out() {
    with_large_stack(|| {
        let mut app = animate("models/forks.csp", "Table");
        fire(&mut app, "pickup.0.0");
        fire(&mut app, "pickup.1.1");
        run(
            &mut app,
            &[Command::PartialOrder, Command::Down, Command::Down],
        );
        let shown = screen(&mut app);
        let pane = events_pane(&shown);
        for expected in [
            "Events (4, 2 followed)",
            "1 ● pickup.1.2  #2 #8",
            "2 ● pickup.2.2  #3 #8",
            "3 ○ pickup.3.3  #4 #9",
            "4 ○ pickup.4.4  #5 #10",
            "#2 starts the set",
            "#8 takes part in pickup.1.2 with #2",
            "#3 takes part in pickup.2.2 with #8",
        ] {
            assert!(pane.contains(expected), "{expected:?} not in\n{pane}");
        }
        let words: String = pane.split_whitespace().collect::<Vec<_>>().join(" ");
        for expected in [
            "follows 2 of 4, the stubborn set of #2, #3, #8",
            "pickup.3.3 (#4, #9): left out, it shares no component with #2, #3, #8",
        ] {
            assert!(words.contains(expected), "{expected:?} not in\n{pane}");
        }
        insta::assert_snapshot!("por_marks_forks", shown);

        // Keeping traces, every move of this table is visible: all followed.
        run(&mut app, &[Command::PartialOrder]);
        let pane = events_pane(&screen(&mut app));
        let words: String = pane.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            words.contains("(traces, failures and divergences kept): follows every move (4)"),
            "{pane}"
        );
        assert!(
            words.contains("the set from #2: it holds pickup.1.2, a visible event"),
            "{pane}"
        );
        assert!(!pane.contains('○'), "{pane}");

        // Off again.
        run(&mut app, &[Command::PartialOrder]);
        let pane = events_pane(&screen(&mut app));
        assert!(
            !pane.contains("Partial order") && !pane.contains('●'),
            "{pane}"
        );
    });
}

#[test]
fn a_read_left_out_beside_a_read_of_the_same_cell_says_they_commute() {
    with_large_stack(|| {
        let mut app = animate("tests/fixtures/por/reads.csp", "System");
        fire(&mut app, "write.1");
        run(&mut app, &[Command::PartialOrder, Command::Down]);
        let pane = events_pane(&screen(&mut app));
        let words: String = pane.split_whitespace().collect::<Vec<_>>().join(" ");
        for expected in [
            "follows 1 of 3, the stubborn set of #1, #5",
            "read.P2.1 (#2, #5): left out, it meets the set of #1, #5 only by #5's \
             read.P2.1, which leaves the component as it is and commutes with every move of \
             the set there",
            "#1 starts the set",
            "#5 takes part in read.P1.1 with #1",
        ] {
            assert!(words.contains(expected), "{expected:?} not in\n{pane}");
        }
    });
}

#[test]
fn a_process_the_reduction_cannot_reduce_says_why() {
    with_large_stack(|| {
        let text = "external prioritise\n\
                    channel a, b\n\
                    P = a -> P\n\
                    Q = b -> Q\n\
                    R = prioritise(P ||| Q, <{a}>)\n";
        let dir = tempfile::tempdir().expect("a folder");
        let path = dir.path().join("prioritised.csp");
        std::fs::write(&path, text).expect("written");
        let mut app = animate(path.to_str().expect("a path"), "R");
        run(&mut app, &[Command::PartialOrder]);
        let pane = events_pane(&screen(&mut app));
        let words: String = pane.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            words.contains("Partial order: not applied: a prioritise operator"),
            "{pane}"
        );
        assert!(pane.contains("● a"), "{pane}");
    });
}

#[test]
fn a_click_on_the_words_under_the_list_selects_nothing() {
    with_large_stack(|| {
        let text = std::fs::read_to_string("models/forks.csp").expect("the model");
        let dir = tempfile::tempdir().expect("a folder");
        let path = dir.path().join("forks8.csp");
        std::fs::write(&path, text.replace("N = 5\n", "N = 8\n")).expect("written");
        let mut app = animate(path.to_str().expect("a path"), "Table");
        run(&mut app, &[Command::PartialOrder]);
        update(
            &mut app,
            Action::Resize {
                width: 140,
                height: 20,
            },
        );
        app.settle();
        common::screen(&mut app, 140, 20);
        let events = app
            .layout
            .regions
            .iter()
            .find(|r| r.pane == symcsp::tui::config::PaneId::EVENTS)
            .expect("the Events pane")
            .rect;
        let selected = |app: &App| {
            app.panes
                .of_type::<symcsp::tui::panes::events::EventsPane>()
                .list
                .selected
        };
        // The last row inside the pane holds the marks' words, where the
        // list's sixth row would be without them.
        let words_row = events.bottom() - 2;
        assert!(words_row - events.y - 1 < 8, "{events:?}");
        update(
            &mut app,
            Action::Click {
                column: events.x + 3,
                row: words_row,
            },
        );
        app.settle();
        assert_eq!(selected(&app), 0);
        update(
            &mut app,
            Action::Click {
                column: events.x + 3,
                row: events.y + 2,
            },
        );
        app.settle();
        assert_eq!(selected(&app), 1);
    });
}
