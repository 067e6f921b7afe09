//! `symcsp [FILE]`: a short account of a script (the built-in model when
//! no file is given): its definitions and assertions, and what to run next.
//! The script is loaded as the animator would load it (names resolved
//! too), so a script the animator would refuse is refused here, exit 2.

use std::io::Write;
use std::path::Path;

use super::{EXIT_INPUT_ERROR, plural, say};
use crate::builtin::LISTSTACK;
use crate::syntax::ast::{DeclKind, Lhs};
use crate::syntax::{Program, display_name, load_file, load_str};

pub(super) fn run(file: Option<&Path>, out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    let (title, loaded) = match file {
        Some(path) => (display_name(path), load_file(path)),
        None => (
            format!(
                "built-in model {} ({})",
                LISTSTACK.name, LISTSTACK.description
            ),
            load_str(LISTSTACK.name, LISTSTACK.text),
        ),
    };
    // Described from its syntax, then resolved as the animator would.
    let described = loaded.and_then(|program| {
        let text = describe(&title, &program);
        crate::types::load_program(program).map(|_| text)
    });
    match described {
        Ok(text) => {
            say(out, &text);
            0
        }
        Err(e) => {
            say(err, &e.render());
            EXIT_INPUT_ERROR
        }
    }
}

fn describe(title: &str, program: &Program) -> String {
    let decls: Vec<_> = program.files.iter().flat_map(|f| &f.decls).collect();
    let mut definitions: Vec<String> = Vec::new();
    let mut assertions: Vec<String> = Vec::new();
    for d in &decls {
        match &d.kind {
            DeclKind::Definition(def) => {
                let shown = match &def.lhs {
                    Lhs::Name(n) => n.name.to_string(),
                    Lhs::Function(n, params) => {
                        let arity: Vec<String> =
                            params.iter().map(|p| p.len().to_string()).collect();
                        format!("{}/{}", n.name, arity.join("/"))
                    }
                    Lhs::Pattern(p) => p.to_string(),
                };
                if !definitions.contains(&shown) {
                    definitions.push(shown);
                }
            }
            DeclKind::Assert(_) => assertions.push(d.to_string()),
            _ => {}
        }
    }
    let mut text = format!("{title}\n{}\n", plural(decls.len(), "declaration"));
    text.push_str(&format!(
        "definitions ({}): {}\n",
        definitions.len(),
        definitions.join(", ")
    ));
    text.push_str(&format!("assertions ({}):\n", assertions.len()));
    for (i, a) in assertions.iter().enumerate() {
        text.push_str(&format!("  {:>2}  {a}\n", i + 1));
    }
    text.push_str(
        "\nRun `symcsp check FILE` to check the assertions, \
         `symcsp explore FILE PROCESS` to count a process's states \
         (`symcsp explore models/liststack.csp System`),\n\
         `symcsp eval FILE EXPR` to evaluate an expression, \
         `symcsp parse FILE... [--print]` to check scripts.\n",
    );
    text
}
