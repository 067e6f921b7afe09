//! The commands the README and `docs/` show, run against what they say
//! they print: a changed output fails here until the doc changes with it.
//!
//! Two kinds of fenced block are run, each in a scratch folder that sees
//! the checkout's `models/`, `docs/` and `tests/` (so files a command
//! writes land there, not in the checkout), with `symcsp` on the `PATH`:
//!
//! - **`console`**: `$ command` lines, each followed by what it prints
//!   (standard output and error together). A line `? N` right under the
//!   command says it exits with status N (0 when there is none). In the
//!   printed lines, a line `...` (indented or not) stands for any lines,
//!   and `[..]` for any text within a line (a time, a size).
//! - **`sh`**: every line that runs `symcsp` must run: exit 0, or 1 where
//!   a check's assertion fails — never 2 (a usage or input error) or a
//!   crash. Their output is not shown, so it is not compared.
//!
//! In both, a line `NAME=value` sets a shell variable for the block's
//! later commands; other lines (`cargo …`, a synopsis) are not run.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long one documented command may take (they take milliseconds;
/// this only keeps a hang from stalling the suite).
const COMMAND_LIMIT: Duration = Duration::from_secs(300);

/// A command a block shows, with what the block expects of it.
struct Step {
    /// Line of the command in its file (1-based).
    line: usize,
    command: String,
    expected: Expected,
}

enum Expected {
    /// A `console` step: its exit status and its printed lines.
    Printed { status: i32, lines: Vec<String> },
    /// An `sh` step: that it runs (exit 0 or 1).
    Runs,
}

/// One fenced block that runs: its steps and the assignments before each.
struct Block {
    file: PathBuf,
    steps: Vec<(Vec<String>, Step)>,
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// README.md and every Markdown file under `docs/`.
fn documents() -> Vec<PathBuf> {
    let mut files = vec![root().join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .expect("docs/ is readable")
        .map(|entry| entry.expect("a docs/ entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    files
}

fn is_assignment(line: &str) -> bool {
    line.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !name.starts_with(|c: char| c.is_ascii_digit())
    })
}

/// The blocks of `text` that run, in order.
fn blocks(file: &Path, text: &str) -> Vec<Block> {
    let mut found = Vec::new();
    let mut lines = text.lines().enumerate();
    while let Some((_, line)) = lines.next() {
        let Some(info) = line.strip_prefix("```") else {
            continue;
        };
        let body: Vec<(usize, &str)> = lines
            .by_ref()
            .take_while(|(_, l)| !l.starts_with("```"))
            .map(|(i, l)| (i + 1, l))
            .collect();
        let steps = match info.trim() {
            "console" => console_steps(&body),
            "sh" => sh_steps(&body),
            _ => continue,
        };
        found.push(Block {
            file: file.to_owned(),
            steps,
        });
    }
    found
}

fn console_steps(body: &[(usize, &str)]) -> Vec<(Vec<String>, Step)> {
    let mut steps = Vec::new();
    let mut assignments = Vec::new();
    let mut rest = body.iter().peekable();
    while let Some(&(line, text)) = rest.next() {
        let command = text.strip_prefix("$ ").unwrap_or_else(|| {
            panic!("line {line}: a console block's text follows a `$ ` command")
        });
        if is_assignment(command) {
            assignments.push(command.to_owned());
            continue;
        }
        let mut status = 0;
        if let Some(code) = rest.peek().and_then(|(_, l)| l.strip_prefix("? ")) {
            status = code
                .trim()
                .parse()
                .unwrap_or_else(|_| panic!("line {}: `? N` takes a number", line + 1));
            rest.next();
        }
        let mut printed = Vec::new();
        while let Some((_, l)) = rest.next_if(|(_, l)| !l.starts_with("$ ")) {
            printed.push(l.to_string());
        }
        steps.push((
            assignments.clone(),
            Step {
                line,
                command: command.to_owned(),
                expected: Expected::Printed {
                    status,
                    lines: printed,
                },
            },
        ));
    }
    steps
}

fn sh_steps(body: &[(usize, &str)]) -> Vec<(Vec<String>, Step)> {
    let mut steps = Vec::new();
    let mut assignments = Vec::new();
    for &(line, text) in body {
        if text.starts_with("symcsp ") {
            steps.push((
                assignments.clone(),
                Step {
                    line,
                    command: text.to_owned(),
                    expected: Expected::Runs,
                },
            ));
        } else if is_assignment(text) {
            assignments.push(text.to_owned());
        }
    }
    steps
}

/// Whether `actual` is what `pattern` allows: `[..]` is any text.
fn line_matches(pattern: &str, actual: &str) -> bool {
    let parts: Vec<&str> = pattern.split("[..]").collect();
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if parts.len() == 1 {
        return pattern == actual;
    }
    if !actual.starts_with(first) || actual.len() < first.len() + last.len() {
        return false;
    }
    let mut at = first.len();
    for middle in &parts[1..parts.len() - 1] {
        match actual[at..].find(middle) {
            Some(found) => at += found + middle.len(),
            None => return false,
        }
    }
    at <= actual.len() - last.len() && actual.ends_with(last)
}

/// Whether `actual` is what `expected` allows: a line `...` is any lines.
fn lines_match(expected: &[String], actual: &[&str]) -> bool {
    match expected.split_first() {
        None => actual.is_empty(),
        Some((first, rest)) if first.trim() == "..." => {
            (0..=actual.len()).any(|skip| lines_match(rest, &actual[skip..]))
        }
        Some((first, rest)) => actual
            .split_first()
            .is_some_and(|(line, more)| line_matches(first, line) && lines_match(rest, more)),
    }
}

/// The lines of `text` with trailing spaces and blank lines at the end
/// dropped, as a block in Markdown shows them.
fn shown_lines(text: &str) -> Vec<&str> {
    let mut lines: Vec<&str> = text.lines().map(str::trim_end).collect();
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    lines
}

/// A scratch folder in which the checkout's documented inputs are seen.
fn scratch() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a scratch folder");
    for shared in ["models", "docs", "tests"] {
        std::os::unix::fs::symlink(root().join(shared), dir.path().join(shared))
            .expect("a link to the checkout");
    }
    std::fs::create_dir(dir.path().join("state")).expect("a state folder");
    dir
}

/// Runs `command` after `assignments` in `dir` with bash (pipes fail as
/// a whole), standard error into standard output: status and output.
fn run(dir: &Path, assignments: &[String], command: &str) -> (Option<i32>, String) {
    let binary = PathBuf::from(env!("CARGO_BIN_EXE_symcsp"));
    let path = format!(
        "{}:{}",
        binary.parent().expect("the binary's folder").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let script = format!(
        "set -o pipefail\nexec 2>&1\n{}\n{command}\n",
        assignments.join("\n")
    );
    let output_file = dir.join(".output");
    let output = std::fs::File::create(&output_file).expect("an output file");
    let mut child = Command::new("bash")
        .arg("-c")
        .arg(script)
        .current_dir(dir)
        .env("PATH", path)
        .env("NO_COLOR", "1")
        .env("SYMCSP_STATE_DIR", dir.join("state"))
        .env("HOME", dir)
        .env_remove("COLUMNS")
        .stdin(Stdio::null())
        .stdout(output)
        .spawn()
        .expect("bash runs");
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("the command's status") {
            break status.code();
        }
        if started.elapsed() > COMMAND_LIMIT {
            child.kill().ok();
            child.wait().ok();
            break None;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let printed = std::fs::read(&output_file).expect("the command's output");
    (status, String::from_utf8_lossy(&printed).into_owned())
}

/// What went wrong with `step`, if anything.
fn check(dir: &Path, assignments: &[String], step: &Step) -> Option<String> {
    let (status, printed) = run(dir, assignments, &step.command);
    let Some(status) = status else {
        return Some(format!("did not finish within {COMMAND_LIMIT:?}"));
    };
    match &step.expected {
        Expected::Runs if status == 0 || status == 1 => None,
        Expected::Runs => Some(format!(
            "exited with status {status} (a documented command must run):\n{printed}"
        )),
        Expected::Printed {
            status: wanted,
            lines,
        } => {
            let actual = shown_lines(&printed);
            let expected: Vec<String> = shown_lines(&lines.join("\n"))
                .into_iter()
                .map(str::to_owned)
                .collect();
            if status == *wanted && lines_match(&expected, &actual) {
                return None;
            }
            let mut why = String::new();
            if status != *wanted {
                writeln!(why, "exited with status {status}, the doc says {wanted}").unwrap();
            }
            writeln!(why, "the doc shows:\n{}", expected.join("\n")).unwrap();
            writeln!(why, "it prints:\n{}", actual.join("\n")).unwrap();
            Some(why)
        }
    }
}

#[test]
fn the_documented_commands_print_what_the_docs_show() {
    let mut failures = Vec::new();
    let mut run_count = 0;
    for file in documents() {
        let text = std::fs::read_to_string(&file).expect("a readable doc");
        for block in blocks(&file, &text) {
            let dir = scratch();
            for (assignments, step) in &block.steps {
                run_count += 1;
                if let Some(why) = check(dir.path(), assignments, step) {
                    let shown = block.file.strip_prefix(root()).unwrap_or(&block.file);
                    failures.push(format!(
                        "{}:{}: $ {}\n{why}",
                        shown.display(),
                        step.line,
                        step.command
                    ));
                }
            }
        }
    }
    assert!(
        run_count >= 30,
        "only {run_count} documented commands were found: has the block convention changed?"
    );
    assert!(
        failures.is_empty(),
        "{} of {run_count} documented commands do not do what their doc says:\n\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn the_patterns_match_what_they_promise() {
    assert!(line_matches("took [..] s", "took 0.01 s"));
    assert!(line_matches("[..]", ""));
    assert!(line_matches("a[..]b[..]c", "a-b-b-c"));
    assert!(!line_matches("a[..]b[..]c", "a-c-b"));
    assert!(!line_matches("ab[..]ba", "aba"));
    assert!(!line_matches("exact", "exactly"));
    let lines = |text: &str| text.lines().map(str::to_owned).collect::<Vec<_>>();
    assert!(lines_match(
        &lines("one\n...\nfour"),
        &["one", "two", "three", "four"]
    ));
    assert!(lines_match(&lines("one\n  ...\ntwo"), &["one", "two"]));
    assert!(lines_match(
        &lines("...\nthree\n..."),
        &["one", "two", "three", "four"]
    ));
    assert!(!lines_match(
        &lines("one\n...\nfive"),
        &["one", "two", "three", "four"]
    ));
    assert!(!lines_match(&lines("one"), &["one", "two"]));
}
