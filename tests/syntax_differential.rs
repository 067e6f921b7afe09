//! The fast parser against pest's, the reference: wherever the fast one
//! returns a tree, it must be exactly the tree pest's parse builds, spans
//! included; and on ordinary scripts it must not leave the work to pest.

use std::path::Path;

use proptest::prelude::*;
use symcsp::syntax::differential::{fast_decls, fast_expr, reference_decls, reference_expr};
use symcsp::syntax::parse_decls;

/// Spans take no part in `==`; the debug form shows every one.
fn same<T: std::fmt::Debug>(a: &T, b: &T) -> bool {
    format!("{a:?}") == format!("{b:?}")
}

/// The fast parser either declines `text` or agrees with pest.
fn check_decls(name: &str, text: &str) -> bool {
    let Some(fast) = fast_decls(0, text) else {
        return false;
    };
    match reference_decls(0, text) {
        Ok(reference) => assert!(
            same(&fast, &reference),
            "{name}: the fast parser's tree differs from pest's\nfast: {fast:#?}\npest: {reference:#?}"
        ),
        Err(d) => panic!("{name}: the fast parser accepted a text pest rejects: {d:?}"),
    }
    true
}

/// The parse symcsp uses, the fast parser with pest reading the stretches
/// it declines, gives pest's tree wherever pest parses the whole text and
/// fails wherever pest fails (and where a `{-` is never closed).
fn check_mixed(name: &str, text: &str) {
    match (parse_decls(0, text), reference_decls(0, text)) {
        (Ok(mixed), Ok(reference)) => assert!(
            same(&mixed, &reference),
            "{name}: the mixed parse's tree differs from pest's\nmixed: {mixed:#?}\npest: {reference:#?}"
        ),
        (Ok(_), Err(d)) => panic!("{name}: the mixed parse accepted a text pest rejects: {d:?}"),
        // A `{-` never closed is a comment left open to FDR's lexer, and
        // to symcsp's; pest's grammar reads it as `{` and `-` instead.
        (Err(d), Ok(_))
            if d.iter()
                .all(|d| d.message.starts_with("unterminated comment")) => {}
        (Err(d), Ok(_)) => panic!("{name}: the mixed parse rejected a text pest accepts: {d:?}"),
        (Err(_), Err(_)) => {}
    }
}

fn check_expr(text: &str) -> bool {
    let Some(fast) = fast_expr(0, text) else {
        return false;
    };
    match reference_expr(0, text) {
        Ok(reference) => assert!(
            same(&fast, &reference),
            "`{text}`: the fast parser's tree differs from pest's\nfast: {fast:#?}\npest: {reference:#?}"
        ),
        Err(d) => panic!("`{text}`: the fast parser accepted an expression pest rejects: {d:?}"),
    }
    true
}

fn scripts_in(dir: &str) -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut scripts: Vec<(String, String)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "csp"))
        .map(|p| {
            let bytes = std::fs::read(&p).expect("a readable script");
            let text = String::from_utf8_lossy(&bytes).into_owned();
            (p.display().to_string(), text)
        })
        .collect();
    scripts.sort();
    scripts
}

/// Fixtures written to hold FDR's rarer forms (`:[has trace]` with a
/// model, options with modes, type annotations with classes), which the
/// fast parser leaves to pest.
const RARE_FORMS: &[&str] = &["fdr_syntax.csp"];

#[test]
fn every_model_and_valid_fixture_takes_the_fast_path_to_pest_s_tree() {
    let mut checked = 0;
    for dir in [
        "models",
        "models/paper",
        "benches/models",
        "tests/fixtures/valid",
        "tests/fixtures/eval",
        "tests/fixtures/check",
        "tests/fixtures/tui",
        "tests/fixtures/eval_errors",
        "tests/fixtures/budgets",
    ] {
        for (name, text) in scripts_in(dir) {
            check_mixed(&name, &text);
            let taken = check_decls(&name, &text);
            let valid = reference_decls(0, &text).is_ok();
            let rare = RARE_FORMS.iter().any(|rare| name.ends_with(rare));
            assert_eq!(
                taken,
                valid && !rare,
                "{name}: the fast parser {} it",
                if taken { "took" } else { "declined" }
            );
            checked += 1;
        }
    }
    assert!(checked >= 25, "only {checked} scripts found");
}

#[test]
fn the_fast_parser_accepts_no_invalid_fixture() {
    // Some invalid fixtures are valid text whose error lies elsewhere (in
    // an included file); the rest must all be left to pest.
    for (name, text) in scripts_in("tests/fixtures/invalid") {
        check_mixed(&name, &text);
        check_decls(&name, &text);
    }
}

/// Found by the properties below: blanks or a comment after the names
/// of `external` or `transparent` are inside pest's span after one name,
/// outside it after several.
#[test]
fn names_declarations_end_where_pest_s_do() {
    for text in [
        "transparent normal, diamond, s--bisim\nP = STOP\n",
        "external chase, s {- x -}\nP = STOP\n",
        "transparent normal, s  \n\nP = STOP\n",
        "external P  \nQ = STOP\n",
        "transparent P -- c",
        "P = let transparent normal  \n  Q = STOP  \n within Q\n",
        "P = let external chase -- c\n  Q = STOP\n within Q\n",
        "P = let external a, b  -- c\n  Q = STOP\n within Q\n",
    ] {
        assert!(check_decls(text, text), "the fast parser takes `{text}`");
        check_mixed(text, text);
    }
}

#[test]
fn expressions_agree_on_binding_strengths() {
    for text in [
        "a -> P [] b -> Q",
        "P ||| Q \\ A",
        "P [| A |] Q ; R",
        "c?x!y.z$w:S -> P |~| Q [> R /\\ S",
        "not a and b or c == d + -e * #f ^ g",
        "f(x)(y) [[ a <- b, c.x <- d.x | x <- S ]] |\\ A",
        "P [ A || B ] Q [ a <-> b | a <- S ] R [+ X +] T /+ Y +\\ U [| Z |> V",
        "if a then b else c + 1",
        "let f(x) = x\n    g = 2\nwithin f(g)",
        "\\ x, (y, _) @ x + y",
        "<x | x <- <1..10>, x < 2, (x > 1)> ^ <a, b> ^ <> ^ <1..>",
        "{| c.x | x <- {0..3} |} == {(1, 2), (| 1 => 2 |)}",
        "[] x : S @ |~| y : T @ ||| z : U @ ; w : <1, 2> @ || v : V @ [A(v)] P(v)",
        "[| A |] x : S @ [+ B +] y : T @ [ a <-> b ] z : <1> @ P",
        "b & c?x -> P",
        "x\n  [] y",
        "<(a > b), a >= b>",
    ] {
        assert!(check_expr(text), "the fast parser declined `{text}`");
    }
}

#[test]
fn a_drawn_arrow_before_a_minus_is_read_alike() {
    // Found by the mutation property: the comment scanner once took the
    // `--` of `<--` for a comment, so the mixed parse saw `{|` unclosed
    // where pest reads `x <- -{0..2}`.
    let text = "p = {| c.x | x <-- {0..2}, x > 0 |}\nm = (| |)\n";
    check_mixed("drawn arrow", text);
    assert!(parse_decls(0, text).is_ok());
    let valid = include_str!("fixtures/valid/functional.csp");
    check_mixed("drawn arrow", &valid.replace("x <- {0..2}", "x <-- {0..2}"));
}

/// Type annotations with FDR's yield types (`Int => Event`, `a =>*
/// Event`: channels' and constructors' types) take the fast path too,
/// beside maps, whose `=>` is their own.
#[test]
fn yield_types_take_the_fast_path() {
    for text in [
        "c :: Int => Bool => Event\nchannel c : Int.Bool\n",
        "f :: (Eq a, Ord a) => (a => b, a =>* b) -> a\nf(x, y) = x\n",
        "g :: (|Int => Bool|) -> (|a.b => <a>|)\ng(m) = m\n",
        "h :: a =>* b => c\nh = d\n",
        "k :: a.b -> c.d \nk = 1\n",
    ] {
        assert!(check_decls("yield", text), "{text}");
    }

    // `=> *` apart is no operator: pest refuses it, the fast path too.
    assert!(!check_decls("apart", "f :: a => * b\nf = c\n"));
    check_mixed("apart", "f :: a => * b\nf = c\n");
}

/// Found by the mutations: a module's or an instance's name stays on
/// its keyword's line, in pest's grammar, so in the fast parser too.
#[test]
fn a_module_s_name_is_on_its_keyword_s_line() {
    for text in ["module\n M\nendmodule\n", "instance\n I = M\n"] {
        assert!(!check_decls("name apart", text), "{text}");
        check_mixed("name apart", text);
    }
    assert!(check_decls(
        "one line",
        "module M\nendmodule\ninstance I = M\n"
    ));
}

/// Found on a public script (FDR's checker accepts it): a replicated
/// alphabetised parallel's process may start on the line after its
/// alphabet, in pest's grammar as in the fast parser.
#[test]
fn a_replicated_parallel_s_process_may_start_on_a_new_line() {
    for text in [
        "S = || i : {0, 1} @ [{a.i}]\n    (P(i))\n",
        "S = || i : {0, 1} @ [{a.i}] P(i)\n",
    ] {
        assert!(reference_decls(0, text).is_ok(), "{text}");
        assert!(check_decls("line break", text), "{text}");
        check_mixed("line break", text);
    }
}

// ---------------------------------------------------------------- random texts

const FRAGMENTS: &[&str] = &[
    "P",
    "Q",
    "x",
    "c",
    "f",
    "0",
    "1",
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
    "]]",
    "||",
    "<->",
    "[[",
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
    "^",
    "#",
    ",",
    "_",
    "'a'",
    "\"s\"",
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
    "nametype",
    "assert",
    "[T=",
    ":[deadlock free]",
    ":[has trace]:",
    ":[symmetry reduce]",
    "[F]",
    "print",
    "external",
    "include",
    "STOP",
    "\n",
    "\n",
    " ",
    " ",
    "--",
    "{-",
    "-}",
    "::",
    "=>",
    "[+",
    "+]",
    "/+",
    "+\\",
    "/\\",
    "[>",
    "|\\",
    "module",
    "exports",
    "endmodule",
    "instance",
    "Timed",
    "M::x",
    "::",
    "=>*",
    "Int",
];

const VALID: &[&str] = &[
    include_str!("fixtures/valid/processes.csp"),
    include_str!("fixtures/valid/functional.csp"),
    include_str!("fixtures/valid/assertions.csp"),
    include_str!("fixtures/valid/declarations.csp"),
    include_str!("fixtures/valid/layout.csp"),
    include_str!("fixtures/valid/precedence.csp"),
    include_str!("fixtures/valid/modules.csp"),
    include_str!("fixtures/valid/fdr_syntax.csp"),
    include_str!("fixtures/eval/fdr_front_end.csp"),
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn random_fragments_never_make_the_parsers_disagree(
        parts in prop::collection::vec(prop::sample::select(FRAGMENTS), 0..40)
    ) {
        check_decls("random", &parts.join(" "));
        check_decls("random", &parts.concat());
        check_mixed("random", &parts.join(" "));
        check_mixed("random", &parts.join("\n"));
        check_expr(&parts.join(" "));
    }

    #[test]
    fn mutated_scripts_never_make_the_parsers_disagree(
        which in 0..VALID.len(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<bool>(), prop::sample::select(FRAGMENTS)), 1..4),
    ) {
        let mut text = VALID[which].to_string();
        for (at, insert, fragment) in edits {
            let boundary = |mut i: usize, text: &str| {
                while !text.is_char_boundary(i) {
                    i -= 1;
                }
                i
            };
            let pos = boundary(at.index(text.len() + 1), &text);
            if insert {
                text.insert_str(pos, fragment);
            } else {
                let end = boundary((pos + 5).min(text.len()), &text);
                text.replace_range(pos..end, "");
            }
        }
        check_decls("mutated", &text);
        check_mixed("mutated", &text);
    }
}
