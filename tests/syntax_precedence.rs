//! Binding strengths and layout, checked against FDR's rules: each
//! expression must parse to the same tree as its fully bracketed form.

use symcsp::syntax::ast::{ExprKind, FieldKind};
use symcsp::syntax::{parse_decls, parse_expr};

#[track_caller]
fn same(text: &str, bracketed: &str) {
    let a = parse_expr(0, text).unwrap_or_else(|e| panic!("{text}: {e:?}"));
    let b = parse_expr(0, bracketed).unwrap_or_else(|e| panic!("{bracketed}: {e:?}"));
    assert_eq!(
        a, b,
        "`{text}` should mean `{bracketed}`, printed back as `{a}`"
    );
}

#[test]
fn prefix_binds_tighter_than_every_binary_process_operator() {
    same("a -> P [] b -> Q", "(a -> P) [] (b -> Q)");
    same("a -> P ; Q", "(a -> P) ; Q");
    same("a -> P |~| b -> Q", "(a -> P) |~| (b -> Q)");
    same("a -> b -> P", "a -> (b -> P)");
    same("b & a -> P [] Q", "(b & (a -> P)) [] Q");
    same("a -> b & P", "a -> (b & P)");
}

#[test]
fn process_operators_follow_fdr_table() {
    same("P ||| Q \\ A", "(P ||| Q) \\ A");
    same("P [| A |] Q ; R", "P [| A |] (Q ; R)");
    same("P ; Q [> R", "(P ; Q) [> R");
    same("P [> Q /\\ R", "(P [> Q) /\\ R");
    same("P /\\ Q [] R", "(P /\\ Q) [] R");
    same("P [] Q |~| R", "(P [] Q) |~| R");
    same("P |~| Q [| A |] R", "(P |~| Q) [| A |] R");
    same("P [| A |] Q ||| R", "(P [| A |] Q) ||| R");
    same("P [ A || B ] Q ||| R", "(P [A || B] Q) ||| R");
    same("P [ a <-> b ] Q ||| R", "(P [a <-> b] Q) ||| R");
    same("P [| A |> Q ||| R", "(P [| A |> Q) ||| R");
    same("P [+ A +] Q |~| R", "(P [+ A +] Q) |~| R");
    same("P /+ A +\\ Q [] R", "(P /+ A +\\ Q) [] R");
}

/// FDR's one context-dependent rule: hiding binds loosest (`P ||| Q \ A`
/// hides in both), yet `P \ A ||| Q` is `(P \ A) ||| Q`: a hidden set that
/// is a process operator written without brackets gives its first operand
/// to the hiding (libcspm's `transformHideProject`; linked parallel is not
/// among the operators, as there).
#[test]
fn hiding_before_a_process_operator_hides_only_its_first_operand() {
    for op in [
        "|||", "[]", "|~|", "/\\", "[>", ";", "[| B |]", "[B || C]", "[| B |>", "[+ B +]",
        "/+ B +\\",
    ] {
        same(&format!("P \\ A {op} Q"), &format!("(P \\ A) {op} Q"));
    }
    same("P |\\ A ||| Q", "(P |\\ A) ||| Q");
    same("P \\ A [] B ||| Q", "((P \\ A) [] B) ||| Q");
    same("P \\ (A) ||| Q", "(P \\ A) ||| Q");
    same("P \\ A [a <-> b] Q", "P \\ (A [a <-> b] Q)");
    same("P ||| Q \\ A ||| R", "((P ||| Q) \\ A) ||| R");
    // Brackets say what is hidden.
    let bracketed = parse_expr(0, "P \\ (A ||| Q)").unwrap();
    let ExprKind::Hide(_, set) = &bracketed.kind else {
        panic!("a hiding: {bracketed}");
    };
    assert!(matches!(set.kind, ExprKind::Process(..)), "{bracketed}");
}

#[test]
fn binary_process_operators_associate_to_the_left() {
    same("P [] Q [] R", "(P [] Q) [] R");
    same("P ; Q ; R", "(P ; Q) ; R");
    same("P \\ A \\ B", "(P \\ A) \\ B");
    same("P [| A |] Q [| B |] R", "(P [| A |] Q) [| B |] R");
    same("P [A || B] Q [C || D] R", "(P [A || B] Q) [C || D] R");
}

#[test]
fn renaming_and_application_bind_tightest() {
    same("a -> P [[a <- b]]", "a -> (P [[a <- b]])");
    same("P [[a <- b]] [] Q", "(P [[a <- b]]) [] Q");
    same("f(x)(y) ||| Q", "((f(x))(y)) ||| Q");
    same("-f(x)", "-(f(x))");
}

#[test]
fn greedy_constructs_extend_to_the_right() {
    same("if b then P else Q [] R", "if b then P else (Q [] R)");
    same("let X = P within X [] Q", "let X = P within (X [] Q)");
    same("\\ x @ x + 1", "\\ x @ (x + 1)");
    same("[] x : S @ P [] Q", "[] x : S @ (P [] Q)");
    same(
        "|| x : S @ [A(x)] P(x) ||| Q",
        "|| x : S @ [A(x)] (P(x) ||| Q)",
    );
    same(
        "P [] if b then Q else R ; S",
        "P [] (if b then Q else (R ; S))",
    );
}

#[test]
fn functional_operators_follow_fdr_table() {
    same("1 + 2 * 3", "1 + (2 * 3)");
    same("1 - 2 - 3", "(1 - 2) - 3");
    same("6 / 3 % 2", "(6 / 3) % 2");
    same("c.x + 1", "c.(x + 1)");
    same("a.b.c", "a.(b.c)");
    same("c.x == c.y", "c.((x == c).y)");
    same("not a and b", "(not a) and b");
    same("a or b and c", "a or (b and c)");
    same("not a == b", "not (a == b)");
    same("#s + 1", "(#s) + 1");
    same("#s ^ t", "#(s ^ t)");
    same("- x * y", "(-x) * y");
    same("x == 1 & P", "(x == 1) & P");
    same("x < y and y <= z", "(x < y) and (y <= z)");
}

#[test]
fn communication_fields_belong_to_the_prefix() {
    let e = parse_expr(0, "c.1?x:S!y$z -> P").unwrap();
    let ExprKind::Prefix(event, fields, _) = &e.kind else {
        panic!("not a prefix: {e}");
    };
    assert_eq!(event.to_string(), "c.1");
    let kinds: Vec<&str> = fields
        .iter()
        .map(|f| match &f.kind {
            FieldKind::Input(_, Some(_)) => "restricted input",
            FieldKind::Input(_, None) => "input",
            FieldKind::Output(_) => "output",
            FieldKind::NondetInput(..) => "nondeterministic input",
        })
        .collect();
    assert_eq!(
        kinds,
        ["restricted input", "output", "nondeterministic input"]
    );
    same("c?x.y -> P", "c?x.y -> P");
    assert_eq!(
        parse_expr(0, "c!x + 1 -> P").unwrap().to_string(),
        "c!x + 1 -> P"
    );
}

#[test]
fn inside_a_sequence_a_bare_greater_than_closes_it() {
    assert!(parse_expr(0, "<1 > 2>").is_err());
    same("<(1 > 2)>", "<(1 > 2)>");
    same("<1 >= 2>", "<(1 >= 2)>");
    same("<x | x <- s, (x > 1)>", "<x | x <- s, (x > 1)>");
    // The printer brackets such comparisons so that they survive.
    let e = parse_expr(0, "<(a > b), c>").unwrap();
    assert_eq!(e.to_string(), "<(a > b), c>");
    assert_eq!(parse_expr(0, &e.to_string()).unwrap(), e);
}

#[test]
fn newlines_end_declarations_except_next_to_operators() {
    let count = |text: &str| parse_decls(0, text).map(|d| d.len());
    assert_eq!(count("P = a\n  -> STOP\n"), Ok(1));
    assert_eq!(count("P = a ->\n  STOP\n"), Ok(1));
    assert_eq!(count("P = a -> STOP\n[] b -> STOP\n"), Ok(1));
    assert_eq!(count("x = (1,\n 2\n)\n"), Ok(1));
    assert_eq!(count("x = 1\ny = 2\n"), Ok(2));
    // `-` may start an expression, so it does not join lines before it.
    assert!(count("x = 1\n- 2\n").is_err());
    // `f (x)` over two lines is not an application.
    assert!(count("x = f\n(1)\n").is_err());
}

#[test]
fn comments_nest_and_end_lines() {
    same("1 {- a {- nested -} comment -} + 2", "1 + 2");
    assert_eq!(
        parse_decls(0, "x = 1 -- the rest is a comment ( [ {\n").map(|d| d.len()),
        Ok(1)
    );
}
