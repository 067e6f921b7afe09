//! `symcsp type FILE [NAME|EXPR]`: the type of a definition or an
//! expression, as FDR's `:type` gives it (`f :: (Int) -> Proc`), or of
//! every name the script declares.

use std::io::Write;
use std::path::Path;

use super::{EXIT_INPUT_ERROR, load, say};
use crate::budget::Budget;
use crate::syntax::render_all;
use crate::types::Expect;

pub(super) fn run(file: &Path, what: Option<&str>, out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    let mut loaded = match load(file, &Budget::default(), err) {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    let Some(text) = what else {
        let declared = loaded.types.declared(&loaded.script);
        if declared.is_empty() {
            say(
                err,
                &format!(
                    "{}: declares no names (`symcsp type FILE EXPR` gives an expression's type)\n",
                    crate::syntax::display_name(file)
                ),
            );
        }
        for (name, ty) in declared {
            say(out, &format!("{name} :: {ty}\n"));
        }
        return 0;
    };
    let name = text.trim();
    if let Some(ty) = loaded.types.of_name(&loaded.script, name) {
        say(out, &format!("{name} :: {ty}\n"));
        return 0;
    }
    let func = match loaded.script.add_expr("<expression>", text) {
        Ok(func) => func,
        Err(diagnostics) => {
            say(err, &render_all(&diagnostics, &loaded.script.sources));
            return EXIT_INPUT_ERROR;
        }
    };
    match loaded.types.check_added(&loaded.script, func, Expect::Any) {
        Ok(ty) => {
            say(out, &format!("{} :: {ty}\n", crate::syntax::one_line(text)));
            0
        }
        Err(diagnostics) => {
            say(err, &render_all(&diagnostics, &loaded.script.sources));
            EXIT_INPUT_ERROR
        }
    }
}
