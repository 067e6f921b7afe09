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
mod errors;
mod lexical;
mod load;
mod parser;
mod print;
pub mod source;
mod tokens;

pub use build::MAX_DEPTH;
pub use diagnostic::{Diagnostic, Severity, render_all};
pub use lexical::{MAX_BRACKET_DEPTH, without_comments};
pub use load::{LoadError, Program, empty_file, load_file, load_str};
pub use print::{binary_symbol, process_symbol};
pub use source::{FileId, Location, SourceFile, SourceMap, Span};

use pest::Parser;

/// Parses one expression, as typed on the command line or in the TUI.
/// Spans and diagnostics refer to file `file`: the caller adds `text` to
/// its [`SourceMap`] under that id to render them.
pub fn parse_expr(file: FileId, text: &str) -> Result<ast::Expr, Vec<Diagnostic>> {
    crate::stack::with_large_stack(|| {
        let lexical_errors = lexical::check(file, text);
        if !lexical_errors.is_empty() {
            return Err(lexical_errors);
        }
        if let Some(expr) = descent::parse_expr(file, text) {
            return Ok(expr);
        }
        reference_expr(file, text)
    })
}

/// Parses one expression with pest alone (see [`parse_expr`]).
fn reference_expr(file: FileId, text: &str) -> Result<ast::Expr, Vec<Diagnostic>> {
    match parser::CspmParser::parse(parser::Rule::expr_input, text) {
        Ok(mut pairs) => build::Builder::new(file, 0)
            .expr_input(pairs.next().expect("an expr_input pair"))
            .map_err(|d| vec![d]),
        Err(_) => Err(load::with_error_detail(|| {
            pest::set_error_detail(true);
            match parser::CspmParser::parse(parser::Rule::expr_input, text) {
                Ok(_) => unreachable!("a text that failed to parse fails again"),
                Err(e) => vec![errors::diagnostic(&e, file, text, 0)],
            }
        })),
    }
}

/// Parses the declarations of a single text without following includes;
/// spans refer to file `file`, as for [`parse_expr`].
pub fn parse_decls(file: FileId, text: &str) -> Result<Vec<ast::Decl>, Vec<Diagnostic>> {
    crate::stack::with_large_stack(|| load::parse_decls(file, text))
}

/// The two parsers behind [`parse_decls`] and [`parse_expr`], for the
/// differential tests: the fast one (`None` where it leaves the text to
/// pest) and pest's, the reference. Both expect a text that passed the
/// lexical checks.
#[doc(hidden)]
pub mod differential {
    use super::{Diagnostic, FileId, ast, descent, load};
    use crate::stack::with_large_stack as stack_checked;

    pub fn fast_decls(file: FileId, text: &str) -> Option<Vec<ast::Decl>> {
        stack_checked(|| descent::parse_file(file, text))
    }

    pub fn reference_decls(file: FileId, text: &str) -> Result<Vec<ast::Decl>, Vec<Diagnostic>> {
        stack_checked(|| load::parse_decls_with_pest(file, text))
    }

    pub fn fast_expr(file: FileId, text: &str) -> Option<ast::Expr> {
        stack_checked(|| descent::parse_expr(file, text))
    }

    pub fn reference_expr(file: FileId, text: &str) -> Result<ast::Expr, Vec<Diagnostic>> {
        stack_checked(|| super::reference_expr(file, text))
    }
}
