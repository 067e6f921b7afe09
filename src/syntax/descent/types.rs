//! Type expressions, as in type annotations (`f :: (Int) -> Bool`).

use thin_vec::{ThinVec, thin_vec};
use ustr::Ustr;

use super::super::ast::{Ident, Name, TypeExpr, TypeKind};
use super::super::build::MAX_DEPTH;
use super::super::tokens::Tok;
use super::{GiveUp, Parsed, Parser};

impl<'t> Parser<'t> {
    pub(super) fn type_expr(&mut self) -> Parsed<TypeExpr> {
        self.type_depth += 1;
        if self.type_depth > MAX_DEPTH {
            return Err(GiveUp);
        }
        let start = self.tok.start;
        let mark = self.mark();
        let result = match self.type_constraints() {
            Ok(constraints) => {
                let body = self.type_fun()?;
                Ok(TypeExpr {
                    kind: TypeKind::Constrained(constraints, Box::new(body)),
                    span: self.span_to_trail(start),
                })
            }
            Err(GiveUp) => {
                self.reset(mark);
                self.type_fun()
            }
        };
        self.type_depth -= 1;
        result
    }

    /// `Eq a =>` or `(Eq a, Ord b) =>`.
    fn type_constraints(&mut self) -> Parsed<ThinVec<(Ident, Ident)>> {
        let constraint = |p: &mut Self| {
            let class = p.ident()?;
            if p.tok.nl_before {
                return Err(GiveUp);
            }
            Ok((class, p.ident()?))
        };
        let constraints = if self.eat(Tok::LParen) {
            let list = self.comma_list(constraint)?;
            self.expect(Tok::RParen)?;
            list
        } else {
            thin_vec![constraint(self)?]
        };
        self.expect(Tok::FatArrow)?;
        Ok(constraints)
    }

    fn type_fun(&mut self) -> Parsed<TypeExpr> {
        let start = self.tok.start;
        let arg = self.type_yield()?;
        if !self.eat(Tok::Arrow) {
            return Ok(arg);
        }
        let result = self.type_nested(Self::type_fun)?;
        Ok(TypeExpr {
            kind: TypeKind::Function(Box::new(arg), Box::new(result)),
            span: self.span_to_trail(start),
        })
    }

    /// `Int => Event` (a value that, dotted with an `Int`, is an event)
    /// or `a =>* Event` (with any number of fields), or a dotted type.
    fn type_yield(&mut self) -> Parsed<TypeExpr> {
        let start = self.tok.start;
        let fields = self.type_dot()?;
        if !self.eat(Tok::FatArrow) {
            return Ok(fields);
        }
        // `=>*` is one operator: the star written against the arrow.
        let extendable = self.at(Tok::Times) && self.tok.start == self.last_end;
        if extendable {
            self.bump();
        }
        let (fields, result) = (
            Box::new(fields),
            Box::new(self.type_nested(Self::type_yield)?),
        );
        let kind = if extendable {
            TypeKind::Extendable(fields, result)
        } else {
            TypeKind::Dotable(fields, result)
        };
        Ok(TypeExpr {
            kind,
            span: self.span_to_trail(start),
        })
    }

    /// `part`, one level deeper, within the builder's bound.
    fn type_nested(&mut self, part: fn(&mut Self) -> Parsed<TypeExpr>) -> Parsed<TypeExpr> {
        self.type_depth += 1;
        if self.type_depth > MAX_DEPTH {
            return Err(GiveUp);
        }
        let result = part(self);
        self.type_depth -= 1;
        result
    }

    fn type_dot(&mut self) -> Parsed<TypeExpr> {
        let start = self.tok.start;
        let mut parts = thin_vec![self.type_atom()?];
        while self.at(Tok::Dot) && !self.tok.nl_before {
            self.bump();
            parts.push(self.type_atom()?);
        }
        if parts.len() == 1 {
            return Ok(parts.pop().expect("one part"));
        }
        parts.shrink_to_fit();
        // Pest's span ends with the last part: the skip it tried for
        // another `.` is given back.
        Ok(TypeExpr {
            kind: TypeKind::Dot(parts),
            span: self.span(start, self.last_end),
        })
    }

    fn type_atom(&mut self) -> Parsed<TypeExpr> {
        let open = self.bump();
        let kind = match open.kind {
            Tok::Ident => TypeKind::Name(Name {
                text: Ustr::from(self.text(open)),
                span: self.token_span(open),
            }),
            Tok::LParen => {
                let parts = if self.at(Tok::RParen) {
                    ThinVec::new()
                } else {
                    self.comma_list(Self::type_expr)?
                };
                self.expect(Tok::RParen)?;
                TypeKind::Tuple(parts)
            }
            Tok::LBrace => {
                let inner = self.type_expr()?;
                self.expect(Tok::RBrace)?;
                TypeKind::Set(Box::new(inner))
            }
            Tok::Lt => {
                let inner = self.type_expr()?;
                self.expect(Tok::Gt)?;
                TypeKind::Seq(Box::new(inner))
            }
            Tok::MapOpen => {
                // The key is a dotted type: its `=>` is the map's.
                let key = self.type_dot()?;
                self.expect(Tok::FatArrow)?;
                let value = self.type_expr()?;
                self.expect(Tok::MapClose)?;
                TypeKind::Map(Box::new(key), Box::new(value))
            }
            _ => return Err(GiveUp),
        };
        Ok(TypeExpr {
            kind,
            span: self.span(open.start, self.last_end),
        })
    }
}
