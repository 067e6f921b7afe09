//! The animator's symmetry view: the state beside its representative,
//! the algorithm stage by stage (on the paper's Example 37), comparing
//! two states (the three answers, Example 43's ring among them), the
//! state as a graph, walking the reduced system, and what the view says
//! where there is nothing to reduce — `update` for each key, and
//! TestBackend snapshots, at 80×24 and without colour too.

// The helpers every animator test shares; this one uses some of them.
#[allow(dead_code)]
mod common;

use common::run;

use std::path::PathBuf;

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use symcsp::builtin::LISTSTACK;
use symcsp::stack::with_large_stack;
use symcsp::tui::app::{Action, App, Overlay, Start, update};
use symcsp::tui::config::{Command, Config, PaneId};
use symcsp::tui::model::Source;
use symcsp::tui::panes::symmetry::Section;
use symcsp::tui::panes::symmetry::SymmetryPane;
use symcsp::tui::prompt::PromptKey;
use symcsp::tui::session::Session;
use symcsp::tui::view::view;
use symcsp::tui::walk::Walk;

fn open(source: Source, process: &str, config: Config) -> App {
    let mut app = App::new(source, Some(process.to_string()), config);
    app.settle();
    app
}

fn file(path: &str) -> Source {
    Source::File(PathBuf::from(path))
}

fn walk(app: &App) -> &Walk {
    app.walk.as_ref().expect("a process is animated")
}

/// Fires the move labelled `label` (the event a τ hides counts too).
fn fire(app: &mut App, label: &str) {
    fire_to(app, label, "");
}

/// Fires the move labelled `label` whose components read `after` (a
/// part of their text) after it, among moves that read the same.
fn fire_to(app: &mut App, label: &str, after: &str) {
    let i = walk(app)
        .moves()
        .iter()
        .position(|m| {
            (m.label == label || m.hidden.as_deref() == Some(label))
                && (m.after.is_empty() || m.after.iter().any(|(_, t)| t.contains(after)))
        })
        .unwrap_or_else(|| {
            let labels: Vec<_> = walk(app).moves().iter().map(|m| m.label.clone()).collect();
            panic!("no move {label} among {labels:?}")
        });
    app.fire(i);
    app.settle();
}

fn message(app: &App) -> String {
    app.message
        .as_ref()
        .map(|m| m.text.clone())
        .unwrap_or_default()
}

/// The screen at `width` × `height`, the animator told the size first.
fn screen(app: &mut App, width: u16, height: u16) -> String {
    update(app, Action::Resize { width, height });
    app.settle();
    common::screen(app, width, height)
}

/// The built-in ListStack after two pushes by two threads.
fn two_pushes() -> App {
    let mut app = open(Source::Builtin(LISTSTACK), "System", Config::default());
    for (label, after) in [
        ("lock.T0", ""),
        ("getTop.T0.Null", "!A!"),
        ("initNode.T0.N0.A.Null", ""),
        ("setTop.T0.N0", ""),
        ("push.T0.A", ""),
        ("unlock.T0", ""),
        ("lock.T1", ""),
        ("getTop.T1.N0", "!B!"),
        ("initNode.T1.N1.B.N0", ""),
        ("setTop.T1.N1", ""),
        ("push.T1.B", ""),
        ("unlock.T1", ""),
    ] {
        fire_to(&mut app, label, after);
    }
    app.message = None;
    app
}

#[test]
fn the_view_shows_the_state_beside_its_representative_and_follows_the_steps() {
    with_large_stack(|| {
        let mut app = two_pushes();
        run(&mut app, &[Command::ToggleSymmetry]);
        assert!(app.panes.of_type::<SymmetryPane>().open);
        assert_eq!(app.focus, PaneId::SYMMETRY);
        let x = walk(&app).shown.as_ref().unwrap().symmetry.clone().unwrap();
        // Component 3 is the list's last node; its image is the
        // representative's last node (a permutation keeps the list).
        assert_eq!(x.state[2], "Node(N0, A, Null)");
        assert!(
            x.representative[x.alpha[2]].ends_with(", Null)"),
            "{:?}",
            x.representative
        );
        insta::assert_snapshot!("symmetry_view", screen(&mut app, 140, 40));
        // Every step updates it.
        fire(&mut app, "lock.T0");
        let after = walk(&app).shown.as_ref().unwrap().symmetry.clone().unwrap();
        assert_eq!(after.state[6], "unlock!T0 -> Lock");
        run(&mut app, &[Command::ToggleSymmetry]);
        assert!(!app.panes.of_type::<SymmetryPane>().open);
        assert_eq!(app.focus, PaneId::EVENTS);
    });
}

#[test]
fn the_algorithm_of_example_37_is_stepped_through_stage_by_stage() {
    with_large_stack(|| {
        let mut app = open(
            file("models/paper/example37.csp"),
            "Nodes",
            Config::default(),
        );
        for label in [
            "initNode.N4.B.Null",
            "initNode.N0.B.N4",
            "initNode.N1.B.N0",
            "initNode.N3.B.N1",
        ] {
            fire(&mut app, label);
        }
        run(&mut app, &[Command::AlgorithmNext]);
        assert!(app.panes.of_type::<SymmetryPane>().open);
        assert_eq!(
            app.panes.of_type::<SymmetryPane>().section,
            Section::Algorithm
        );
        let x = walk(&app).shown.as_ref().unwrap().symmetry.clone().unwrap();
        // Step 1, two rounds of step 2, the split of the free nodes and a
        // last round, then the orderings.
        let stages = x.trace.steps.len() + 1;
        assert_eq!(stages, 6);
        let mut shots = Vec::new();
        for stage in 0..stages {
            assert_eq!(app.panes.of_type::<SymmetryPane>().stage, stage);
            shots.push(screen(&mut app, 140, 40));
            run(&mut app, &[Command::AlgorithmNext]);
        }
        assert!(message(&app).contains("last stage"), "{}", message(&app));
        // The paper's step 1: free nodes, the three inner nodes, the last.
        assert!(
            shots[0].contains(
                "c2  [ #1 Node(N0, B, N4)  ·  #2 Node(N1, B, N0)  ·  #4 Node(N3, B, N1) ]"
            ),
            "{}",
            shots[0]
        );
        // Step 2's table names what each entry counts; N(N0, B, N4)'s row
        // is the paper's <0, 1, 1, 0; 3, 1; 0, 0, 1, 1>.
        assert!(shots[1].contains("me→c1.me"), "{}", shots[1]);
        assert!(shots[1].contains("split off"), "{}", shots[1]);
        for (k, shot) in shots.iter().enumerate() {
            insta::assert_snapshot!(format!("example_37_stage_{}", k + 1), shot);
        }
        run(&mut app, &[Command::AlgorithmBack, Command::AlgorithmBack]);
        assert_eq!(app.panes.of_type::<SymmetryPane>().stage, stages - 3);
        run(&mut app, &[Command::Cancel]);
        assert_eq!(
            app.panes.of_type::<SymmetryPane>().section,
            Section::Representative
        );
    });
}

#[test]
fn comparing_says_same_or_not_symmetric_with_the_evidence() {
    with_large_stack(|| {
        let mut app = open(Source::Builtin(LISTSTACK), "System", Config::default());
        run(&mut app, &[Command::Compare]);
        assert!(
            message(&app).contains("mark a state first"),
            "{}",
            message(&app)
        );
        for (label, after) in [
            ("lock.T0", ""),
            ("getTop.T0.Null", "!A!"),
            ("initNode.T0.N0.A.Null", ""),
        ] {
            fire_to(&mut app, label, after);
        }
        run(&mut app, &[Command::Mark]);
        assert!(
            message(&app).contains("state 3 marked"),
            "{}",
            message(&app)
        );
        // A state compared with itself is said to be one state.
        run(&mut app, &[Command::Compare]);
        let itself = app.panes.of_type::<SymmetryPane>().compared.clone();
        assert_eq!(
            itself.map(|c| c.sentences[0].clone()).as_deref(),
            Some("the marked state is this one: mark another (m) to compare two")
        );
        // The same steps with another node: a symmetric state.
        run(&mut app, &[Command::Initial]);
        for (label, after) in [
            ("lock.T0", ""),
            ("getTop.T0.Null", "!A!"),
            ("initNode.T0.N2.A.Null", ""),
        ] {
            fire_to(&mut app, label, after);
        }
        run(&mut app, &[Command::Compare]);
        assert_eq!(
            app.panes.of_type::<SymmetryPane>().section,
            Section::Compare
        );
        let c = app
            .panes
            .of_type::<SymmetryPane>()
            .compared
            .clone()
            .unwrap();
        assert_eq!(c.headline, "same representative");
        assert!(c.permutation[0].contains("N0 ↦ N2"), "{:?}", c.permutation);
        // α as well: which component of the marked state became which.
        assert_eq!(c.alpha.len(), c.marked.len());
        let shown = screen(&mut app, 140, 40);
        assert!(shown.contains("components (α): "), "{shown}");
        insta::assert_snapshot!("compare_same", shown);
        // Another datum, and the top set: not symmetric.
        fire(&mut app, "setTop.T0.N2");
        run(&mut app, &[Command::Compare]);
        let c = app
            .panes
            .of_type::<SymmetryPane>()
            .compared
            .clone()
            .unwrap();
        assert!(c.headline.starts_with("not symmetric"), "{}", c.headline);
        assert!(c.parting.is_some());
        insta::assert_snapshot!("compare_not_symmetric", screen(&mut app, 140, 40));
        // A state marked in the reduced walk is that walk's state, compared
        // with the raw state shown after W: not the reduced one beside it.
        run(&mut app, &[Command::Initial]);
        for (label, after) in [
            ("lock.T0", ""),
            ("getTop.T0.Null", "!A!"),
            ("initNode.T0.N0.A.Null", ""),
        ] {
            fire_to(&mut app, label, after);
        }
        run(
            &mut app,
            &[Command::WalkReduced, Command::Mark, Command::WalkReduced],
        );
        assert!(!walk(&app).reduced);
        run(&mut app, &[Command::Compare]);
        let c = app
            .panes
            .of_type::<SymmetryPane>()
            .compared
            .clone()
            .unwrap();
        assert_eq!(c.headline, "same representative");
        assert_ne!(c.marked, c.here, "the representative against the raw state");
        assert!(!c.permutation.is_empty(), "{c:?}");
    });
}

/// Evidence from a round of step 2 counts the components of a cell as
/// it was before the round split it: the screen shows that partition
/// (not the one after), the cell's n-values side by side as `symcsp why`
/// shows them, and both representatives.
#[test]
fn comparing_by_n_values_shows_the_cell_the_sentence_counts_in() {
    with_large_stack(|| {
        let mut app = open(
            file("models/paper/example37.csp"),
            "Nodes",
            Config::default(),
        );
        let list = ["initNode.N4.B.Null", "initNode.N0.B.N4", "initNode.N1.B.N0"];
        for label in list.iter().chain(&["initNode.N3.B.N1"]) {
            fire(&mut app, label);
        }
        run(&mut app, &[Command::Mark, Command::Initial]);
        for label in list.iter().chain(&["initNode.N3.B.N0"]) {
            fire(&mut app, label);
        }
        run(&mut app, &[Command::Compare]);
        let c = app
            .panes
            .of_type::<SymmetryPane>()
            .compared
            .clone()
            .unwrap();
        assert!(c.headline.starts_with("not symmetric"), "{}", c.headline);
        let parting = c.parting.clone().expect("the partitions");
        assert_eq!(parting.step, "before step 2, round 1");
        // Before round 1 the three nodes with a successor are one cell
        // (cell 2), as the sentence counts them; the round splits it.
        let nodes = |cells: &[Vec<usize>], texts: &[String]| -> Vec<usize> {
            cells
                .iter()
                .map(|cell| {
                    cell.iter()
                        .filter(|&&m| texts[m].starts_with("Node("))
                        .count()
                })
                .collect()
        };
        assert_eq!(nodes(&parting.marked, &c.marked)[1], 3, "{parting:?}");
        assert_eq!(nodes(&parting.here, &c.here)[1], 3, "{parting:?}");
        assert!(
            c.n_values
                .iter()
                .any(|l| l.contains("Node(N3, B, N1)")
                    && l.contains("⟨0, 1, 0, 0; 3, 1; 0, 1, 1, 0⟩")),
            "{:?}",
            c.n_values
        );
        assert!(
            c.n_values
                .iter()
                .any(|l| l.contains("⟨0, 1, 0, 0; 3, 1; 0, 1, 2, 0⟩")),
            "{:?}",
            c.n_values
        );
        assert!(c.representatives[0].contains("representative of 1"));
        let shown = screen(&mut app, 140, 50);
        assert!(
            shown.contains("the partitions side by side before step 2, round 1"),
            "{shown}"
        );
        assert!(shown.contains("sorted by n-value"), "{shown}");
    });
}

#[test]
fn comparing_example_43s_rings_finds_the_permutation_and_the_split() {
    with_large_stack(|| {
        let mut app = open(
            file("models/paper/example43.csp"),
            "Ring",
            Config::default(),
        );
        for label in [
            "link.N0.A.N1",
            "link.N1.A.N2",
            "link.N2.B.N3",
            "link.N3.B.N0",
        ] {
            fire(&mut app, label);
        }
        run(&mut app, &[Command::Mark, Command::Initial]);
        for label in [
            "link.N0.A.N1",
            "link.N1.B.N2",
            "link.N2.B.N3",
            "link.N3.A.N0",
        ] {
            fire(&mut app, label);
        }
        run(&mut app, &[Command::Compare]);
        let c = app
            .panes
            .of_type::<SymmetryPane>()
            .compared
            .clone()
            .unwrap();
        assert_eq!(
            c.headline,
            "symmetric, but the representative is not unique here"
        );
        assert!(!c.permutation.is_empty());
        assert!(
            c.sentences
                .iter()
                .any(|s| s.contains("not fully symmetric")),
            "{:?}",
            c.sentences
        );
        insta::assert_snapshot!("compare_not_unique", screen(&mut app, 140, 40));
        // The ring as a graph: a chain whose last arrow goes back.
        run(&mut app, &[Command::Graph]);
        assert_eq!(app.panes.of_type::<SymmetryPane>().section, Section::Graph);
        let shown = screen(&mut app, 140, 40);
        assert!(shown.contains("↺"), "{shown}");
        insta::assert_snapshot!("graph_ring", shown);
        run(&mut app, &[Command::Graph]);
        assert_eq!(
            app.panes.of_type::<SymmetryPane>().section,
            Section::Representative
        );
    });
}

#[test]
fn a_linked_list_is_drawn_as_a_chain() {
    with_large_stack(|| {
        let mut app = two_pushes();
        run(&mut app, &[Command::Graph]);
        assert!(app.panes.of_type::<SymmetryPane>().open);
        let shown = screen(&mut app, 140, 40);
        assert!(
            shown.contains("Top(N1) ─top→ #4 Node(N1, B, N0) ─next→ #3 Node(N0, A, Null)"),
            "{shown}"
        );
        insta::assert_snapshot!("graph_list", shown);
    });
}

#[test]
fn walking_the_reduced_system_steps_through_representatives() {
    with_large_stack(|| {
        let mut app = open(Source::Builtin(LISTSTACK), "System", Config::default());
        run(&mut app, &[Command::WalkReduced]);
        assert!(walk(&app).reduced);
        assert!(walk(&app).shown.as_ref().unwrap().reduced);
        fire(&mut app, "lock.T0");
        fire_to(&mut app, "getTop.T0.Null", "!A!");
        // T0 takes N0; the free nodes N1 and N2 come first in the
        // representative, so N0 becomes N2.
        fire(&mut app, "initNode.T0.N0.A.Null");
        let reduced = walk(&app).shown.as_ref().unwrap().components.clone();
        assert!(
            reduced.contains(&"Node(N2, A, Null)".to_string()),
            "{reduced:?}"
        );
        // The components marked changed are T0's and the node it took,
        // where the representative shows them: N0's node is N2's there,
        // and the free node shown as N0's did not move.
        let changed: Vec<&str> = walk(&app)
            .shown
            .as_ref()
            .unwrap()
            .changed
            .iter()
            .map(|&slot| reduced[slot].as_str())
            .collect();
        assert_eq!(changed.len(), 2, "{changed:?} of {reduced:?}");
        assert!(changed[0].starts_with("setTop!T0!N2"), "{changed:?}");
        assert_eq!(changed[1], "Node(N2, A, Null)", "{changed:?}");
        let shown = screen(&mut app, 140, 40);
        assert!(shown.contains("Trace (3 of 3) — reduced walk"), "{shown}");
        assert!(shown.contains("π NodeID: N0 ↦…"), "{shown}");
        let w = walk(&app);
        assert_eq!(
            w.names.permutation(w.path.step(3).permutation),
            "NodeID: N0 ↦ N2, N1 ↦ N0, N2 ↦ N1"
        );
        insta::assert_snapshot!("reduced_walk", shown);
        // A move of the representative: the raw walk takes its image.
        fire(&mut app, "setTop.T0.N2");
        // Back to the raw walk: the same path, in the raw system's terms.
        run(&mut app, &[Command::WalkReduced]);
        let w = walk(&app);
        assert!(!w.reduced);
        assert_eq!(
            w.step_label(3),
            ("τ".to_string(), Some("initNode.T0.N0.A.Null".to_string()))
        );
        assert_eq!(
            w.step_label(4),
            ("τ".to_string(), Some("setTop.T0.N0".to_string()))
        );
        let raw = w.shown.as_ref().unwrap().components.clone();
        assert!(raw.contains(&"Node(N0, A, Null)".to_string()), "{raw:?}");
        assert!(raw.contains(&"Top(N0)".to_string()), "{raw:?}");
    });
}

#[test]
fn where_there_is_nothing_to_reduce_the_view_says_why() {
    with_large_stack(|| {
        // A token ring names its first node: not symmetric.
        let mut app = open(file("models/tokenring.csp"), "System", Config::default());
        run(&mut app, &[Command::ToggleSymmetry]);
        let shown = screen(&mut app, 140, 40);
        assert!(shown.contains("not reduced by symmetry"), "{shown}");
        assert!(
            shown.contains("N0 left out: it is named at models/tokenring.csp:51:9"),
            "{shown}"
        );
        insta::assert_snapshot!("not_symmetric", shown);
        run(&mut app, &[Command::WalkReduced]);
        assert!(
            message(&app).contains("no reduced walk"),
            "{}",
            message(&app)
        );
        run(&mut app, &[Command::AlgorithmNext]);
        assert!(message(&app).contains("not symmetric"), "{}", message(&app));
        // A process with no datatype at all.
        let mut counter = open(
            file("tests/fixtures/tui/counter.csp"),
            "System",
            Config::default(),
        );
        run(&mut counter, &[Command::ToggleSymmetry]);
        let shown = screen(&mut counter, 100, 30);
        assert!(shown.contains("the script has no datatype"), "{shown}");
    });
}

#[test]
fn the_view_fits_80_by_24_and_reads_without_colour() {
    with_large_stack(|| {
        let mut app = two_pushes();
        run(&mut app, &[Command::ToggleSymmetry]);
        insta::assert_snapshot!("symmetry_view_80x24", screen(&mut app, 80, 24));
        let mut plain = open(
            Source::Builtin(LISTSTACK),
            "System",
            Config::load(None, true),
        );
        for (label, after) in [
            ("lock.T0", ""),
            ("getTop.T0.Null", "!A!"),
            ("initNode.T0.N0.A.Null", ""),
        ] {
            fire_to(&mut plain, label, after);
        }
        run(&mut plain, &[Command::ToggleSymmetry]);
        update(
            &mut plain,
            Action::Resize {
                width: 140,
                height: 40,
            },
        );
        let mut terminal = Terminal::new(TestBackend::new(140, 40)).unwrap();
        terminal
            .draw(|frame| {
                view(&plain, frame);
            })
            .unwrap();
        assert_eq!(common::coloured_cells(terminal.backend().buffer()), 0);
        // Moved values are underlined, so they show without colour.
        let underlined = terminal
            .backend()
            .buffer()
            .content()
            .iter()
            .filter(|c| c.modifier.contains(ratatui::style::Modifier::UNDERLINED))
            .count();
        assert!(underlined > 0);
    });
}

#[test]
fn one_component_and_no_distinguished_values_get_a_plain_view() {
    with_large_stack(|| {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("one.csp");
        std::fs::write(
            &path,
            "datatype T = A | B | C\nchannel c : T\nchannel tick\n\
             P = tick -> c?x -> Q(x)\nQ(x) = c!x -> P\n",
        )
        .unwrap();
        let mut app = open(Source::File(path), "P", Config::default());
        // The initial state holds no value of T.
        run(&mut app, &[Command::ToggleSymmetry]);
        let shown = screen(&mut app, 120, 30);
        assert!(
            shown.contains("the identity: this state is its own representative"),
            "{shown}"
        );
        run(&mut app, &[Command::AlgorithmNext, Command::AlgorithmNext]);
        let shown = screen(&mut app, 120, 30);
        assert!(shown.contains("stage 2 of 2"), "{shown}");
        assert!(shown.contains("(no distinguished value)"), "{shown}");
        run(&mut app, &[Command::Graph]);
        let shown = screen(&mut app, 120, 30);
        assert!(shown.contains("#1 P"), "{shown}");
        // One component holding B: its representative holds A.
        fire(&mut app, "tick");
        fire(&mut app, "c.B");
        run(&mut app, &[Command::Graph]);
        let x = walk(&app).shown.as_ref().unwrap().symmetry.clone().unwrap();
        assert_eq!(x.state, ["Q(B)"]);
        assert_eq!(x.representative, ["Q(A)"]);
        run(&mut app, &[Command::Mark]);
        run(&mut app, &[Command::Undo]);
        fire(&mut app, "c.C");
        run(&mut app, &[Command::Compare]);
        let c = app
            .panes
            .of_type::<SymmetryPane>()
            .compared
            .clone()
            .unwrap();
        assert_eq!(c.headline, "same representative");
        // Tiny terminals get a plain message, not a broken view.
        let shown = screen(&mut app, 50, 12);
        assert!(shown.contains("Terminal too small"), "{shown}");
    });
}

#[test]
fn types_asked_for_are_checked_at_once_and_kept_in_a_saved_session() {
    with_large_stack(|| {
        let start = |symmetry: &str| {
            let mut app = App::start(
                Source::Builtin(LISTSTACK),
                Start {
                    process: Some("System".into()),
                    symmetry: Some(symmetry.into()),
                    ..Start::default()
                },
                Config::default(),
            );
            app.settle();
            app
        };
        // A type the script does not declare is refused on opening, not
        // only when the symmetry view is opened.
        let app = start("Colour");
        match &app.overlay {
            Some(Overlay::Problem(text)) => {
                assert!(text.starts_with("--symmetry:"), "{text}");
                assert!(text.contains("Colour"), "{text}");
            }
            other => panic!("no problem shown: {other:?}"),
        }
        // Types that apply open quietly, and a session saved under them
        // reopens under them.
        let mut app = start("Data");
        assert!(app.overlay.is_none());
        run(&mut app, &[Command::FireNth(1)]);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.ron");
        run(&mut app, &[Command::SaveSession]);
        common::type_text(&mut app, path.to_str().unwrap());
        update(&mut app, Action::Prompt(PromptKey::Confirm));
        app.settle();
        let session = Session::read(&path).unwrap();
        assert_eq!(session.symmetry.as_deref(), Some("Data"));
        let mut back = App::from_session(&session, path, None, Config::default()).unwrap();
        back.settle();
        run(&mut back, &[Command::ToggleSymmetry]);
        let shown = screen(&mut back, 140, 40);
        assert!(shown.contains("from --symmetry"), "{shown}");
        assert!(shown.contains("Data"), "{shown}");
    });
}

#[test]
fn a_narrow_view_wraps_the_graph_between_components_not_inside_them() {
    with_large_stack(|| {
        let mut app = two_pushes();
        run(&mut app, &[Command::Graph]);
        // Laid out anew for the narrower view: the chain goes on after
        // `…`, the list under its first label, no label cut in two.
        let shown = screen(&mut app, 60, 24);
        assert!(shown.contains("│… #3 Node(N0, A, Null)"), "{shown}");
        assert!(shown.contains("│            #2 Thread(T1)"), "{shown}");
        insta::assert_snapshot!("graph_narrow", shown);
    });
}

/// The ring of Example 43 after `trace`, its stages shown.
fn ring(trace: [&str; 4]) -> App {
    let mut app = open(
        file("models/paper/example43.csp"),
        "Ring",
        Config::default(),
    );
    for label in trace {
        fire(&mut app, label);
    }
    app.message = None;
    app
}

const AABB: [&str; 4] = [
    "link.N0.A.N1",
    "link.N1.A.N2",
    "link.N2.B.N3",
    "link.N3.B.N0",
];

/// Answers the open prompt with `text`.
fn answer(app: &mut App, text: &str) {
    common::type_text(app, text);
    update(app, Action::Prompt(PromptKey::Confirm));
    app.settle();
}

/// Example 37's list and free nodes, reached with `--after`, under the
/// types the CLI's tests name.
fn example_37() -> App {
    let mut app = App::start(
        file("models/paper/example37.csp"),
        Start {
            process: Some("Nodes".into()),
            symmetry: Some("NodeID, Data".into()),
            after: Some(
                "initNode.N4.B.Null, initNode.N0.B.N4, initNode.N1.B.N0, initNode.N3.B.N1".into(),
            ),
            ..Start::default()
        },
        Config::default(),
    );
    app.settle();
    app.message = None;
    app
}

#[test]
fn the_stage_view_opens_with_the_cell_sizes_and_goes_to_a_stage_by_number() {
    with_large_stack(|| {
        let mut app = example_37();
        run(&mut app, &[Command::GoToStage]);
        match &app.overlay {
            Some(Overlay::Prompt(prompt)) => assert_eq!(prompt.hint, "1 to 5"),
            other => panic!("no prompt: {other:?}"),
        }
        answer(&mut app, "4");
        assert_eq!(
            app.panes.of_type::<SymmetryPane>().section,
            Section::Algorithm
        );
        assert_eq!(app.panes.of_type::<SymmetryPane>().stage, 3);
        let shown = screen(&mut app, 120, 40);
        // The same summary `rep --stages` prints, the stage shown marked.
        assert!(
            shown.contains(
                "│cell sizes  2,3,1 → 2,1,1,1,1 → 2,1,1,1,1 → [1,1,1,1,1,1] → 1,1,1,1,1,1"
            ),
            "{shown}"
        );
        assert!(shown.contains("stage 4 of 5"), "{shown}");
        insta::assert_snapshot!("stage_by_number_120x40", shown);
        let small = screen(&mut app, 80, 24);
        assert!(small.contains("[1,1,1,1,1,1]"), "{small}");
        insta::assert_snapshot!("stage_by_number_80x24", small);
        // Stepping on marks the next; the last stage (the orderings) has
        // no partition of its own, so none is marked.
        run(&mut app, &[Command::AlgorithmNext]);
        let next = screen(&mut app, 120, 40);
        assert!(next.contains("1,1,1,1,1,1 → [1,1,1,1,1,1]"), "{next}");
        run(&mut app, &[Command::AlgorithmNext]);
        let last = screen(&mut app, 120, 40);
        assert!(last.contains("after stage 5: the orderings"), "{last}");
        assert!(!last.contains("[1,"), "{last}");
        // Numbers that are not stages are refused, saying which are.
        for bad in ["7", "0", "two", ""] {
            run(&mut app, &[Command::GoToStage]);
            answer(&mut app, bad);
            assert!(
                message(&app).contains("stages 1 to 5"),
                "{bad}: {}",
                message(&app)
            );
            assert_eq!(app.panes.of_type::<SymmetryPane>().stage, 5);
        }
        // The help lists the key.
        let help: Vec<String> = symcsp::tui::view::help_lines(&app)
            .iter()
            .map(ToString::to_string)
            .collect();
        assert!(
            help.iter().any(|l| l
                .trim_start()
                .starts_with("#  go to a stage of the representative")),
            "{help:?}"
        );
    });
}

#[test]
fn the_stages_are_exported_as_markdown_as_rep_writes_them() {
    with_large_stack(|| {
        let mut app = example_37();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("stages.md");
        run(&mut app, &[Command::ExportStages]);
        answer(&mut app, path.to_str().unwrap());
        assert_eq!(
            message(&app),
            format!("the stages written to {} (Markdown)", path.display())
        );
        // Byte for byte what the command its heading gives prints (the
        // command's own heading gives it too), and nothing left beside.
        let written = std::fs::read_to_string(&path).unwrap();
        let command = reproduce_line(&written);
        assert_eq!(
            command,
            "symcsp rep models/paper/example37.csp Nodes --symmetry 'NodeID, Data' --path \
             120,13,9,38 --format markdown"
        );
        assert_eq!(run_rep(&command), written);
        let snapshot = std::fs::read_to_string(
            "tests/snapshots/cli_rep__example_37_exported_as_markdown.snap",
        )
        .unwrap();
        let cli = snapshot.splitn(3, "---\n").nth(2).unwrap();
        // The same document as `rep --after` prints (its snapshot),
        // reached by its trace rather than its moves.
        let document = |text: &str| {
            text.lines()
                .filter(|line| !line.starts_with("| reproduce |"))
                .collect::<Vec<_>>()
                .join("\n")
        };
        assert_eq!(document(&written), document(cli.trim_end()));
        let files: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(files.len(), 1, "no temporary file is left");
        // The status line says where, at 80 columns too.
        let shown = screen(&mut app, 80, 24);
        assert!(shown.contains("the stages written to"), "{shown}");
        // The path is offered again; a directory that does not exist is
        // refused in words, and nothing is written.
        run(&mut app, &[Command::ExportStages]);
        match &app.overlay {
            Some(Overlay::Prompt(prompt)) => assert_eq!(prompt.text(), path.to_str().unwrap()),
            other => panic!("no prompt: {other:?}"),
        }
        update(&mut app, Action::Prompt(PromptKey::Cancel));
        let missing = dir.path().join("no/such/dir/stages.md");
        run(&mut app, &[Command::ExportStages]);
        answer(&mut app, missing.to_str().unwrap());
        assert!(
            message(&app).starts_with("cannot write"),
            "{}",
            message(&app)
        );
        assert!(!missing.exists());
        // In the reduced walk the state shown is a representative no
        // command reaches: E writes the raw state there, which its
        // command reaches, and says so.
        run(&mut app, &[Command::WalkReduced]);
        let raw = dir.path().join("raw.md");
        run(&mut app, &[Command::ExportStages]);
        answer(&mut app, raw.to_str().unwrap());
        assert_eq!(
            message(&app),
            format!(
                "the stages of the raw state here (the reduced walk shows its representative) \
                 written to {} (Markdown)",
                raw.display()
            )
        );
        assert_eq!(std::fs::read_to_string(&raw).unwrap(), written);
    });
}

/// The `reproduce` line of an export's heading: the command, Markdown's
/// escapes undone.
fn reproduce_line(export: &str) -> String {
    let tail = export
        .lines()
        .find_map(|line| line.strip_prefix("| reproduce | "))
        .expect("the export gives its command");
    let mut text = String::new();
    let mut chars = tail.trim_end_matches(" |").chars();
    while let Some(c) = chars.next() {
        text.push(if c == '\\' { chars.next().unwrap() } else { c });
    }
    text
}

/// Runs `command` (`symcsp rep …`, words as a shell splits them:
/// spaces, single quotes) and returns what it prints.
fn run_rep(command: &str) -> String {
    let mut words: Vec<String> = Vec::new();
    let (mut word, mut quoted, mut started) = (String::new(), false, false);
    for c in command.chars() {
        match c {
            '\'' => (quoted, started) = (!quoted, true),
            ' ' if !quoted => {
                if started {
                    words.push(std::mem::take(&mut word));
                }
                started = false;
            }
            c => (word.push(c), started = true).0,
        }
    }
    if started {
        words.push(word);
    }
    assert_eq!(words[0], "symcsp", "{command}");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_symcsp"))
        .args(&words[1..])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{command}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn an_export_after_a_tau_and_a_hand_choice_gives_the_command_that_reproduces_it() {
    with_large_stack(|| {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("hidden.csp");
        // Each of three workers takes a job out of sight (a τ) before it
        // says whose it is: the state after the second worker's τ is not
        // the state its visible events reach first.
        std::fs::write(
            &script,
            "datatype W = A | B | C\nchannel job, done : W\n\
             Worker(w) = job.w -> done.w -> Worker(w)\n\
             System = (||| w : W @ Worker(w)) \\ {| job |}\n",
        )
        .unwrap();
        let mut app = open(Source::File(script.clone()), "System", Config::default());
        // The second τ of the initial state (worker B's job), then B's
        // done and A's job: τ, done.B, τ.
        fire(&mut app, "job.B");
        fire(&mut app, "done.B");
        fire(&mut app, "job.A");
        // Step 3 by hand at its first split: the next member.
        let at_step_3 = |app: &App| {
            laid(app, 120)
                .lines
                .iter()
                .any(|l| l.to_string().starts_with("Step 3: cell"))
        };
        for _ in 0..10 {
            run(&mut app, &[Command::AlgorithmNext]);
            if at_step_3(&app) {
                break;
            }
        }
        assert!(at_step_3(&app), "{}", screen(&mut app, 120, 40));
        run(&mut app, &[Command::ChooseMember]);
        let out = dir.path().join("stages.md");
        run(&mut app, &[Command::ExportStages]);
        answer(&mut app, out.to_str().unwrap());
        let written = std::fs::read_to_string(&out).unwrap();
        assert!(
            written.contains("| after | τ ‹job.B›, done.B, τ ‹job.A› |"),
            "{written}"
        );
        let command = reproduce_line(&written);
        assert!(command.contains(" --path 2,1,1 "), "{command}");
        assert!(command.contains(" --choose "), "{command}");
        // The script lies outside the current directory: the command
        // names it by its whole path.
        assert!(command.contains(&script.display().to_string()), "{command}");
        assert_eq!(run_rep(&command), written);
    });
}

#[test]
fn a_state_with_nothing_to_show_is_not_exported_and_says_why() {
    with_large_stack(|| {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("one.csp");
        std::fs::write(
            &script,
            "datatype T = A | B | C\nchannel c : T\nchannel tick\n\
             P = tick -> c?x -> Q(x)\nQ(x) = c!x -> P\n\
             R = c?x -> STOP\nTwo = P ||| R\n",
        )
        .unwrap();
        let out = dir.path().join("stages.md");
        // One component.
        let mut app = open(Source::File(script.clone()), "P", Config::default());
        run(&mut app, &[Command::ExportStages]);
        answer(&mut app, out.to_str().unwrap());
        assert!(
            message(&app).contains("nothing to export stage by stage: the state has one component"),
            "{}",
            message(&app)
        );
        assert!(!out.exists());
        // Two components, neither holding a value of T.
        let mut app = open(Source::File(script), "Two", Config::default());
        run(&mut app, &[Command::ExportStages]);
        answer(&mut app, out.to_str().unwrap());
        assert!(
            message(&app).contains("no component of the state holds a value of"),
            "{}",
            message(&app)
        );
        assert!(!out.exists());
        let shown = screen(&mut app, 80, 24);
        assert!(shown.contains("nothing to export"), "{shown}");
    });
}

#[test]
fn example_43s_step_3_by_hand_gives_two_representatives_of_one_class() {
    with_large_stack(|| {
        let mut app = ring(AABB);
        // Not at a step-3 split: the key says where it works.
        run(&mut app, &[Command::AlgorithmNext, Command::ChooseMember]);
        assert!(
            message(&app).contains("at a step-3 split"),
            "{}",
            message(&app)
        );
        assert!(app.panes.of_type::<SymmetryPane>().hand.is_none());
        run(&mut app, &[Command::GoToStage]);
        answer(&mut app, "3");
        let own = walk(&app).shown.as_ref().unwrap().symmetry.clone().unwrap();
        run(&mut app, &[Command::ChooseMember]);
        let hand = app
            .panes
            .of_type::<SymmetryPane>()
            .hand
            .clone()
            .expect("step 3 made by hand");
        assert_eq!(hand.choices, [1]);
        assert!(hand.differs);
        // Two representatives of one class: the algorithm's (the walk's
        // own) and the one splitting off #2 gives.
        assert_eq!(
            own.representative,
            [
                "Linked(N0, A, N1)",
                "Linked(N1, A, N2)",
                "Linked(N2, B, N3)",
                "Linked(N3, B, N0)"
            ]
        );
        assert_eq!(
            hand.symmetry.representative,
            [
                "Linked(N0, A, N1)",
                "Linked(N1, B, N2)",
                "Linked(N2, B, N3)",
                "Linked(N3, A, N0)"
            ]
        );
        assert!(
            message(&app).contains("#2 Linked(N1, A, N2) split off — another representative"),
            "{}",
            message(&app)
        );
        let shown = screen(&mut app, 120, 40);
        // The split by hand beside the algorithm's, both representatives
        // and the permutation between them.
        for line in [
            "split 1: splits off #2 Linked(N1, A, N2) (the algorithm's: #1 Linked(N0,",
            "2* Linked(N1, A, N2)               Linked(N1, B, N2)",
            "4* Linked(N3, B, N0)               Linked(N3, A, N0)",
            "NodeID: N0 ↦ N3, N1 ↦ N0, N2 ↦ N1, N3 ↦ N2",
            "components (α)  1 ↦ 4, 2 ↦ 1, 3 ↦ 2, 4 ↦ 3",
            "c1  [ #2 Linked(N1, A, N2) ]",
        ] {
            assert!(shown.contains(line), "{line}\n{shown}");
        }
        insta::assert_snapshot!("example_43_by_hand_120x40", shown);
        // At 80×24 the comparison lies below the split: the pane says so,
        // and scrolling down shows both representatives.
        let small = screen(&mut app, 80, 24);
        assert!(small.contains(" more lines ┘"), "{small}");
        run(&mut app, &[Command::PageDown]);
        let below = screen(&mut app, 80, 24);
        assert!(
            below.contains("2* Linked(N1, A, N2)               Linked(N1, B, N2)"),
            "{below}"
        );
        assert!(
            below.contains("NodeID: N0 ↦ N3, N1 ↦ N0, N2 ↦ N1, N3 ↦ N2"),
            "{below}"
        );
        insta::assert_snapshot!("example_43_by_hand_80x24", below);
        run(&mut app, &[Command::Top]);
        // The stages after the split are those the choice gives; the last
        // shows the choice's permutation and the comparison again.
        run(&mut app, &[Command::GoToStage]);
        answer(&mut app, "6");
        let last = screen(&mut app, 120, 40);
        assert!(last.contains("Step 3 by hand"), "{last}");
        // Round the cell: #3, #4, then the algorithm's own (#1) again.
        run(&mut app, &[Command::GoToStage]);
        answer(&mut app, "3");
        run(&mut app, &[Command::ChooseMember]);
        assert_eq!(
            app.panes
                .of_type::<SymmetryPane>()
                .hand
                .as_ref()
                .unwrap()
                .choices,
            [2]
        );
        run(&mut app, &[Command::ChooseMember]);
        assert_eq!(
            app.panes
                .of_type::<SymmetryPane>()
                .hand
                .as_ref()
                .unwrap()
                .choices,
            [3]
        );
        run(&mut app, &[Command::ChooseMember]);
        assert!(app.panes.of_type::<SymmetryPane>().hand.is_none());
        assert!(
            message(&app).contains("its own representative"),
            "{}",
            message(&app)
        );
        // Esc goes back to the algorithm's own choice first, then to the
        // representative.
        run(&mut app, &[Command::ChooseMember, Command::Cancel]);
        assert!(app.panes.of_type::<SymmetryPane>().hand.is_none());
        assert_eq!(
            app.panes.of_type::<SymmetryPane>().section,
            Section::Algorithm
        );
        // A step elsewhere forgets the choice.
        run(&mut app, &[Command::ChooseMember]);
        assert!(app.panes.of_type::<SymmetryPane>().hand.is_some());
        run(&mut app, &[Command::Undo]);
        assert!(app.panes.of_type::<SymmetryPane>().hand.is_none());
    });
}

/// The symmetry view's lines, laid out as drawn at `width`.
fn laid(app: &App, width: usize) -> symcsp::tui::panes::symmetry::Laid {
    let walk = walk(app);
    let x = walk.shown.as_ref().and_then(|s| s.symmetry.as_deref());
    app.panes
        .of_type::<SymmetryPane>()
        .laid_out(&app.config.theme, &walk.symmetry, x, width)
}

#[test]
fn n_value_tables_wrap_under_their_labels_and_explain_entries_once_a_stage() {
    with_large_stack(|| {
        let mut app = two_pushes();
        run(&mut app, &[Command::GoToStage]);
        answer(&mut app, "2");
        let shown = screen(&mut app, 60, 30);
        // Cell 2's row goes on under its entries, clear of the labels,
        // head and rows broken at the same column: between two groups
        // (variables), the third group whole on the next line.
        let label = " ".repeat(34);
        for line in [
            "│  c2                              1 2 3 4 5 │ 6 7         │".to_string(),
            format!("│{label}8 9 10 11 12"),
            "│   #4  Node(N1, B, N0)            0 1 0 0 1 │ 1 0         │".to_string(),
            format!("│{label}0 0  1  1  0"),
        ] {
            assert!(shown.contains(&line), "{line}\n{shown}");
        }
        insta::assert_snapshot!("n_values_wrapped_60x30", shown);
        // The legend once a stage: later tables add only their new
        // entries, or say "as above".
        let text: Vec<String> = laid(&app, 58)
            .lines
            .iter()
            .map(ToString::to_string)
            .collect();
        let count = |what: &str| text.iter().filter(|l| l.contains(what)).count();
        assert_eq!(count("entries: 1\u{a0}me→c1.me"), 1, "{text:#?}");
        assert_eq!(
            count("entries as above, and 6\u{a0}datum→c2.datum"),
            1,
            "{text:#?}"
        );
        assert!(count("entries as above") >= 3, "{text:#?}");
        assert_eq!(count("1\u{a0}me→c1.me"), 1, "{text:#?}");
        // Wide enough, Example 37's tables name their entries as heads
        // where they fit, numbers where not, one legend for both cells.
        let mut app = example_37();
        run(&mut app, &[Command::GoToStage]);
        answer(&mut app, "2");
        let shown = screen(&mut app, 120, 40);
        assert!(
            shown.contains("me→c1.me me→c2.me me→c2.next me→c3.me"),
            "{shown}"
        );
        assert!(shown.contains("│        entries as above "), "{shown}");
        insta::assert_snapshot!("n_values_legend_once_120x40", shown);
    });
}

#[test]
fn a_view_holding_more_than_it_shows_says_so_and_scrolls_both_ways() {
    with_large_stack(|| {
        let mut app = two_pushes();
        run(&mut app, &[Command::GoToStage]);
        answer(&mut app, "2");
        let shown = screen(&mut app, 80, 24);
        let more = laid(&app, 78).lines.len() - 20;
        assert!(
            shown.contains(&format!("─ ↓ {more} more lines ┘")),
            "{more}\n{shown}"
        );
        insta::assert_snapshot!("more_lines_80x24", shown);
        run(&mut app, &[Command::PageDown]);
        let down = screen(&mut app, 80, 24);
        assert!(down.contains(" above"), "{down}");
        // Nothing cut here: nothing to scroll sideways, and it says so.
        run(&mut app, &[Command::ScrollRight]);
        assert!(
            message(&app).contains("nothing here is cut short"),
            "{}",
            message(&app)
        );
        // A thread midway through a push is longer than its column.
        fire(&mut app, "lock.T0");
        fire_to(&mut app, "getTop.T0.N1", "!A!");
        run(&mut app, &[Command::Cancel]);
        assert_eq!(
            app.panes.of_type::<SymmetryPane>().section,
            Section::Representative
        );
        app.message = None;
        let shown = screen(&mut app, 80, 24);
        assert!(
            shown.contains("  1  initNode!T0?n!A!N1 -> setTop!T0…"),
            "{shown}"
        );
        assert!(
            shown.contains("─ text cut: { } scroll sideways ┘"),
            "{shown}"
        );
        run(&mut app, &[Command::ScrollRight, Command::ScrollRight]);
        let right = screen(&mut app, 80, 24);
        assert_eq!(app.panes.of_type::<SymmetryPane>().sideways, 16);
        assert!(
            right.contains("  1  …1 -> setTop!T0!n -> push!T0!A …  ↦"),
            "{right}"
        );
        assert!(right.contains("scroll sideways (at 16) ┘"), "{right}");
        insta::assert_snapshot!("scrolled_sideways_80x24", right);
        // As far as the longest text goes, and back.
        for _ in 0..50 {
            run(&mut app, &[Command::ScrollRight]);
        }
        assert_eq!(
            app.panes.of_type::<SymmetryPane>().sideways,
            laid(&app, 78).overflow
        );
        for _ in 0..50 {
            run(&mut app, &[Command::ScrollLeft]);
        }
        assert_eq!(app.panes.of_type::<SymmetryPane>().sideways, 0);
        assert_eq!(screen(&mut app, 80, 24), shown);
    });
}

#[test]
fn under_the_structural_group_the_view_draws_the_communication_graph() {
    with_large_stack(|| {
        let mut app = App::start(
            file("models/diningring.csp"),
            Start {
                process: Some("System".into()),
                symmetry: Some("structural".into()),
                ..Start::default()
            },
            Config::default(),
        );
        app.settle();
        assert!(app.overlay.is_none(), "{:?}", app.overlay);
        run(&mut app, &[Command::ToggleSymmetry]);
        let shown = screen(&mut app, 140, 40);
        for line in [
            "group     order 5: every automorphism of the communication graph is a symmetry",
            "components, by orbit (2 orbits)",
            "1 ■ Phil(0, 0, 1)  shares events with FORK(0), FORK(1)",
            "2 ■ FORK(0)  shares events with Phil(0, 0, 1), Phil(4, 4, 0)",
            "rotation i ↦ i+1 mod 5 over {0..4}  holds",
            "reflection i ↦ 4−i over {0..4}  fails: Phil(0, 0, 1) at the start can do",
        ] {
            assert!(shown.contains(line), "{line}\n{shown}");
        }
        insta::assert_snapshot!("structural_graph", shown);
        // The status bar offers only the keys that work here.
        let bar = shown.lines().last().unwrap().to_string();
        assert!(bar.contains("E export · S close"), "{bar}");
        assert!(!bar.contains("next stage"), "{bar}");
        // Each key about representatives says, in one line that fits 100
        // columns, why it does nothing here; none opens another section.
        for (command, says) in [
            (Command::AlgorithmNext, "no algorithm stages here"),
            (Command::AlgorithmBack, "no algorithm stages here"),
            (Command::GoToStage, "no algorithm stages here"),
            (Command::ChooseMember, "no algorithm stages here"),
            (Command::WalkReduced, "the animator walks raw states here"),
            (
                Command::CycleStrategy,
                "strategies are the datatype algorithm's",
            ),
            (Command::Graph, "this view is the communication graph"),
        ] {
            run(&mut app, &[command]);
            assert!(app.overlay.is_none(), "{command:?}: {:?}", app.overlay);
            let said = message(&app);
            assert!(said.contains(says), "{command:?}: {said}");
            assert!(said.chars().count() + 2 <= 100, "{command:?}: {said}");
            let line = screen(&mut app, 100, 30);
            assert!(!line.contains('…'), "{command:?}: cut\n{line}");
        }
        // A mark is for =: both say there is nothing to compare.
        run(&mut app, &[Command::Mark]);
        assert!(
            message(&app).starts_with("nothing to compare"),
            "{}",
            message(&app)
        );
        run(&mut app, &[Command::Compare]);
        assert!(
            message(&app).starts_with("nothing to compare"),
            "{}",
            message(&app)
        );
        // E exports the view itself: by default into the folder walks
        // are kept in (made on the first export), never where the
        // animator was started (a checkout, often).
        let dir = tempfile::tempdir().unwrap();
        let kept = dir.path().join("state");
        app.keep_walks_in = Some(kept.clone());
        let out = kept.join("structure-1.md");
        run(&mut app, &[Command::ExportStages]);
        match &app.overlay {
            Some(Overlay::Prompt(prompt)) => assert_eq!(prompt.text(), out.to_str().unwrap()),
            other => panic!("no prompt: {other:?}"),
        }
        answer(&mut app, "");
        assert_eq!(
            message(&app),
            format!(
                "the communication structure written to {} (Markdown)",
                out.display()
            )
        );
        let written = std::fs::read_to_string(&out).unwrap();
        assert!(
            written.starts_with(
                "# The communication structure of `System`\n\n- script: models/diningring.csp\n"
            ),
            "{written}"
        );
        assert!(
            written.contains("1 ■ Phil(0, 0, 1)  shares events with FORK(0), FORK(1)"),
            "{written}"
        );
        assert!(
            written.contains("rotation i ↦ i+1 mod 5 over {0..4}  holds"),
            "{written}"
        );
    });
}
