//! Property tests of the front end: no input makes it panic or hang, every
//! diagnostic points inside the text, and every tree the printer writes
//! parses back to itself.

use proptest::prelude::*;
use symcsp::syntax::ast::*;
use symcsp::syntax::differential::pest_calls;
use symcsp::syntax::{Span, load_str, parse_expr};
use thin_vec::thin_vec;

// ---------------------------------------------------------------- robustness

/// Pieces of CSPM, broken and whole, from which random scripts are built.
const FRAGMENTS: &[&str] = &[
    "P",
    "Q",
    "x",
    "c",
    "f",
    "0",
    "1",
    "42",
    "=",
    "==",
    "->",
    "[]",
    "|~|",
    "|||",
    ";",
    "\\",
    "[|",
    "|]",
    "|>",
    "[",
    "]",
    "||",
    "<->",
    "[[",
    "]]",
    "<-",
    "(",
    ")",
    "{",
    "}",
    "{|",
    "|}",
    "(|",
    "|)",
    "<",
    ">",
    "<>",
    "..",
    ".",
    "?",
    "!",
    "$",
    ":",
    "@",
    "@@",
    "&",
    "+",
    "-",
    "*",
    "/",
    "%",
    "^",
    "#",
    ",",
    "_",
    "'a'",
    "\"s\"",
    "\"",
    "'",
    "--",
    "{-",
    "-}",
    "if",
    "then",
    "else",
    "let",
    "within",
    "not",
    "and",
    "or",
    "true",
    "channel",
    "datatype",
    "subtype",
    "nametype",
    "assert",
    "not",
    "[T=",
    "[FD=",
    ":[deadlock free]",
    ":[has trace]:",
    ":[symmetry reduce]",
    ":[symmetric]:",
    "module",
    "exports",
    "endmodule",
    "instance",
    "Timed",
    "print",
    "external",
    "transparent",
    "include",
    "STOP",
    "SKIP",
    "\n",
    "\n",
    " ",
    " ",
    "\t",
    "λ",
    "→",
    "\r\n",
    "[+",
    "+]",
    "/+",
    "+\\",
    "|\\",
    "/\\",
    "[>",
    "::",
];

fn check_diagnostics_point_inside(text: &str) {
    if let Err(error) = load_str("random.csp", text) {
        assert!(!error.diagnostics.is_empty());
        for d in &error.diagnostics {
            let span = d.span.expect("syntax errors have a place");
            let file = error.sources.file(error.sources.file_of(span));
            assert!(
                file.base <= span.start
                    && span.start <= span.end
                    && (span.end - file.base) as usize <= file.text.len(),
                "{d:?}"
            );
            // Rendering must work too (it computes lines and columns).
            let rendered = d.render(&error.sources);
            assert!(rendered.contains("-->"), "{rendered}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn random_fragments_never_panic(parts in prop::collection::vec(prop::sample::select(FRAGMENTS), 0..60)) {
        let text = parts.join(" ");
        check_diagnostics_point_inside(&text);
        check_diagnostics_point_inside(&parts.concat());
    }

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,200}") {
        check_diagnostics_point_inside(&text);
    }

    #[test]
    fn mutated_scripts_never_panic(
        which in 0..VALID.len(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), 0..4usize, prop::sample::select(FRAGMENTS)), 1..6),
    ) {
        let mut text = VALID[which].to_string();
        for (at, kind, fragment) in edits {
            let mut pos = at.index(text.len() + 1);
            while !text.is_char_boundary(pos) {
                pos -= 1;
            }
            match kind {
                0 => text.insert_str(pos, fragment),
                1 => {
                    let mut end = (pos + 7).min(text.len());
                    while !text.is_char_boundary(end) {
                        end -= 1;
                    }
                    text.replace_range(pos..end, "");
                }
                2 => text.replace_range(pos..pos, &fragment.repeat(3)),
                _ => {
                    let mut end = (pos + 40).min(text.len());
                    while !text.is_char_boundary(end) {
                        end -= 1;
                    }
                    let copy = text[pos..end].to_string();
                    text.insert_str(pos, &copy);
                }
            }
        }
        check_diagnostics_point_inside(&text);
    }
}

// ---------------------------------------------------------------- parsing work

/// Constructs that open a nesting level, each with what closes it: an
/// expression is built from a random stack of them, then broken. Each
/// ends with a space, so that two never make a token together (`{-`
/// would open a comment).
const OPENERS: &[(&str, &str)] = &[
    ("if true then ", " else 0"),
    ("let x = 1 within ", ""),
    ("( ", ")"),
    ("{ ", "}"),
    ("< ", ">"),
    ("{| ", " |}"),
    ("(| 1 => ", " |)"),
    ("\\ x @ ", ""),
    ("[] x : S @ ", ""),
    ("|| x : S @ [A] ", ""),
    ("c?x -> ", ""),
    ("c!1 -> ", ""),
    ("g & ", ""),
    ("not ", ""),
    ("- ", ""),
    ("# ", ""),
    ("P [| A |] ", ""),
    ("P [ A || B ] ", ""),
    ("f(1, ", ")"),
    ("{x | x <- ", "}"),
    ("P [[ a <- ", " ]]"),
    ("if ", " then 1 else 2"),
    ("P [| ", " |] Q"),
    ("P [ ", " || B ] Q"),
    ("P /+ ", " +\\ Q"),
];

/// Ways to leave a nested expression broken, at its innermost point.
const BREAKS: &[&str] = &["", "1 2", "then", "else", ")", "@", "->", "=", ",", "1 +"];

/// A definition whose right-hand side nests `levels` (indices into
/// [`OPENERS`]) around a broken core, closing only those `close` says.
fn nested(levels: &[usize], core: &str, close: bool) -> String {
    let mut text = String::from("X = ");
    for &l in levels {
        text.push_str(OPENERS[l].0);
    }
    text.push_str("1 ");
    text.push_str(core);
    if close {
        for &l in levels.iter().rev() {
            text.push_str(OPENERS[l].1);
        }
    }
    text.push('\n');
    text
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Pest's work (rules entered, as when it explains an error) is
    /// linear in the text: at most a fixed number of calls per byte, and
    /// doubling the nesting at most doubles it (plus a constant). A
    /// grammar that retries a nested construct after it fails inside
    /// would double the work at every level instead.
    #[test]
    fn parsing_work_is_linear_in_nesting(
        levels in prop::collection::vec(0..OPENERS.len(), 1..24),
        core in prop::sample::select(BREAKS),
        close in any::<bool>(),
    ) {
        let once = nested(&levels, core, close);
        let twice_levels: Vec<usize> = levels.iter().chain(&levels).copied().collect();
        let twice = nested(&twice_levels, core, close);
        let (work_once, work_twice) = (pest_calls(&once), pest_calls(&twice));
        prop_assert!(
            work_twice <= 200 * twice.len() + 5_000,
            "{work_twice} calls for {} bytes: {twice}", twice.len()
        );
        prop_assert!(
            work_twice <= 2 * work_once + 2_000,
            "nesting doubled, work {work_once} -> {work_twice}: {once}"
        );
        // And the front end as a whole gives an answer for it.
        check_diagnostics_point_inside(&twice);
    }
}

const VALID: &[&str] = &[
    include_str!("fixtures/valid/processes.csp"),
    include_str!("fixtures/valid/functional.csp"),
    include_str!("fixtures/valid/assertions.csp"),
    include_str!("fixtures/valid/declarations.csp"),
    include_str!("fixtures/valid/layout.csp"),
    include_str!("fixtures/valid/modules.csp"),
];

// ---------------------------------------------------------------- round trip

fn e(kind: ExprKind) -> Expr {
    Expr {
        kind,
        span: Span::default(),
    }
}

fn name(n: &str) -> Name {
    Name::simple(n, Span::default())
}

fn pattern_name(n: &str) -> Pattern {
    Pattern {
        kind: PatternKind::Name(name(n)),
        span: Span::default(),
    }
}

fn leaf() -> impl Strategy<Value = Expr> {
    prop_oneof![
        (0i64..1000).prop_map(|i| e(ExprKind::Int(i))),
        prop::sample::select(&["a", "b", "P", "Q", "x", "S"][..])
            .prop_map(|n| e(ExprKind::Name(name(n)))),
        any::<bool>().prop_map(|b| e(ExprKind::Bool(b))),
        prop::sample::select(&['a', '\'', '\\', '\n', '"'][..]).prop_map(|c| e(ExprKind::Char(c))),
        "[a-z\"\\\\ ]{0,5}".prop_map(|s| e(ExprKind::String(s))),
        Just(e(ExprKind::Seq(thin_vec![]))),
        Just(e(ExprKind::Set(thin_vec![]))),
    ]
}

fn generator(inner: BoxedStrategy<Expr>) -> impl Strategy<Value = Stmt> {
    prop_oneof![
        (
            prop::sample::select(&["x", "y"][..]),
            any::<bool>(),
            inner.clone()
        )
            .prop_map(|(v, arrow, set)| Stmt {
                kind: StmtKind::Generator(
                    pattern_name(v),
                    if arrow {
                        GeneratorSep::Arrow
                    } else {
                        GeneratorSep::Colon
                    },
                    set
                ),
                span: Span::default(),
            }),
        inner.prop_map(|g| Stmt {
            kind: StmtKind::Guard(g),
            span: Span::default()
        }),
    ]
}

fn expression() -> impl Strategy<Value = Expr> {
    leaf().prop_recursive(5, 48, 3, |inner| {
        let boxed = inner.clone().boxed();
        let b = |x: Expr| Box::new(x);
        prop_oneof![
            (
                prop::sample::select(
                    &[
                        BinaryOp::Add,
                        BinaryOp::Sub,
                        BinaryOp::Mul,
                        BinaryOp::Div,
                        BinaryOp::Mod,
                        BinaryOp::Eq,
                        BinaryOp::Ne,
                        BinaryOp::Lt,
                        BinaryOp::Le,
                        BinaryOp::Gt,
                        BinaryOp::Ge,
                        BinaryOp::And,
                        BinaryOp::Or,
                        BinaryOp::Concat,
                    ][..]
                ),
                inner.clone(),
                inner.clone()
            )
                .prop_map(move |(op, l, r)| e(ExprKind::Binary(op, b(l), b(r)))),
            (
                prop::sample::select(&[UnaryOp::Neg, UnaryOp::Not, UnaryOp::Length][..]),
                inner.clone()
            )
                .prop_map(move |(op, x)| e(ExprKind::Unary(op, b(x)))),
            (inner.clone(), inner.clone()).prop_map(move |(l, r)| e(ExprKind::Dot(b(l), b(r)))),
            (inner.clone(), prop::collection::vec(inner.clone(), 0..3))
                .prop_map(move |(f, args)| e(ExprKind::App(b(f), args.into()))),
            prop::collection::vec(inner.clone(), 2..4).prop_map(|xs| e(ExprKind::Tuple(xs.into()))),
            prop::collection::vec(inner.clone(), 1..4).prop_map(|xs| e(ExprKind::Seq(xs.into()))),
            prop::collection::vec(inner.clone(), 1..4).prop_map(|xs| e(ExprKind::Set(xs.into()))),
            (inner.clone(), prop::option::of(inner.clone()))
                .prop_map(move |(a, z)| e(ExprKind::SetRange(b(a), z.map(Box::new), thin_vec![]))),
            (
                inner.clone(),
                prop::option::of(inner.clone()),
                prop::collection::vec(generator(boxed.clone()), 1..3)
            )
                .prop_map(move |(a, z, stmts)| {
                    e(ExprKind::SeqRange(b(a), z.map(Box::new), stmts.into()))
                }),
            (
                inner.clone(),
                prop::collection::vec(generator(boxed.clone()), 1..3)
            )
                .prop_map(|(x, stmts)| e(ExprKind::SeqComprehension(thin_vec![x], stmts.into()))),
            (inner.clone(), inner.clone(), inner.clone())
                .prop_map(move |(c, t, f)| e(ExprKind::If(b(c), b(t), b(f)))),
            inner
                .clone()
                .prop_map(move |body| e(ExprKind::Lambda(thin_vec![pattern_name("x")], b(body)))),
            (inner.clone(), inner.clone()).prop_map(move |(v, body)| e(ExprKind::Let(
                thin_vec![Decl {
                    kind: DeclKind::Definition(Definition {
                        lhs: Lhs::Name(Ident {
                            name: "v".into(),
                            span: Span::default()
                        }),
                        rhs: v,
                    }),
                    span: Span::default(),
                }],
                b(body),
            ))),
            (
                inner.clone(),
                prop::collection::vec(field(boxed.clone()), 0..3),
                inner.clone()
            )
                .prop_map(move |(ev, fields, p)| e(ExprKind::Prefix(
                    b(ev),
                    fields.into(),
                    b(p)
                ))),
            (inner.clone(), inner.clone()).prop_map(move |(g, p)| e(ExprKind::Guard(b(g), b(p)))),
            (
                prop::sample::select(
                    &[
                        ProcOp::ExternalChoice,
                        ProcOp::InternalChoice,
                        ProcOp::Interleave,
                        ProcOp::SequentialComposition,
                        ProcOp::Interrupt,
                        ProcOp::SlidingChoice,
                    ][..]
                ),
                inner.clone(),
                inner.clone()
            )
                .prop_map(move |(op, l, r)| e(ExprKind::Process(op, b(l), b(r)))),
            (inner.clone(), inner.clone()).prop_map(move |(p, a)| e(ExprKind::Hide(b(p), b(a)))),
            (inner.clone(), inner.clone(), inner.clone())
                .prop_map(move |(p, a, q)| e(ExprKind::GenParallel(b(p), b(a), b(q)))),
            (inner.clone(), inner.clone(), inner.clone(), inner.clone()).prop_map(
                move |(left, left_alphabet, right_alphabet, right)| e(ExprKind::AlphaParallel(
                    Box::new(AlphaParallel {
                        left,
                        left_alphabet,
                        right_alphabet,
                        right
                    })
                ))
            ),
            (inner.clone(), inner.clone(), inner.clone())
                .prop_map(move |(p, a, q)| e(ExprKind::Exception(b(p), b(a), b(q)))),
            (inner.clone(), inner.clone(), inner.clone()).prop_map(move |(p, x, y)| e(
                ExprKind::Rename(b(p), thin_vec![(x, y)], thin_vec![])
            )),
            inner
                .clone()
                .prop_map(move |p| e(ExprKind::Rename(b(p), thin_vec![], thin_vec![]))),
            Just(e(ExprKind::Production(thin_vec![], thin_vec![]))),
            (inner.clone(), inner.clone(), inner.clone(), inner.clone()).prop_map(
                move |(left, x, y, right)| e(ExprKind::LinkedParallel(Box::new(LinkedParallel {
                    left,
                    links: thin_vec![(x, y)],
                    stmts: thin_vec![],
                    right
                })))
            ),
            (
                prop::collection::vec(generator(boxed.clone()), 1..3),
                inner.clone()
            )
                .prop_map(move |(stmts, body)| e(ExprKind::Replicated(Box::new(
                    Replicated {
                        op: ReplicatedOp::ExternalChoice,
                        stmts: stmts.into(),
                        body
                    }
                )))),
            (
                prop::collection::vec(generator(boxed.clone()), 1..2),
                inner.clone(),
                inner.clone()
            )
                .prop_map(move |(stmts, alpha, body)| e(ExprKind::Replicated(
                    Box::new(Replicated {
                        op: ReplicatedOp::AlphaParallel(b(alpha)),
                        stmts: stmts.into(),
                        body
                    })
                ))),
        ]
    })
}

fn field(inner: BoxedStrategy<Expr>) -> impl Strategy<Value = Field> {
    prop_oneof![
        inner.clone().prop_map(|x| Field {
            kind: FieldKind::Output(x),
            span: Span::default()
        }),
        (
            prop::sample::select(&["x", "y"][..]),
            prop::option::of(inner)
        )
            .prop_map(|(v, set)| Field {
                kind: FieldKind::Input(pattern_name(v), set),
                span: Span::default()
            }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn printed_expressions_parse_back_to_themselves(expr in expression()) {
        let text = expr.to_string();
        let reparsed = parse_expr(0, &text);
        prop_assert!(reparsed.is_ok(), "`{}` does not parse: {:?}", text, reparsed);
        let reparsed = reparsed.unwrap();
        prop_assert_eq!(&reparsed, &expr, "`{}` came back as `{}`", text, reparsed);
    }
}
