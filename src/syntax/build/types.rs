//! Type expressions, as in type annotations (`f :: (Int) -> Bool`).

use pest::iterators::Pair;
use thin_vec::ThinVec;

use super::super::ast::{TypeExpr, TypeKind};
use super::super::parser::Rule;
use super::{Builder, Result};

impl Builder {
    pub(super) fn type_expr(&mut self, pair: Pair<Rule>) -> Result<TypeExpr> {
        let span = self.span(&pair);
        match pair.as_rule() {
            Rule::type_expr => {
                let mut inner = pair.into_inner().peekable();
                if inner.peek().map(|p| p.as_rule()) == Some(Rule::type_constraints) {
                    let constraints = inner
                        .next()
                        .unwrap()
                        .into_inner()
                        .map(|c| {
                            let mut c = c.into_inner();
                            (self.ident(c.next().unwrap()), self.ident(c.next().unwrap()))
                        })
                        .collect();
                    let body = self.type_expr(inner.next().unwrap())?;
                    Ok(TypeExpr {
                        kind: TypeKind::Constrained(constraints, Box::new(body)),
                        span,
                    })
                } else {
                    self.type_expr(inner.next().unwrap())
                }
            }
            Rule::type_fun => {
                let mut inner = pair.into_inner();
                let arg = self.type_expr(inner.next().unwrap())?;
                match inner.next() {
                    Some(result) => Ok(TypeExpr {
                        kind: TypeKind::Function(Box::new(arg), Box::new(self.type_expr(result)?)),
                        span,
                    }),
                    None => Ok(arg),
                }
            }
            Rule::type_yield => {
                let mut inner = pair.into_inner();
                let fields = self.type_expr(inner.next().unwrap())?;
                let Some(op) = inner.next() else {
                    return Ok(fields);
                };
                let (fields, result) = (
                    Box::new(fields),
                    Box::new(self.type_expr(inner.next().unwrap())?),
                );
                let kind = if op.as_str() == "=>*" {
                    TypeKind::Extendable(fields, result)
                } else {
                    TypeKind::Dotable(fields, result)
                };
                Ok(TypeExpr { kind, span })
            }
            Rule::type_dot => {
                let mut parts = pair
                    .into_inner()
                    .filter(|p| p.as_rule() != Rule::op_dot)
                    .map(|p| self.type_expr(p))
                    .collect::<Result<ThinVec<_>>>()?;
                if parts.len() == 1 {
                    Ok(parts.remove(0))
                } else {
                    Ok(TypeExpr {
                        kind: TypeKind::Dot(parts),
                        span,
                    })
                }
            }
            Rule::type_tuple => {
                let parts = pair
                    .into_inner()
                    .map(|p| self.type_expr(p))
                    .collect::<Result<ThinVec<_>>>()?;
                Ok(TypeExpr {
                    kind: TypeKind::Tuple(parts),
                    span,
                })
            }
            Rule::type_set | Rule::type_seq => {
                let rule = pair.as_rule();
                let inner = Box::new(self.type_expr(pair.into_inner().next().unwrap())?);
                let kind = if rule == Rule::type_set {
                    TypeKind::Set(inner)
                } else {
                    TypeKind::Seq(inner)
                };
                Ok(TypeExpr { kind, span })
            }
            Rule::type_map => {
                let mut inner = pair.into_inner();
                let k = self.type_expr(inner.next().unwrap())?;
                let v = self.type_expr(inner.next().unwrap())?;
                Ok(TypeExpr {
                    kind: TypeKind::Map(Box::new(k), Box::new(v)),
                    span,
                })
            }
            Rule::type_name => Ok(TypeExpr {
                kind: TypeKind::Name(self.qname(&pair.into_inner().next().unwrap())),
                span,
            }),
            other => unreachable!("not a type: {other:?}"),
        }
    }
}
