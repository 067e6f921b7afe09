//! Properties of the type checker on generated expressions: each is
//! built to have a known type (numbers, booleans, sequences and sets of
//! numbers, pairs), out of arithmetic, comparisons, `if`, `let`,
//! lambdas, comprehensions, ranges and the built-ins; the checker must
//! infer exactly that type, and evaluation must then succeed (the
//! generator uses no partial function, so a run-time error would be a
//! type error the checker missed).
//!
//! Mutants of real scripts are in `tests/fuzz.rs`: each type-checks or
//! gets a diagnostic, never a panic.

use proptest::prelude::*;
use symcsp::eval::Evaluator;
use symcsp::types::Expect;

/// The types the generator builds expressions of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    Int,
    Bool,
    SeqInt,
    SetInt,
    Pair,
}

impl Shape {
    /// The type as FDR writes it.
    fn written(self) -> &'static str {
        match self {
            Shape::Int => "Int",
            Shape::Bool => "Bool",
            Shape::SeqInt => "<Int>",
            Shape::SetInt => "{Int}",
            Shape::Pair => "(Int, Bool)",
        }
    }
}

fn shape() -> impl Strategy<Value = Shape> {
    prop::sample::select(vec![
        Shape::Int,
        Shape::Bool,
        Shape::SeqInt,
        Shape::SetInt,
        Shape::Pair,
    ])
}

/// An expression of type `shape`, nested at most `depth` deep.
fn expr(shape: Shape, depth: u32) -> BoxedStrategy<String> {
    let leaf: BoxedStrategy<String> = match shape {
        Shape::Int => (-20i64..20)
            .prop_map(|n| {
                if n < 0 {
                    format!("({n})")
                } else {
                    n.to_string()
                }
            })
            .boxed(),
        Shape::Bool => prop::bool::ANY.prop_map(|b| b.to_string()).boxed(),
        Shape::SeqInt => (0i64..5, 0i64..5)
            .prop_map(|(a, b)| format!("<{a}, {b}>"))
            .boxed(),
        Shape::SetInt => (0i64..5)
            .prop_map(|a| format!("{{{a}..{}}}", a + 3))
            .boxed(),
        Shape::Pair => (0i64..5, prop::bool::ANY)
            .prop_map(|(a, b)| format!("({a}, {b})"))
            .boxed(),
    };
    if depth == 0 {
        return leaf;
    }
    let sub = |s: Shape| expr(s, depth - 1);
    let composite: BoxedStrategy<String> = match shape {
        Shape::Int => prop_oneof![
            (sub(Shape::Int), sub(Shape::Int)).prop_map(|(a, b)| format!("({a} + {b})")),
            (sub(Shape::Int), sub(Shape::Int)).prop_map(|(a, b)| format!("({a} - {b})")),
            sub(Shape::SeqInt).prop_map(|s| format!("#({s})")),
            sub(Shape::SetInt).prop_map(|s| format!("card({s})")),
            (sub(Shape::Bool), sub(Shape::Int), sub(Shape::Int))
                .prop_map(|(c, a, b)| format!("(if {c} then {a} else {b})")),
            (sub(Shape::Int), sub(Shape::Int))
                .prop_map(|(a, b)| format!("(let v = {a} within v + {b})")),
            (sub(Shape::Int), sub(Shape::Int)).prop_map(|(a, b)| format!("(\\ v @ v - {a})({b})")),
            (sub(Shape::Int), sub(Shape::SeqInt)).prop_map(|(a, s)| format!("head(<{a}>^{s})")),
            sub(Shape::Pair).prop_map(|p| format!("(\\ (p, q) @ p)({p})")),
            (sub(Shape::Int), sub(Shape::Int))
                .prop_map(|(a, b)| format!("(let f(x) = x + {a} within f({b}))")),
        ]
        .boxed(),
        Shape::Bool => prop_oneof![
            (sub(Shape::Int), sub(Shape::Int)).prop_map(|(a, b)| format!("({a} < {b})")),
            (sub(Shape::Int), sub(Shape::Int)).prop_map(|(a, b)| format!("({a} == {b})")),
            (sub(Shape::Bool), sub(Shape::Bool)).prop_map(|(a, b)| format!("({a} and {b})")),
            (sub(Shape::Bool), sub(Shape::Bool)).prop_map(|(a, b)| format!("({a} or {b})")),
            sub(Shape::Bool).prop_map(|b| format!("(not {b})")),
            (sub(Shape::Int), sub(Shape::SetInt)).prop_map(|(a, s)| format!("member({a}, {s})")),
            (sub(Shape::Int), sub(Shape::SeqInt)).prop_map(|(a, s)| format!("elem({a}, {s})")),
            sub(Shape::SeqInt).prop_map(|s| format!("null({s})")),
            sub(Shape::SetInt).prop_map(|s| format!("empty({s})")),
            (sub(Shape::SetInt), sub(Shape::SetInt)).prop_map(|(a, b)| format!("({a} <= {b})")),
            (sub(Shape::SeqInt), sub(Shape::SeqInt)).prop_map(|(a, b)| format!("({a} == {b})")),
            sub(Shape::Pair).prop_map(|p| format!("(\\ (p, q) @ q)({p})")),
        ]
        .boxed(),
        Shape::SeqInt => prop_oneof![
            (sub(Shape::SeqInt), sub(Shape::SeqInt)).prop_map(|(a, b)| format!("({a} ^ {b})")),
            (sub(Shape::Int), sub(Shape::Int)).prop_map(|(a, b)| format!("<{a}, {b}>")),
            sub(Shape::SeqInt).prop_map(|s| format!("<v * 2 | v <- {s}>")),
            (sub(Shape::SeqInt), sub(Shape::Bool))
                .prop_map(|(s, b)| format!("<v | v <- {s}, {b}>")),
            (sub(Shape::Int), sub(Shape::SeqInt)).prop_map(|(a, s)| format!("tail(<{a}>^{s})")),
            sub(Shape::SetInt).prop_map(|s| format!("seq({s})")),
            (0i64..4, 0i64..4).prop_map(|(a, b)| format!("<{a}..{}>", a + b)),
            (sub(Shape::SeqInt), sub(Shape::SeqInt))
                .prop_map(|(a, b)| format!("concat(<{a}, {b}>)")),
        ]
        .boxed(),
        Shape::SetInt => prop_oneof![
            (sub(Shape::SetInt), sub(Shape::SetInt)).prop_map(|(a, b)| format!("union({a}, {b})")),
            (sub(Shape::SetInt), sub(Shape::SetInt)).prop_map(|(a, b)| format!("inter({a}, {b})")),
            (sub(Shape::SetInt), sub(Shape::SetInt)).prop_map(|(a, b)| format!("diff({a}, {b})")),
            (sub(Shape::Int), sub(Shape::Int)).prop_map(|(a, b)| format!("{{{a}, {b}}}")),
            sub(Shape::SeqInt).prop_map(|s| format!("set({s})")),
            sub(Shape::SetInt).prop_map(|s| format!("{{v + 1 | v <- {s}}}")),
            (sub(Shape::SetInt), sub(Shape::SetInt))
                .prop_map(|(a, b)| format!("Union({{{a}, {b}}})")),
        ]
        .boxed(),
        Shape::Pair => (sub(Shape::Int), sub(Shape::Bool))
            .prop_map(|(a, b)| format!("({a}, {b})"))
            .boxed(),
    };
    prop_oneof![1 => leaf, 3 => composite].boxed()
}

fn typed_expr() -> impl Strategy<Value = (Shape, String)> {
    shape().prop_flat_map(|s| (Just(s), expr(s, 3)))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn a_generated_expression_has_its_type_and_evaluates((shape, text) in typed_expr()) {
        let mut loaded = symcsp::types::load_str("properties.csp", "-- generated\n")
            .expect("loads");
        let func = loaded.script.add_expr("<expression>", &text).expect("resolves");
        let ty = loaded
            .types
            .check_added(&loaded.script, func, Expect::Any)
            .unwrap_or_else(|d| panic!("{text}: {d:?}"));
        prop_assert_eq!(ty.as_str(), shape.written(), "{}", text);
        let script = &loaded.script;
        let value = symcsp::stack::with_large_stack(|| {
            Evaluator::new(script)
                .eval_constant(func)
                .map_err(|e| e.to_diagnostic().render(&script.sources))
        });
        prop_assert!(value.is_ok(), "{}: {:?}", text, value.err());
    }

    /// Two expressions of different shapes never unify: putting them in
    /// one sequence is a type error (a diagnostic, never a panic).
    #[test]
    fn mixing_two_shapes_is_a_type_error(
        (a, left) in typed_expr(),
        (b, right) in typed_expr(),
    ) {
        prop_assume!(a != b);
        let mut loaded = symcsp::types::load_str("properties.csp", "-- generated\n")
            .expect("loads");
        let text = format!("<{left}, {right}>");
        let func = loaded.script.add_expr("<expression>", &text).expect("resolves");
        let errors = loaded
            .types
            .check_added(&loaded.script, func, Expect::Any)
            .expect_err("mixed shapes");
        prop_assert!(errors.iter().any(|d| d.message.starts_with("Couldn't match")), "{:?}", errors);
    }
}
