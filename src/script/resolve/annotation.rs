//! Type annotations: `f :: Eq a => (a, Int) -> Proc` resolved into the
//! [`Annotation`] the type checker holds the definition to.
//!
//! A name in an annotation is one of FDR's types (`Int`, `Bool`, `Char`,
//! `Proc`, `Event`), a datatype, or else a type variable. A variable an
//! enclosing definition's annotation introduced means the same variable
//! inside (`f :: (a) -> a` and, in its `let`, `g :: (a) -> a`); the others
//! are new. As in FDR, only the annotation that introduces a variable may
//! give it classes, only type variables take classes, the left of `=>*`
//! must be a type variable, and a qualified name must be a datatype.

use super::*;
use crate::syntax::ast::TypeKind;

/// The built-in types an annotation may name.
fn builtin_type(name: &str) -> Option<TypeSig> {
    Some(match name {
        "Int" => TypeSig::Int,
        "Bool" => TypeSig::Bool,
        "Char" => TypeSig::Char,
        "Proc" => TypeSig::Proc,
        "Event" => TypeSig::Event,
        _ => return None,
    })
}

/// The variables one annotation introduces, while it is resolved.
struct Introduced {
    names: FxHashMap<Ustr, TypeVarId>,
    binds: Vec<TypeVarId>,
    whole: Span,
}

impl<'s, 'p> Resolver<'s, 'p> {
    /// Resolves annotation `ty` in the current module and type variable
    /// scope. Its problems are reported once however many instances of a
    /// module hold it.
    pub(super) fn annotation(&mut self, ty: &ast::TypeExpr) -> Annotation {
        let reported = self.diagnostics.len();
        let (constraints, body): (&[(ast::Ident, ast::Ident)], &ast::TypeExpr) = match &ty.kind {
            TypeKind::Constrained(constraints, body) => (constraints, body),
            _ => (&[], ty),
        };
        let mut introduced = Introduced {
            names: FxHashMap::default(),
            binds: Vec::new(),
            whole: ty.span,
        };
        let sig = self.type_sig(body, &mut introduced);
        for (class, var) in constraints {
            match introduced.names.get(&var.name) {
                Some(&id) => self.script.type_vars[id.index()].classes.push(class.name),
                None => self.misplaced_constraint(class, var),
            }
        }
        if !self
            .resolved_annotations
            .insert((ty.span.start, ty.span.end))
        {
            self.diagnostics.truncate(reported);
        }
        Annotation {
            binds: introduced.binds,
            ty: sig,
            span: ty.span,
        }
    }

    fn misplaced_constraint(&mut self, class: &ast::Ident, var: &ast::Ident) {
        let written = format!("{} {}", class.name, var.name);
        let d = if let Some(outer) = self.type_var_in_scope(&var.name) {
            let bound_at = self.script.type_vars[outer.index()].bound_at;
            Diagnostic::error(
                var.span,
                format!(
                    "the class constraint `{written}` cannot be given here: `{}` is the type \
                     variable of an enclosing annotation",
                    var.name
                ),
            )
            .with_secondary(bound_at, "which introduces it; give it its classes there")
        } else if builtin_type(&var.name).is_some()
            || matches!(self.lookup_global(var.name), Some(Named::Global(_)))
        {
            Diagnostic::error(
                var.span,
                format!(
                    "`{}` is a type, so it cannot be constrained: only type variables take a \
                     class",
                    var.name
                ),
            )
        } else {
            Diagnostic::error(
                var.span,
                format!(
                    "the type variable `{}` is not in scope: the type after `=>` does not use it",
                    var.name
                ),
            )
        };
        self.diagnostics.push(d);
    }

    /// The type variable `name` of an enclosing annotation, if any.
    fn type_var_in_scope(&self, name: &str) -> Option<TypeVarId> {
        let name = Ustr::from_existing(name)?;
        self.type_var_scopes
            .iter()
            .rev()
            .find_map(|scope| scope.get(&name).copied())
    }

    fn type_sig(&mut self, t: &ast::TypeExpr, introduced: &mut Introduced) -> TypeSig {
        match &t.kind {
            TypeKind::Name(name) => self.type_name(name, introduced),
            // `(Int)` is `Int` in brackets.
            TypeKind::Tuple(parts) if parts.len() == 1 => self.type_sig(&parts[0], introduced),
            TypeKind::Tuple(parts) => {
                TypeSig::Tuple(parts.iter().map(|p| self.type_sig(p, introduced)).collect())
            }
            TypeKind::Dot(parts) => {
                TypeSig::Dot(parts.iter().map(|p| self.type_sig(p, introduced)).collect())
            }
            TypeKind::Set(inner) => TypeSig::Set(self.boxed(introduced, inner)),
            TypeKind::Seq(inner) => TypeSig::Seq(self.boxed(introduced, inner)),
            TypeKind::Map(k, v) => {
                let k = self.boxed(introduced, k);
                TypeSig::Map(k, self.boxed(introduced, v))
            }
            TypeKind::Dotable(a, b) => {
                let a = self.boxed(introduced, a);
                TypeSig::Dotable(a, self.boxed(introduced, b))
            }
            TypeKind::Function(arguments, result) => {
                let arguments = match &arguments.kind {
                    TypeKind::Tuple(parts) => {
                        parts.iter().map(|p| self.type_sig(p, introduced)).collect()
                    }
                    // Reported by the annotation's shape check.
                    _ => vec![self.type_sig(arguments, introduced)],
                };
                TypeSig::Fun(arguments, self.boxed(introduced, result))
            }
            TypeKind::Extendable(fields, result) => {
                let var = match &fields.kind {
                    TypeKind::Name(name) => match self.type_name(name, introduced) {
                        TypeSig::Var(id) => Some(id),
                        _ => None,
                    },
                    _ => None,
                };
                let var = var.unwrap_or_else(|| {
                    self.diagnostics.push(
                        Diagnostic::error(
                            fields.span,
                            "the left of `=>*` must be a type variable (it stands for the \
                             fields still to come)",
                        )
                        .with_note("write `a =>* Event`"),
                    );
                    self.new_type_var(Ustr::from("_"), introduced)
                });
                TypeSig::Extendable(var, self.boxed(introduced, result))
            }
            TypeKind::Constrained(_, body) => {
                self.diagnostics.push(Diagnostic::error(
                    t.span,
                    "class constraints go at the start of a type annotation",
                ));
                self.type_sig(body, introduced)
            }
        }
    }

    fn boxed(&mut self, introduced: &mut Introduced, t: &ast::TypeExpr) -> Box<TypeSig> {
        Box::new(self.type_sig(t, introduced))
    }

    fn type_name(&mut self, name: &ast::Name, introduced: &mut Introduced) -> TypeSig {
        if !name.is_qualified()
            && let Some(builtin) = builtin_type(&name.text)
        {
            return builtin;
        }
        if let Some(Named::Global(g)) = self.lookup_global(name.text)
            && let GlobalKind::DataType(d) = self.script.globals[g.index()].kind
        {
            return TypeSig::Data(d);
        }
        if name.is_qualified() {
            self.error(
                name.span,
                format!(
                    "there is no datatype `{}`, and a type variable cannot be qualified",
                    name.text
                ),
            );
            return TypeSig::Var(self.new_type_var(name.text, introduced));
        }
        if let Some(&id) = introduced.names.get(&name.text) {
            return TypeSig::Var(id);
        }
        if let Some(id) = self.type_var_in_scope(&name.text) {
            return TypeSig::Var(id);
        }
        let id = self.new_type_var(name.text, introduced);
        introduced.names.insert(name.text, id);
        TypeSig::Var(id)
    }

    fn new_type_var(&mut self, name: Ustr, introduced: &mut Introduced) -> TypeVarId {
        let id = TypeVarId(self.script.type_vars.len() as u32);
        self.script.type_vars.push(TypeVar {
            name,
            classes: Vec::new(),
            bound_at: introduced.whole,
        });
        introduced.binds.push(id);
        id
    }

    /// Attaches the top-level annotation of `name` to what it names.
    pub(super) fn attach_annotation(
        &mut self,
        name: Ustr,
        ident: &ast::Ident,
        annotation: Annotation,
    ) {
        match self.script.names.get(&name).copied() {
            Some(Named::Global(g)) => match self.script.globals[g.index()].kind {
                GlobalKind::Definition(f) | GlobalKind::NameType(f) => {
                    self.script.functions[f.index()].annotation = Some(annotation)
                }
                _ => self.error(
                    ident.span,
                    format!(
                        "`{}` is a datatype or subtype: a type annotation describes a definition, \
                         a channel, a constructor or a nametype",
                        ident.name
                    ),
                ),
            },
            Some(Named::Ctor(c)) => self.script.ctors[c.index()].annotation = Some(annotation),
            Some(Named::Channel(c)) => {
                self.script.channels[c.index()].annotation = Some(annotation)
            }
            None => {}
        }
    }

    /// Runs `body` with the type variables of `func`'s annotation (if it
    /// has one) in scope, for the annotations inside its body.
    pub(super) fn with_type_vars<T>(
        &mut self,
        func: FuncId,
        body: impl FnOnce(&mut Self) -> T,
    ) -> T {
        let scope: Option<FxHashMap<Ustr, TypeVarId>> = self.script.functions[func.index()]
            .annotation
            .as_ref()
            .map(|a| {
                a.binds
                    .iter()
                    .map(|&id| (self.script.type_vars[id.index()].name, id))
                    .collect()
            });
        let pushed = scope.is_some();
        if let Some(scope) = scope {
            self.type_var_scopes.push(scope);
        }
        let result = body(self);
        if pushed {
            self.type_var_scopes.pop();
        }
        result
    }
}
