//! Declarations: channels, data types and subtypes, name types,
//! external and transparent names, includes, `print`, definitions and
//! type annotations, and the clauses of a data type; it gives up on
//! modules and instances.

use thin_vec::ThinVec;
use ustr::Ustr;

use super::super::ast::{DataClause, Decl, DeclKind, Definition, Ident, Include};
use super::super::build;
use super::super::tokens::{Tok, Token};
use super::{GiveUp, Mode, Parsed, Parser};

impl<'t> Parser<'t> {
    pub(super) fn decl(&mut self) -> Parsed<Decl> {
        let first = self.tok;
        let kind = match first.kind {
            Tok::Channel => {
                self.bump();
                let names = self.name_list()?;
                let ty = if self.eat(Tok::Colon) {
                    Some(self.expr(Mode::Functional)?)
                } else {
                    None
                };
                DeclKind::Channel(names, ty)
            }
            Tok::Datatype | Tok::Subtype => {
                self.bump();
                let name = self.ident()?;
                self.expect(Tok::Define)?;
                let clauses = self.separated(Tok::Bar, Self::data_clause)?;
                if first.kind == Tok::Datatype {
                    DeclKind::DataType(name, clauses)
                } else {
                    DeclKind::SubType(name, clauses)
                }
            }
            Tok::Nametype => {
                self.bump();
                let name = self.ident()?;
                self.expect(Tok::Define)?;
                DeclKind::NameType(name, self.expr(Mode::Process)?)
            }
            Tok::External | Tok::Transparent => {
                self.bump();
                return self.names_decl(first);
            }
            Tok::Assert => {
                self.bump();
                DeclKind::Assert(Box::new(self.assertion()?))
            }
            Tok::Include => {
                self.bump();
                let path = self.expect_same_line(Tok::Str)?;
                let kind = DeclKind::Include(Include {
                    path: build::include_path(self.text(path)),
                    file: None,
                });
                // The rule ends with the string itself: no trailing skip.
                return Ok(Decl {
                    kind,
                    span: self.span(first.start, path.end),
                });
            }
            Tok::Print => {
                self.bump();
                DeclKind::Print(self.expr(Mode::Process)?)
            }
            Tok::Module | Tok::Exports | Tok::Endmodule | Tok::Instance => return Err(GiveUp),
            Tok::Ident if self.text(first) == "Timed" => return Err(GiveUp),
            _ => return self.definition_or_annotation(),
        };
        Ok(Decl {
            kind,
            span: self.span_to_trail(first.start),
        })
    }

    /// The names of `external` or `transparent` (the keyword `first`,
    /// read already). Pest's span runs on over the blanks (and comment)
    /// after a single name, which its rule's repetition skips before
    /// finding no comma; after several, it ends with the last name, as
    /// the failed repetition gives back what it skipped.
    pub(super) fn names_decl(&mut self, first: Token) -> Parsed<Decl> {
        let names = self.name_list()?;
        let span = if names.len() == 1 {
            self.span_to_trail(first.start)
        } else {
            self.span(first.start, self.last_end)
        };
        let kind = if first.kind == Tok::External {
            DeclKind::External(names)
        } else {
            DeclKind::Transparent(names)
        };
        Ok(Decl { kind, span })
    }

    /// `lhs = rhs`, or else `f, g :: type`.
    pub(super) fn definition_or_annotation(&mut self) -> Parsed<Decl> {
        let start = self.tok.start;
        let mark = self.mark();
        let lhs = self.expr(Mode::Functional)?;
        let kind = if self.eat(Tok::Define) {
            let lhs = build::lhs_from_expr(lhs)?;
            // Every `_` of the left-hand side is inside a pattern.
            self.wildcards = mark.wildcards;
            let rhs = self.expr(Mode::Process)?;
            DeclKind::Definition(Definition { lhs, rhs })
        } else if self.at(Tok::DoubleColon) || self.at(Tok::Comma) {
            self.reset(mark);
            let names = self.name_list()?;
            self.expect(Tok::DoubleColon)?;
            DeclKind::TypeAnnotation(names, self.type_expr()?)
        } else {
            return Err(GiveUp);
        };
        Ok(Decl {
            kind,
            span: self.span_to_trail(start),
        })
    }

    pub(super) fn ident(&mut self) -> Parsed<Ident> {
        let token = self.expect(Tok::Ident)?;
        let name = self.text(token);
        if name.contains("::") {
            return Err(GiveUp);
        }
        Ok(Ident {
            name: Ustr::from(name),
            span: self.token_span(token),
        })
    }

    fn name_list(&mut self) -> Parsed<ThinVec<Ident>> {
        self.comma_list(Self::ident)
    }

    fn data_clause(&mut self) -> Parsed<DataClause> {
        let start = self.tok.start;
        let name = self.ident()?;
        let fields = if self.at(Tok::Dot) && !self.tok.nl_before {
            self.bump();
            Some(self.expr(Mode::Functional)?)
        } else {
            None
        };
        Ok(DataClause {
            name,
            fields,
            span: self.span_to_trail(start),
        })
    }
}
