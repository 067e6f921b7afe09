//! The printer against both parsers: every operator in every place,
//! printed and read back, is the same tree.

use proptest::prelude::*;
use thin_vec::thin_vec;

use super::super::differential::reference_expr;
use super::super::parse_expr;
use super::super::source::Span;
use super::super::strength::ALL;
use super::*;

fn e(kind: ExprKind) -> Expr {
    Expr {
        kind,
        span: Span::default(),
    }
}

fn name(n: &str) -> Expr {
    e(ExprKind::Name(Name::simple(n, Span::default())))
}

/// `op` applied to operands taken from `operands` (one for a prefix
/// operator, two otherwise); an argument an operator is written
/// around is a name. `@@` is left to the patterns.
fn apply(op: Operator, mut operands: impl FnMut() -> Expr) -> Option<Expr> {
    use Operator as O;
    let b = |x: Expr| Box::new(x);
    let field = |kind| Field {
        kind,
        span: Span::default(),
    };
    let x = || Pattern {
        kind: PatternKind::Name(Name::simple("x", Span::default())),
        span: Span::default(),
    };
    let (l, r) = (operands(), operands());
    Some(e(match op {
        O::Hide => ExprKind::Hide(b(l), b(r)),
        O::Project => ExprKind::Project(b(l), b(r)),
        O::Interleave => ExprKind::Process(ProcOp::Interleave, b(l), b(r)),
        O::IntChoice => ExprKind::Process(ProcOp::InternalChoice, b(l), b(r)),
        O::ExtChoice => ExprKind::Process(ProcOp::ExternalChoice, b(l), b(r)),
        O::Seq => ExprKind::Process(ProcOp::SequentialComposition, b(l), b(r)),
        O::Interrupt => ExprKind::Process(ProcOp::Interrupt, b(l), b(r)),
        O::Sliding => ExprKind::Process(ProcOp::SlidingChoice, b(l), b(r)),
        O::GenPar => ExprKind::GenParallel(b(l), b(name("A")), b(r)),
        O::Exception => ExprKind::Exception(b(l), b(name("A")), b(r)),
        O::SyncChoice => ExprKind::SyncExternalChoice(b(l), b(name("A")), b(r)),
        O::SyncInterrupt => ExprKind::SyncInterrupt(b(l), b(name("A")), b(r)),
        O::BracketPar => ExprKind::AlphaParallel(Box::new(AlphaParallel {
            left: l,
            left_alphabet: name("A"),
            right_alphabet: name("B"),
            right: r,
        })),
        O::LinkedPar => ExprKind::LinkedParallel(Box::new(LinkedParallel {
            left: l,
            links: thin_vec![(name("a"), name("b"))],
            stmts: thin_vec![],
            right: r,
        })),
        O::Then => ExprKind::Prefix(b(l), thin_vec![], b(r)),
        O::Guard => ExprKind::Guard(b(l), b(r)),
        O::FieldIn => ExprKind::Prefix(b(l), thin_vec![field(FieldKind::Input(x(), None))], b(r)),
        O::FieldNondet => {
            let fields = thin_vec![field(FieldKind::NondetInput(x(), None))];
            ExprKind::Prefix(b(l), fields, b(r))
        }
        O::FieldOut => {
            let fields = thin_vec![field(FieldKind::Output(name("v")))];
            ExprKind::Prefix(b(l), fields, b(r))
        }
        O::DoubleAt => return None,
        O::Dot => ExprKind::Dot(b(l), b(r)),
        O::Or => ExprKind::Binary(BinaryOp::Or, b(l), b(r)),
        O::And => ExprKind::Binary(BinaryOp::And, b(l), b(r)),
        O::Eq => ExprKind::Binary(BinaryOp::Eq, b(l), b(r)),
        O::Ne => ExprKind::Binary(BinaryOp::Ne, b(l), b(r)),
        O::Lt => ExprKind::Binary(BinaryOp::Lt, b(l), b(r)),
        O::Le => ExprKind::Binary(BinaryOp::Le, b(l), b(r)),
        O::Gt => ExprKind::Binary(BinaryOp::Gt, b(l), b(r)),
        O::Ge => ExprKind::Binary(BinaryOp::Ge, b(l), b(r)),
        O::Plus => ExprKind::Binary(BinaryOp::Add, b(l), b(r)),
        O::Minus => ExprKind::Binary(BinaryOp::Sub, b(l), b(r)),
        O::Times => ExprKind::Binary(BinaryOp::Mul, b(l), b(r)),
        O::Div => ExprKind::Binary(BinaryOp::Div, b(l), b(r)),
        O::Mod => ExprKind::Binary(BinaryOp::Mod, b(l), b(r)),
        O::Concat => ExprKind::Binary(BinaryOp::Concat, b(l), b(r)),
        O::Not => ExprKind::Unary(UnaryOp::Not, b(l)),
        O::Neg => ExprKind::Unary(UnaryOp::Neg, b(l)),
        O::Length => ExprKind::Unary(UnaryOp::Length, b(l)),
        O::Call => ExprKind::App(b(l), thin_vec![r]),
        O::Rename => ExprKind::Rename(b(l), thin_vec![(name("a"), name("b"))], thin_vec![]),
    }))
}

/// The expression printed reads back as itself, with the fast parser
/// and with pest's.
fn assert_round_trip(expr: &Expr) -> Result<(), TestCaseError> {
    let text = expr.to_string();
    let fast = parse_expr(0, &text);
    prop_assert_eq!(fast.as_ref(), Ok(expr), "`{}` reads back", text);
    let pest = reference_expr(0, &text);
    prop_assert_eq!(pest.as_ref(), Ok(expr), "`{}` reads back with pest", text);
    Ok(())
}

/// A greedy construct, which only brackets keep from swallowing what
/// follows it.
fn greedy() -> Expr {
    e(ExprKind::If(
        Box::new(name("c")),
        Box::new(name("P")),
        Box::new(name("Q")),
    ))
}

#[test]
fn every_operator_inside_every_operator_prints_as_it_parses() {
    for outer in ALL {
        for inner in ALL {
            for position in 0..2 {
                let Some(operand) = apply(inner, || name("P")) else {
                    continue;
                };
                let mut operands = [name("Q"), name("Q")];
                operands[position] = operand;
                let mut operands = operands.into_iter();
                if let Some(expr) = apply(outer, || operands.next().unwrap_or(name("Q"))) {
                    assert_round_trip(&expr).unwrap();
                }
            }
        }
        let mut operands = [greedy(), name("Q")].into_iter();
        if let Some(expr) = apply(outer, || operands.next().unwrap_or(name("Q"))) {
            assert_round_trip(&expr).unwrap();
        }
    }
}

#[test]
fn every_pattern_operator_inside_every_other_prints_as_it_parses() {
    let pattern = |kind| Pattern {
        kind,
        span: Span::default(),
    };
    let x = || pattern(PatternKind::Name(Name::simple("x", Span::default())));
    let apply = |op: Operator, l: Pattern, r: Pattern| {
        let (l, r) = (Box::new(l), Box::new(r));
        pattern(match op {
            Operator::Dot => PatternKind::Dot(l, r),
            Operator::Concat => PatternKind::Concat(l, r),
            _ => PatternKind::DoubleAt(l, r),
        })
    };
    let operators = [Operator::Dot, Operator::Concat, Operator::DoubleAt];
    for outer in operators {
        for inner in operators {
            let nested = || apply(inner, x(), x());
            for p in [apply(outer, nested(), x()), apply(outer, x(), nested())] {
                let lambda = e(ExprKind::Lambda(thin_vec![p], Box::new(name("x"))));
                assert_round_trip(&lambda).unwrap();
            }
        }
    }
}

/// Expressions of the table's operators nested to any depth.
fn nested() -> impl Strategy<Value = Expr> {
    let leaf = prop_oneof![
        prop::sample::select(&["P", "Q", "x"][..]).prop_map(name),
        Just(greedy()),
    ];
    // `@@` belongs to patterns.
    let operators: Vec<Operator> = ALL
        .into_iter()
        .filter(|&op| op != Operator::DoubleAt)
        .collect();
    leaf.prop_recursive(4, 32, 2, move |inner| {
        let operators = prop::sample::select(operators.clone());
        (operators, prop::collection::vec(inner, 2)).prop_map(|(op, operands)| {
            let mut operands = operands.into_iter();
            apply(op, || operands.next().expect("two operands")).expect("an expression")
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn nested_operators_print_as_they_parse(expr in nested()) {
        assert_round_trip(&expr)?;
    }
}
