//! What the budget tests share: running the binary on a fixture and
//! reading what it printed.

#![allow(dead_code)] // each test binary uses its own part

use assert_cmd::Command;

pub fn symcsp() -> Command {
    Command::cargo_bin("symcsp").expect("the binary is built")
}

pub fn fixture(name: &str) -> String {
    format!("tests/fixtures/budgets/{name}")
}

/// What `symcsp ARGS` prints on stdout, exiting with `code`.
pub fn stdout_of(args: &[&str], code: i32) -> String {
    let output = symcsp().args(args).assert().code(code).get_output().clone();
    String::from_utf8(output.stdout).expect("UTF-8")
}

/// The one JSON object `symcsp ARGS` prints, exiting with `code`.
pub fn json_of(args: &[&str], code: i32) -> serde_json::Value {
    serde_json::from_str(&stdout_of(args, code)).expect("one JSON object")
}
