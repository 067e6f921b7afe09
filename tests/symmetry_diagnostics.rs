//! What a user sees when a script is not symmetric in the types asked
//! for, or the types are not types: `symcsp check` on each fixture of
//! `tests/fixtures/symmetry_errors/` (its `:[symmetric]:` assertions),
//! one snapshot each; and what automatic mode leaves out.

use assert_cmd::Command;

fn symcsp() -> Command {
    Command::cargo_bin("symcsp").expect("the binary is built")
}

/// The check's output and exit code, as one text; times (`0.01 s`) read
/// `<t> s`, so a loaded machine does not change the snapshot.
fn check(path: &str) -> String {
    let output = symcsp().args(["check", path]).output().expect("runs");
    let text = format!(
        "exit {}\n{}{}",
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let words: Vec<&str> = text.split(' ').collect();
    let mut out = Vec::with_capacity(words.len());
    for (i, word) in words.iter().enumerate() {
        let seconds = words.get(i + 1).is_some_and(|next| next.starts_with('s'))
            && word.contains('.')
            && word.parse::<f64>().is_ok();
        out.push(if seconds { "<t>" } else { word });
    }
    out.join(" ")
}

#[test]
fn every_break_of_symmetry_is_a_diagnostic_with_its_remedy() {
    insta::glob!("fixtures/symmetry_errors/*.csp", |path| {
        let relative = path
            .strip_prefix(std::env::current_dir().expect("a directory"))
            .expect("inside the project")
            .to_string_lossy()
            .replace('\\', "/");
        insta::assert_snapshot!(check(&relative));
    });
}

#[test]
fn automatic_mode_lists_what_it_left_out() {
    let output = symcsp()
        .args([
            "rep",
            "tests/fixtures/symmetry_errors/automatic_drops_one.csp",
        ])
        .output()
        .expect("runs");
    assert!(output.status.success());
    let text = String::from_utf8_lossy(&output.stdout);
    let head: Vec<&str> = text.lines().take(6).collect();
    insta::assert_snapshot!(head.join("\n"));
}

#[test]
fn diagnostics_are_listed_in_source_order() {
    // The walk meets B (a channel type, line 10) first, then A and C.
    let text = check("tests/fixtures/symmetry_errors/out_of_source_order.csp");
    let lines: Vec<usize> = text
        .lines()
        .filter_map(|l| l.trim().strip_prefix("--> "))
        .map(|at| {
            let mut parts = at.rsplit(':');
            parts.next();
            parts
                .next()
                .and_then(|n| n.parse().ok())
                .expect("file:line:col")
        })
        .collect();
    assert_eq!(lines, [8, 9, 10], "{text}");
}
