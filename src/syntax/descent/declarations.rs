//! Declarations: channels, data types and subtypes, name types,
//! external and transparent names, includes, `print`, definitions and
//! type annotations, the clauses of a data type, modules, instances and
//! `Timed` sections (what generated scripts, RoboChart's, are made of).

use thin_vec::ThinVec;
use ustr::Ustr;

use super::super::ast::{DataClause, Decl, DeclKind, Definition, Ident, Include, Module, Name};
use super::super::build;
use super::super::tokens::{Tok, Token};
use super::{GiveUp, MAX_DECL_NESTING, Mode, Parsed, Parser};

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
            Tok::Module => {
                self.bump();
                let module = self.nested(Self::module)?;
                // The rule ends with `endmodule`: no trailing skip.
                return Ok(Decl {
                    kind: DeclKind::Module(module),
                    span: self.span(first.start, self.last_end),
                });
            }
            Tok::Instance => {
                self.bump();
                return self.instance(first);
            }
            Tok::Ident if self.text(first) == "Timed" => return self.timed(),
            Tok::Exports | Tok::Endmodule => return Err(GiveUp),
            _ => return self.definition_or_annotation(),
        };
        Ok(Decl {
            kind,
            span: self.span_to_trail(first.start),
        })
    }

    /// Runs `body`, the inside of a module or a `Timed` section, one
    /// level deeper: past [`MAX_DECL_NESTING`] levels pest decides.
    fn nested<T>(&mut self, body: impl FnOnce(&mut Self) -> Parsed<T>) -> Parsed<T> {
        if self.decl_depth >= MAX_DECL_NESTING {
            return Err(GiveUp);
        }
        self.decl_depth += 1;
        let parsed = body(self);
        self.decl_depth -= 1;
        parsed
    }

    /// `module M(X, _) private-decls exports decls endmodule`, after
    /// `module`: its parts each on lines of their own.
    fn module(&mut self) -> Parsed<Module> {
        let name = self.ident_on_this_line()?;
        let params = if self.at_on_this_line(Tok::LParen) {
            let open = self.bump();
            let params = if self.at(Tok::RParen) {
                ThinVec::new()
            } else {
                self.comma_list(Self::module_param)?
            };
            let close = self.expect(Tok::RParen)?;
            if params.is_empty() {
                let brackets = self.span(open.start, close.end);
                return Err(build::empty_brackets(brackets, "a module").into());
            }
            Some(params)
        } else {
            None
        };
        let private = self.decls_on_lines(|kind| matches!(kind, Tok::Exports | Tok::Endmodule))?;
        let exports = if self.at(Tok::Exports) {
            self.bump();
            Some(self.decls_on_lines(|kind| kind == Tok::Endmodule)?)
        } else {
            None
        };
        self.expect(Tok::Endmodule)?;
        build::only_declarations(&private, "a module", false)?;
        if let Some(exports) = &exports {
            build::only_declarations(exports, "a module", false)?;
        }
        Ok(Module {
            name,
            params,
            private,
            exports,
        })
    }

    /// A module's parameter: a name, or `_` for one it does not use.
    fn module_param(&mut self) -> Parsed<Ident> {
        if self.at(Tok::Wildcard) {
            let token = self.bump();
            return Ok(Ident {
                name: Ustr::from("_"),
                span: self.token_span(token),
            });
        }
        self.ident()
    }

    /// Declarations, each on a line of its own, up to a token `ends`
    /// accepts (also on a line of its own, or the text's end).
    fn decls_on_lines(&mut self, ends: impl Fn(Tok) -> bool) -> Parsed<ThinVec<Decl>> {
        let mut decls = ThinVec::new();
        while !ends(self.tok.kind) {
            if !self.tok.nl_before || self.at(Tok::Eof) {
                return Err(GiveUp);
            }
            decls.push(self.decl()?);
        }
        decls.shrink_to_fit();
        Ok(decls)
    }

    /// `instance I = M(args)` or `instance I = M`, after `instance`.
    fn instance(&mut self, first: Token) -> Parsed<Decl> {
        let name = self.ident_on_this_line()?;
        self.expect(Tok::Define)?;
        let module = self.expect(Tok::Ident)?;
        let module = Name {
            text: Ustr::from(self.text(module)),
            span: self.token_span(module),
        };
        if !self.at_on_this_line(Tok::LParen) {
            // The rule ends with the optional arguments: pest's skip
            // after the name stays in the span.
            return Ok(Decl {
                kind: DeclKind::Instance(name, module, None),
                span: self.span_to_trail(first.start),
            });
        }
        let open = self.bump();
        let (args, close) = self.call_args()?;
        if args.is_empty() {
            let brackets = self.span(open.start, close.end);
            return Err(build::empty_brackets(brackets, "an instance of a module").into());
        }
        Ok(Decl {
            kind: DeclKind::Instance(name, module, Some(args)),
            span: self.span(first.start, close.end),
        })
    }

    /// `Timed(et) { decls }` or `Timed { decls }`, at `Timed`: the
    /// first declaration may share the brace's line.
    pub(super) fn timed(&mut self) -> Parsed<Decl> {
        let first = self.bump();
        let kind = self.nested(Self::timed_section)?;
        // The rule ends with `}`.
        Ok(Decl {
            kind,
            span: self.span(first.start, self.last_end),
        })
    }

    fn timed_section(&mut self) -> Parsed<DeclKind> {
        let function = if self.at_on_this_line(Tok::LParen) {
            self.bump();
            let function = self.bracketed(false, |p| p.expr(Mode::Process))?;
            self.expect(Tok::RParen)?;
            Some(function)
        } else {
            None
        };
        self.expect(Tok::LBrace)?;
        let mut decls = ThinVec::new();
        while !self.at(Tok::RBrace) {
            if !decls.is_empty() && !self.tok.nl_before {
                return Err(GiveUp);
            }
            decls.push(self.decl()?);
        }
        self.bump();
        decls.shrink_to_fit();
        // FDR's grammar admits assertions in a section, not `print`.
        build::only_declarations(&decls, "a `Timed` section", true)?;
        Ok(DeclKind::Timed(function, decls))
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

    /// The name after `module` or `instance`, which the grammar keeps
    /// on the keyword's line.
    fn ident_on_this_line(&mut self) -> Parsed<Ident> {
        if self.tok.nl_before {
            return Err(GiveUp);
        }
        self.ident()
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
