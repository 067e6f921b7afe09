//! The front end: CSPM text to a syntax tree with spans, and back.
//!
//! Owns the grammar (`grammar/cspm.pest`), the AST, the pretty-printer,
//! source positions and the diagnostics every later layer reports with.
//! It knows nothing of what names mean: resolution and evaluation belong
//! to the `script` and `eval` layers.

pub mod ast;
mod build;
mod descent;
pub mod diagnostic;
mod encoding;
mod errors;
mod lexical;
mod load;
mod parser;
mod pest_run;
mod print;
mod read;
pub mod source;
pub(crate) mod strength;
mod tokens;

pub use build::{MAX_DEPTH, MAX_NESTING};
pub use diagnostic::{Diagnostic, Severity, render_all};
pub use lexical::{MAX_BRACKET_DEPTH, floor_char_boundary, one_line, without_comments};
pub use load::{
    ERROR_CAP, LOAD_POLL_EVERY, LoadError, LoadStage, LoadStopped, OpenFiles, Program,
    display_name, empty_file, load_file, load_file_within, load_str, load_str_within,
    load_text_at_within, show_all_errors,
};
pub use print::{binary_symbol, process_symbol};
pub use read::unreadable;
pub use source::{FileId, Location, SourceFile, SourceMap, Span};
pub use tokens::is_name;

use thin_vec::ThinVec;

/// Parses one expression, as typed on the command line or in the TUI.
/// Spans and diagnostics start at position `base`: the caller adds `text`
/// to its [`SourceMap`] and passes that file's [`base`](SourceMap::base)
/// to render them.
pub fn parse_expr(base: u32, text: &str) -> Result<ast::Expr, Vec<Diagnostic>> {
    crate::stack::with_large_stack(|| {
        let lexical_errors = lexical::check(base, text, lexical::Whole::Expression);
        if !lexical_errors.is_empty() {
            return Err(lexical_errors);
        }
        if let Some(expr) = descent::parse_expr(base, text) {
            return Ok(expr);
        }
        reference_expr(base, text)
    })
}

/// Parses one expression with pest alone (see [`parse_expr`]).
fn reference_expr(base: u32, text: &str) -> Result<ast::Expr, Vec<Diagnostic>> {
    use pest_run::Detail;
    let rule = parser::Rule::expr_input;
    match pest_run::parse(rule, text, Detail::Off) {
        Ok(mut pairs) => build::Builder::new(base, 0)
            .expr_input(pairs.next().expect("an expr_input pair"))
            .map_err(|d| vec![d]),
        Err(_) => {
            let error = pest_run::parse(rule, text, Detail::On)
                .expect_err("a text that failed to parse fails again");
            Err(vec![errors::diagnostic(
                &error,
                base,
                text,
                0,
                errors::Input::Expression,
            )])
        }
    }
}

/// Parses the declarations of a single text without following includes;
/// spans start at position `base`, as for [`parse_expr`].
pub fn parse_decls(base: u32, text: &str) -> Result<ThinVec<ast::Decl>, Vec<Diagnostic>> {
    crate::stack::with_large_stack(|| load::parse_decls(base, text))
}

/// The two parsers behind [`parse_decls`] and [`parse_expr`], for the
/// differential tests: the fast one (`None` where it leaves the text to
/// pest) and pest's, the reference. Both expect a text that passed the
/// lexical checks.
#[doc(hidden)]
pub mod differential {
    use super::{Diagnostic, ThinVec, ast, descent, load};
    use crate::stack::with_large_stack as stack_checked;

    pub fn fast_decls(base: u32, text: &str) -> Option<ThinVec<ast::Decl>> {
        stack_checked(|| descent::parse_file(base, text))
    }

    pub fn reference_decls(base: u32, text: &str) -> Result<ThinVec<ast::Decl>, Vec<Diagnostic>> {
        stack_checked(|| load::parse_decls_with_pest(base, text))
    }

    pub fn fast_expr(base: u32, text: &str) -> Option<ast::Expr> {
        stack_checked(|| descent::parse_expr(base, text))
    }

    pub fn reference_expr(base: u32, text: &str) -> Result<ast::Expr, Vec<Diagnostic>> {
        stack_checked(|| super::reference_expr(base, text))
    }

    /// The rules pest enters to parse `text` as a script with its record
    /// of expected tokens on, as when it explains an error: the work of
    /// the slowest parse symcsp makes, for tests that it is linear.
    pub fn pest_calls(text: &str) -> usize {
        use super::parser::Rule;
        use super::pest_run::{Detail, calls};
        stack_checked(|| calls(Rule::file, text, Detail::On))
    }
}
