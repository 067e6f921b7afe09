//! `symcsp parse FILE... [--print]`: one line per file, diagnostics on
//! stderr, exit 0 when every file parses and 2 otherwise.

use std::io::Write;
use std::path::PathBuf;

use super::{EXIT_INPUT_ERROR, say};
use crate::syntax::ast::DeclKind;
use crate::syntax::{empty_file, load_file};

pub(super) fn run(files: &[PathBuf], print: bool, out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    let mut failed = false;
    for path in files {
        if let Some(problem) = empty_file(path) {
            failed = true;
            say(err, &format!("error: {}: {problem}\n", path.display()));
            continue;
        }
        match load_file(path) {
            Ok(program) => {
                let decls: Vec<_> = program.files.iter().flat_map(|f| &f.decls).collect();
                let assertions = decls
                    .iter()
                    .filter(|d| matches!(d.kind, DeclKind::Assert(_)))
                    .count();
                let includes = program.files.len() - 1;
                let mut line = format!(
                    "{}: ok, {} declaration{}, {} assertion{}",
                    path.display(),
                    decls.len(),
                    plural(decls.len()),
                    assertions,
                    plural(assertions)
                );
                if includes > 0 {
                    line.push_str(&format!(", {includes} included file{}", plural(includes)));
                }
                say(out, &format!("{line}\n"));
                if print {
                    say(out, &program.root_file().to_string());
                }
            }
            Err(e) => {
                failed = true;
                say(err, &e.render());
                say(
                    err,
                    &format!(
                        "{}: {} error{}\n",
                        path.display(),
                        e.diagnostics.len(),
                        plural(e.diagnostics.len())
                    ),
                );
            }
        }
    }
    if failed { EXIT_INPUT_ERROR } else { 0 }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}
