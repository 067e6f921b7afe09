//! Printing declarations, assertions and type expressions: the
//! [`Printer`]'s methods for what a script declares, beside the
//! expressions they hold.

use super::super::ast::*;
use super::super::strength::{Operator, level};
use super::{FUNCTIONAL, Printer};

impl Printer {
    pub(crate) fn decls(&mut self, decls: &[Decl]) {
        for (i, d) in decls.iter().enumerate() {
            if i > 0 {
                self.newline();
            }
            self.decl(d);
        }
    }

    pub(super) fn indented_decls(&mut self, decls: &[Decl]) {
        self.indent += 2;
        for d in decls {
            self.newline();
            self.decl(d);
        }
        self.indent -= 2;
    }

    pub(crate) fn decl(&mut self, d: &Decl) {
        match &d.kind {
            DeclKind::Definition(def) => {
                match &def.lhs {
                    Lhs::Name(n) => self.put(&n.name),
                    Lhs::Function(n, params) => {
                        self.put(&n.name);
                        for group in params {
                            self.bracketed("(", ")", false, |p| {
                                p.list(group, |p, x| p.pattern(x, 0))
                            });
                        }
                    }
                    Lhs::Pattern(pat) => self.pattern(pat, FUNCTIONAL),
                }
                self.put(" =");
                self.definition_body(&def.rhs);
            }
            DeclKind::TypeAnnotation(names, ty) => {
                self.idents(names);
                self.put(" :: ");
                self.type_expr(ty);
            }
            DeclKind::Channel(names, ty) => {
                self.put("channel ");
                self.idents(names);
                if let Some(t) = ty {
                    self.put(" : ");
                    self.expr(t, FUNCTIONAL);
                }
            }
            DeclKind::DataType(name, clauses) | DeclKind::SubType(name, clauses) => {
                let keyword = if matches!(d.kind, DeclKind::DataType(..)) {
                    "datatype"
                } else {
                    "subtype"
                };
                self.put(keyword);
                self.put(" ");
                self.put(&name.name);
                self.put(" = ");
                for (i, c) in clauses.iter().enumerate() {
                    if i > 0 {
                        self.put(" | ");
                    }
                    self.put(&c.name.name);
                    if let Some(f) = &c.fields {
                        self.infix(Operator::Dot);
                        self.expr(f, FUNCTIONAL);
                    }
                }
            }
            DeclKind::NameType(name, e) => {
                self.put("nametype ");
                self.put(&name.name);
                self.put(" = ");
                self.expr(e, 0);
            }
            DeclKind::External(names) => {
                self.put("external ");
                self.idents(names);
            }
            DeclKind::Transparent(names) => {
                self.put("transparent ");
                self.idents(names);
            }
            DeclKind::Assert(a) => self.assertion(a),
            DeclKind::Include(inc) => {
                // The path is read without escapes (see `build::include_path`).
                self.put("include \"");
                self.put(&inc.path);
                self.put("\"");
            }
            DeclKind::Print(e) => {
                self.put("print ");
                self.expr(e, 0);
            }
            DeclKind::Module(m) => {
                self.put("module ");
                self.put(&m.name.name);
                if let Some(params) = &m.params {
                    self.bracketed("(", ")", false, |p| p.idents(params));
                }
                self.indented_decls(&m.private);
                if let Some(exports) = &m.exports {
                    self.newline();
                    self.put("exports");
                    self.indented_decls(exports);
                }
                self.newline();
                self.put("endmodule");
            }
            DeclKind::Instance(name, module, args) => {
                self.put("instance ");
                self.put(&name.name);
                self.put(" = ");
                self.name(module);
                if let Some(args) = args {
                    self.bracketed("(", ")", false, |p| p.list(args, |p, a| p.expr(a, 0)));
                }
            }
            DeclKind::Timed(function, decls) => {
                self.put("Timed");
                if let Some(f) = function {
                    self.bracketed("(", ")", false, |p| p.expr(f, 0));
                }
                self.put(" {");
                self.indented_decls(decls);
                self.newline();
                self.put("}");
            }
        }
    }

    pub(super) fn idents(&mut self, names: &[Ident]) {
        self.list(names, |p, n| p.put(&n.name));
    }

    pub(super) fn name(&mut self, name: &Name) {
        self.put(&name.text);
    }

    pub(super) fn assertion(&mut self, a: &Assertion) {
        self.put("assert ");
        if a.negated {
            self.put("not ");
        }
        let model = |m: &Option<Model>| {
            m.map(|m| format!(" [{}]", m.abbreviation()))
                .unwrap_or_default()
        };
        match &a.kind {
            AssertionKind::Refinement { spec, model, imp } => {
                self.expr(spec, level(Operator::Hide));
                self.put(&format!(" [{}= ", model.abbreviation()));
                self.expr(imp, level(Operator::Hide));
            }
            AssertionKind::Property {
                process,
                property,
                model: m,
            } => {
                self.expr(process, level(Operator::Hide));
                self.put(&format!(" :[{}{}]", property.text(), model(m)));
            }
            AssertionKind::HasTrace {
                process,
                model: m,
                trace,
            } => {
                self.expr(process, level(Operator::Hide));
                self.put(&format!(" :[has trace{}]: ", model(m)));
                self.expr(trace, FUNCTIONAL);
            }
            AssertionKind::Symmetric { process, types } => {
                self.expr(process, level(Operator::Hide));
                self.put(" :[symmetric]: ");
                self.list(types, |p, t| p.expr(t, FUNCTIONAL));
            }
        }
        for option in &a.options {
            match &option.kind {
                AssertOptionKind::TauPriority(set) => {
                    self.put(" :[tau priority over]: ");
                    self.expr(set, FUNCTIONAL);
                }
                AssertOptionKind::PartialOrderReduce(mode) => {
                    self.put(" :[partial order reduce");
                    if let Some(mode) = mode {
                        self.put(" [");
                        self.put(&mode.name);
                        self.put("]");
                    }
                    self.put("]");
                }
                AssertOptionKind::SymmetryReduce(types) => {
                    self.put(" :[symmetry reduce]");
                    if !types.is_empty() {
                        self.put(": ");
                        self.list(types, |p, t| p.expr(t, FUNCTIONAL));
                    }
                }
            }
        }
    }

    pub(crate) fn type_expr(&mut self, t: &TypeExpr) {
        match &t.kind {
            TypeKind::Name(n) => self.name(n),
            TypeKind::Tuple(items) => {
                self.bracketed("(", ")", false, |p| p.list(items, |p, t| p.type_expr(t)))
            }
            TypeKind::Set(inner) => self.bracketed("{", "}", false, |p| p.type_expr(inner)),
            TypeKind::Seq(inner) => self.bracketed("<", ">", false, |p| p.type_expr(inner)),
            TypeKind::Map(k, v) => self.bracketed("(|", "|)", false, |p| {
                p.type_expr(k);
                p.put(" => ");
                p.type_expr(v);
            }),
            TypeKind::Dot(parts) => {
                for (i, part) in parts.iter().enumerate() {
                    if i > 0 {
                        self.put(".");
                    }
                    self.type_expr(part);
                }
            }
            TypeKind::Function(arg, result) => {
                self.type_expr(arg);
                self.put(" -> ");
                self.type_expr(result);
            }
            TypeKind::Dotable(fields, result) => {
                self.type_expr(fields);
                self.put(" => ");
                self.type_expr(result);
            }
            TypeKind::Extendable(fields, result) => {
                self.type_expr(fields);
                self.put(" =>* ");
                self.type_expr(result);
            }
            TypeKind::Constrained(constraints, body) => {
                let write = |p: &mut Self, (class, var): &(Ident, Ident)| {
                    p.put(&class.name);
                    p.put(" ");
                    p.put(&var.name);
                };
                if constraints.len() == 1 {
                    write(self, &constraints[0]);
                } else {
                    self.bracketed("(", ")", false, |p| p.list(constraints, write));
                }
                self.put(" => ");
                self.type_expr(body);
            }
        }
    }
}
