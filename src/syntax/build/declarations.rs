//! Declarations: channels, data types, modules, instances, `Timed`
//! sections, includes, definitions and the rest, with the checks FDR's
//! parser makes on where each may stand.

use pest::iterators::{Pair, Pairs};
use thin_vec::ThinVec;
use ustr::Ustr;

use super::super::ast::{
    DataClause, Decl, DeclKind, Definition, Ident, Include, Lhs, Module, Name,
};
use super::super::diagnostic::Diagnostic;
use super::super::parser::Rule;
use super::super::source::Span;
use super::{Builder, Result, lhs_from_expr};

impl Builder {
    pub(super) fn decls(&mut self, pairs: Pairs<Rule>) -> Result<ThinVec<Decl>> {
        pairs.map(|p| self.decl(p)).collect()
    }

    pub(super) fn decl(&mut self, pair: Pair<Rule>) -> Result<Decl> {
        let span = self.span(&pair);
        let rule = pair.as_rule();
        let mut inner = pair.into_inner();
        let kind = match rule {
            Rule::definition => {
                let lhs = inner.next().unwrap();
                let rhs = self.expr(inner.next().unwrap())?;
                let lhs = self.lhs(lhs)?;
                DeclKind::Definition(Definition { lhs, rhs })
            }
            Rule::type_annotation => {
                let names = self.name_list(inner.next().unwrap());
                DeclKind::TypeAnnotation(names, self.type_expr(inner.next().unwrap())?)
            }
            Rule::channel_decl => {
                let names = self.name_list(inner.next().unwrap());
                let ty = inner.next().map(|p| self.expr(p)).transpose()?;
                DeclKind::Channel(names, ty)
            }
            Rule::datatype_decl | Rule::subtype_decl => {
                let name = self.ident(inner.next().unwrap());
                let clauses = inner
                    .next()
                    .unwrap()
                    .into_inner()
                    .map(|c| self.data_clause(c))
                    .collect::<Result<ThinVec<_>>>()?;
                if rule == Rule::datatype_decl {
                    DeclKind::DataType(name, clauses)
                } else {
                    DeclKind::SubType(name, clauses)
                }
            }
            Rule::nametype_decl => {
                let name = self.ident(inner.next().unwrap());
                DeclKind::NameType(name, self.expr(inner.next().unwrap())?)
            }
            Rule::external_decl => DeclKind::External(self.name_list(inner.next().unwrap())),
            Rule::transparent_decl => DeclKind::Transparent(self.name_list(inner.next().unwrap())),
            Rule::assert_decl => DeclKind::Assert(Box::new(self.assertion(inner)?)),
            Rule::include_decl => {
                let lit = inner.next().unwrap();
                DeclKind::Include(Include {
                    path: include_path(lit.as_str()),
                    file: None,
                })
            }
            Rule::print_decl => DeclKind::Print(self.expr(inner.next().unwrap())?),
            Rule::module_decl => DeclKind::Module(self.module(inner)?),
            Rule::instance_decl => {
                let name = self.ident(inner.next().unwrap());
                let module = self.qname(&inner.next().unwrap());
                let args = match inner.next() {
                    Some(p) => {
                        let brackets = self.span(&p);
                        let args = self.call_args(p)?;
                        if args.is_empty() {
                            return Err(empty_brackets(brackets, "an instance of a module"));
                        }
                        Some(args)
                    }
                    None => None,
                };
                DeclKind::Instance(name, module, args)
            }
            Rule::timed_decl => {
                let mut function = None;
                let mut decls = ThinVec::new();
                for p in inner {
                    if p.as_rule() == Rule::expr {
                        function = Some(self.expr(p)?);
                    } else {
                        decls.push(self.decl(p)?);
                    }
                }
                // FDR's grammar admits assertions in a section (generated
                // scripts rely on it), not `print`.
                only_declarations(&decls, "a `Timed` section", true)?;
                DeclKind::Timed(function, decls)
            }
            other => unreachable!("not a declaration: {other:?}"),
        };
        Ok(Decl { kind, span })
    }

    fn module(&mut self, inner: Pairs<Rule>) -> Result<Module> {
        let mut name = None;
        let mut params = None;
        let mut private = ThinVec::new();
        let mut exports = None;
        for p in inner {
            match p.as_rule() {
                Rule::ident => name = Some(self.ident(p)),
                Rule::module_params => {
                    let brackets = self.span(&p);
                    // A parameter is a name or `_` (an argument the
                    // module does not use).
                    let names: ThinVec<Ident> = p
                        .into_inner()
                        .map(|param| {
                            let inner = param.into_inner().next().expect("a name or `_`");
                            match inner.as_rule() {
                                Rule::wildcard => Ident {
                                    name: Ustr::from("_"),
                                    span: self.span(&inner),
                                },
                                _ => self.ident(inner),
                            }
                        })
                        .collect();
                    if names.is_empty() {
                        return Err(empty_brackets(brackets, "a module"));
                    }
                    params = Some(names)
                }
                Rule::module_private => private = self.decls(p.into_inner())?,
                Rule::module_exports => exports = Some(self.decls(p.into_inner())?),
                other => unreachable!("not part of a module: {other:?}"),
            }
        }
        only_declarations(&private, "a module", false)?;
        if let Some(exports) = &exports {
            only_declarations(exports, "a module", false)?;
        }
        Ok(Module {
            name: name.expect("a module has a name"),
            params,
            private,
            exports,
        })
    }

    fn data_clause(&mut self, pair: Pair<Rule>) -> Result<DataClause> {
        let span = self.span(&pair);
        let mut inner = pair.into_inner();
        let name = self.ident(inner.next().unwrap());
        let fields = inner
            .find(|p| p.as_rule() == Rule::dot_expr)
            .map(|p| self.expr(p))
            .transpose()?;
        Ok(DataClause { name, fields, span })
    }

    fn name_list(&mut self, pair: Pair<Rule>) -> ThinVec<Ident> {
        pair.into_inner().map(|p| self.ident(p)).collect()
    }

    pub(super) fn ident(&self, pair: Pair<Rule>) -> Ident {
        Ident {
            name: Ustr::from(pair.as_str()),
            span: self.span(&pair),
        }
    }

    pub(super) fn qname(&self, pair: &Pair<Rule>) -> Name {
        Name {
            text: Ustr::from(pair.as_str()),
            span: self.span(pair),
        }
    }

    /// Classifies the left-hand side of `lhs = rhs`.
    fn lhs(&mut self, pair: Pair<Rule>) -> Result<Lhs> {
        self.in_pattern = true;
        let built = self.expr(pair);
        self.in_pattern = false;
        lhs_from_expr(built?)
    }
}

/// Brackets with nothing between them after a module's name or an
/// instance's module: FDR's parser refuses them.
pub(crate) fn empty_brackets(span: Span, what: &str) -> Diagnostic {
    Diagnostic::error(
        span,
        format!("{what} with no parameters takes no brackets: leave out `()`"),
    )
}

/// Refuses `print` inside a module or a `Timed` section, and assertions
/// inside a module, which FDR's parser admits only at the top level.
pub(crate) fn only_declarations(decls: &[Decl], within: &str, assertions: bool) -> Result<()> {
    for d in decls {
        let what = match d.kind {
            DeclKind::Assert(_) if !assertions => "an assertion",
            DeclKind::Print(_) => "`print`",
            _ => continue,
        };
        return Err(Diagnostic::error(
            d.span,
            format!("{what} cannot stand inside {within}: move it to the top level"),
        ));
    }
    Ok(())
}

/// The file an `include` names. FDR reads the path between the quotes as
/// it is (no escapes) and accepts Windows' `\` between folders.
pub(crate) fn include_path(literal: &str) -> String {
    literal[1..literal.len() - 1].replace('\\', "/")
}
