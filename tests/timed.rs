//! `Timed` sections: FDR's tock-CSP translation, checked on processes
//! whose state spaces are small enough to count by hand.

use symcsp::script::Script;

mod state_counts;

use state_counts::counts;

const FIXTURE: &str = "tests/fixtures/timed/tock.csp";

fn load() -> Script {
    state_counts::load(FIXTURE)
}

#[test]
fn timed_processes_have_fdrs_state_spaces() {
    let mut script = load();
    // P = X: X -tock-> X, X -a-> (tock -> P).
    assert_eq!(counts(&mut script, "P"), (2, 3, 0));
    // Q: idle, a, one tock, then TSTOP ticking for ever.
    assert_eq!(counts(&mut script, "Q"), (3, 4, 0));
    // WAIT(2): two tocks, then TSKIP (idles or terminates: τ into
    // `b -> SKIP`), which idles, performs b, one tock, TSKIP, ✓.
    assert_eq!(counts(&mut script, "W"), (7, 9, 0));
    // R: c.0 leads to tock -> TSTOP, c.1 and c.2 to tock -> P, the state
    // P's own a leads to.
    assert_eq!(counts(&mut script, "R"), (5, 9, 0));
    // [] synchronises on tock: one state idles, a and b lead to the same
    // `tock -> TSTOP`.
    assert_eq!(counts(&mut script, "E"), (3, 5, 0));
    // A false guard is TSTOP.
    assert_eq!(counts(&mut script, "G"), (1, 1, 0));
    // ||| synchronises on tock: P's two states by Q's three, all six
    // reachable.
    assert_eq!(counts(&mut script, "I"), (6, 11, 0));
    // a takes two tocks and b none.
    assert_eq!(counts(&mut script, "P2"), (4, 6, 0));
    // An input of `_` still costs its event's time: c.0, c.1 and c.2 all
    // lead to `tock -> TSTOP`.
    assert_eq!(counts(&mut script, "Any"), (3, 6, 0));
    // Replicated []: synchronised on tock (tock, c.0 and c.1 from the
    // start); over nothing, TSTOP.
    assert_eq!(counts(&mut script, "Rep"), (3, 5, 0));
    assert_eq!(counts(&mut script, "None"), (1, 1, 0));
    // Outside sections: untimed.
    assert_eq!(counts(&mut script, "U"), (1, 1, 0));
    // A section in a let: a takes three tocks.
    assert_eq!(counts(&mut script, "L"), (4, 5, 0));
}

#[test]
fn timed_assertions_answer_as_fdr() {
    state_counts::every_assertion_passes(&load());
}

/// The animator lists the script's own processes, not the timed
/// processes the translation adds.
#[test]
fn the_listing_shows_only_the_scripts_processes() {
    let loaded = symcsp::types::load_file(std::path::Path::new(FIXTURE)).expect("loads");
    let listing = symcsp::tui::model::Listing::new(loaded);
    assert_eq!(
        listing.processes,
        [
            "P", "Q", "W", "R", "E", "G", "I", "Any", "Rep", "None", "P2", "U", "L"
        ]
    );
    assert!(listing.functions.is_empty(), "{:?}", listing.functions);
}
