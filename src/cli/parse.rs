//! `symcsp parse FILE... [--print]`: one line per file, diagnostics on
//! stderr, exit 0 when every file parses and 2 otherwise. With `--print`
//! the scripts go to stdout and the summary lines to stderr, so that the
//! output parses again.

use std::io::Write;
use std::path::PathBuf;

use super::{EXIT_INPUT_ERROR, plural, say};
use crate::syntax::ast::DeclKind;
use crate::syntax::{display_name, load_file};

pub(super) fn run(files: &[PathBuf], print: bool, out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    let mut failed = false;
    for path in files {
        let name = display_name(path);
        match load_file(path) {
            Ok(program) => {
                let decls: Vec<_> = program.files.iter().flat_map(|f| &f.decls).collect();
                let assertions = decls
                    .iter()
                    .filter(|d| matches!(d.kind, DeclKind::Assert(_)))
                    .count();
                let includes = program.files.len() - 1;
                let mut line = format!(
                    "{name}: ok, {}, {}",
                    plural(decls.len(), "declaration"),
                    plural(assertions, "assertion")
                );
                if includes > 0 {
                    line.push_str(&format!(", {}", plural(includes, "included file")));
                }
                if print {
                    say(err, &format!("{line}\n"));
                    // Printing recurses as deep as the tree: a long chain
                    // is printed on a large stack.
                    let text = crate::stack::with_large_stack(|| program.root_file().to_string());
                    say(out, &text);
                } else {
                    say(out, &format!("{line}\n"));
                }
            }
            Err(e) => {
                failed = true;
                say(err, &e.render());
                say(
                    err,
                    &format!("{name}: {}\n", plural(e.diagnostics.len(), "error")),
                );
            }
        }
    }
    if failed { EXIT_INPUT_ERROR } else { 0 }
}
