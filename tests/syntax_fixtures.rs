//! Fixture-driven tests of the front end: every `valid` script parses and
//! survives a round trip through the pretty-printer; every `invalid` one
//! fails with the diagnostic recorded in its snapshot.

use std::path::Path;

use symcsp::syntax::ast::{Decl, DeclKind, File};
use symcsp::syntax::{load_file, parse_decls};

/// The path relative to the crate, so diagnostics and snapshots do not
/// depend on where the checkout lives.
fn relative(path: &Path) -> &Path {
    path.strip_prefix(env!("CARGO_MANIFEST_DIR"))
        .unwrap_or(path)
}

#[test]
fn valid_scripts_parse_and_round_trip() {
    insta::glob!("fixtures/valid/*.csp", |path| assert_round_trip(relative(
        path
    )));
}

#[test]
fn shipped_models_parse_and_round_trip() {
    insta::glob!("../models", "*.csp", |path| assert_round_trip(relative(
        path
    )));
}

/// The script parses, prints, and the printed text parses to the same
/// declarations and prints identically again.
fn assert_round_trip(path: &Path) {
    {
        let program = match load_file(path) {
            Ok(p) => p,
            Err(e) => panic!("{} should parse:\n{}", path.display(), e.render()),
        };
        let printed = program.root_file().to_string();
        // Reparse without following includes: the printed text is not in
        // the fixture's directory.
        let reparsed = match parse_decls(0, &printed) {
            Ok(d) => d,
            Err(e) => panic!(
                "the printed form of {} should parse: {e:?}\n--- printed ---\n{printed}",
                path.display()
            ),
        };
        let original: thin_vec::ThinVec<Decl> = program
            .root_file()
            .decls
            .iter()
            .cloned()
            .map(|mut d| {
                if let DeclKind::Include(i) = &mut d.kind {
                    i.file = None;
                }
                d
            })
            .collect();
        assert_eq!(
            original,
            reparsed,
            "{}: the AST changed through printing:\n{printed}",
            path.display()
        );
        let reprinted = File {
            id: 0,
            decls: reparsed,
        }
        .to_string();
        assert_eq!(
            printed,
            reprinted,
            "{}: printing is not idempotent",
            path.display()
        );
    }
}

#[test]
fn invalid_scripts_fail_with_their_recorded_diagnostics() {
    insta::glob!("fixtures/invalid/*.csp", |path| {
        let path = relative(path);
        let error = match load_file(path) {
            Ok(_) => panic!("{} should not parse", path.display()),
            Err(e) => e,
        };
        insta::assert_snapshot!(error.render());
    });
}
