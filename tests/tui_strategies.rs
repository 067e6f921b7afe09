//! Issue 49 in the animator: `y` cycles the representative strategy (the
//! walks opened again under it, the view showing its representative
//! beside the algorithm's), and `=` on two states the algorithm gives
//! different representatives says whether the exact canonical form puts
//! them in one symmetry class (Example 43's ring: it does).

// The helpers every animator test shares; this one needs the screen only.
#[allow(dead_code)]
mod common;

use common::{fire, run};

use std::path::PathBuf;

use symcsp::stack::with_large_stack;
use symcsp::symmetry::strategy::Strategy;
use symcsp::tui::app::{Action, App, Start, update};
use symcsp::tui::config::{Command, Config};
use symcsp::tui::model::Source;
use symcsp::tui::panes::symmetry::SymmetryPane;

fn screen(app: &mut App, width: u16, height: u16) -> String {
    update(app, Action::Resize { width, height });
    app.settle();
    common::screen(app, width, height)
}

fn ring(strategy: Strategy) -> App {
    let mut app = App::start(
        Source::File(PathBuf::from("models/paper/example43.csp")),
        Start {
            process: Some("Ring".into()),
            strategy,
            ..Start::default()
        },
        Config::default(),
    );
    app.settle();
    app
}

const FIRST: [&str; 4] = [
    "link.N0.A.N1",
    "link.N1.A.N2",
    "link.N2.B.N3",
    "link.N3.B.N0",
];
const SECOND: [&str; 4] = [
    "link.N0.A.N1",
    "link.N1.B.N2",
    "link.N2.B.N3",
    "link.N3.A.N0",
];

#[test]
fn comparing_two_representatives_says_whether_they_are_one_class() {
    with_large_stack(|| {
        let mut app = ring(Strategy::Fdr);
        for label in FIRST {
            fire(&mut app, label);
        }
        run(&mut app, &[Command::Mark, Command::Initial]);
        for label in SECOND {
            fire(&mut app, label);
        }
        run(&mut app, &[Command::Compare]);
        let compared = app
            .panes
            .of_type::<SymmetryPane>()
            .compared
            .clone()
            .expect("compared");
        assert_eq!(
            compared.exact.as_deref(),
            Some(
                "the exact canonical form puts them in one symmetry class: the algorithm gave \
                 this class more than one representative"
            )
        );
        let shown = screen(&mut app, 140, 60);
        assert!(
            shown.contains("the exact canonical form puts them in one symmetry class"),
            "{shown}"
        );
    });
}

#[test]
fn the_strategy_key_cycles_and_the_view_shows_its_representative() {
    with_large_stack(|| {
        let mut app = ring(Strategy::Fdr);
        for label in SECOND {
            fire(&mut app, label);
        }
        let position = app.walk.as_ref().unwrap().path.position();
        // fdr → sorted → segmented → flooding → exact.
        for expected in [
            Strategy::Sorted,
            Strategy::Segmented,
            Strategy::Flooding,
            Strategy::Exact,
        ] {
            run(&mut app, &[Command::CycleStrategy]);
            assert_eq!(app.strategy, expected);
            let message = app
                .message
                .as_ref()
                .map(|m| m.text.clone())
                .unwrap_or_default();
            assert!(
                message.contains(&format!("representatives by the {expected} strategy")),
                "{message}"
            );
            // The walk is opened again where it was.
            assert_eq!(app.walk.as_ref().unwrap().path.position(), position);
        }
        let shown = screen(&mut app, 140, 60);
        assert!(
            shown.contains("the exact strategy (y: the next)"),
            "{shown}"
        );
        // Example 43's second ring: the algorithm's representative is not
        // the exact form's.
        assert!(
            shown.contains("another representative of the same class"),
            "{shown}"
        );
        run(&mut app, &[Command::CycleStrategy]);
        assert_eq!(app.strategy, Strategy::Fdr);
        let shown = screen(&mut app, 140, 60);
        assert!(!shown.contains("strategy (y: the next)"), "{shown}");
    });
}
