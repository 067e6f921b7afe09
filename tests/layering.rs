//! The layering of `docs/architecture.md` ("Layering"), enforced: every
//! module under `src/` refers only to its own layer, the layers before
//! it and the utilities; and no files of a layer import each other in a
//! circle (a child using its parent's items is no circle). Reads the source tree and nothing else: each
//! file's `crate::x` paths (in `use` or anywhere in code, `crate::{..}`
//! groups included) and the `super::` chains that climb to the crate's
//! root, with comments and literals left out.

use std::path::{Path, PathBuf};

/// The layers, in order: each may use itself and those before it. What
/// explains the symmetry engine (`explain`) comes after the engines
/// (`symmetry`, `check`, `cluster`), so none of them can import it. The
/// command line comes last because `symcsp FILE` starts the animator;
/// the animator must not use the command line.
const LAYERS: &[&str] = &[
    "syntax", "script", "types", "eval", "process", "lts", "symmetry", "check", "cluster",
    "explain", "lsp", "tui", "cli",
];

/// Modules any layer may use; they use none.
const UTILITIES: &[&str] = &["budget", "builtin", "files", "stack"];

/// Files that only assemble the crate: the module list and the binary's
/// entry point.
const ROOTS: &[&str] = &["lib.rs", "main.rs"];

/// Where a top-level module sits: a layer's place, or a utility.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    Layer(usize),
    Utility,
}

fn place(module: &str) -> Option<Place> {
    LAYERS
        .iter()
        .position(|&l| l == module)
        .map(Place::Layer)
        .or_else(|| UTILITIES.contains(&module).then_some(Place::Utility))
}

fn may_use(from: Place, to: Place) -> bool {
    match (from, to) {
        (_, Place::Utility) => true,
        (Place::Utility, Place::Layer(_)) => false,
        (Place::Layer(from), Place::Layer(to)) => to <= from,
    }
}

/// The text with comments, string and character literals blanked out
/// (newlines kept, so lines still count), leaving only code.
fn code_only(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let blank = |out: &mut String, c: char| out.push(if c == '\n' { '\n' } else { ' ' });
    let mut i = 0;
    while i < chars.len() {
        let rest = &chars[i..];
        let starts = |s: &str| s.chars().enumerate().all(|(k, c)| rest.get(k) == Some(&c));
        let ident_before = i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_');
        let end = if starts("//") {
            rest.iter()
                .position(|&c| c == '\n')
                .map_or(rest.len(), |n| n)
        } else if starts("/*") {
            // Block comments nest.
            let (mut depth, mut k) = (0, 0);
            loop {
                if k + 1 >= rest.len() {
                    break rest.len();
                } else if rest[k] == '/' && rest[k + 1] == '*' {
                    depth += 1;
                    k += 2;
                } else if rest[k] == '*' && rest[k + 1] == '/' {
                    depth -= 1;
                    k += 2;
                    if depth == 0 {
                        break k;
                    }
                } else {
                    k += 1;
                }
            }
        } else if rest[0] == 'r' && !ident_before && matches!(rest.get(1), Some('#' | '"')) {
            // A raw string: r"..", r#".."#, ...
            let hashes = rest[1..].iter().take_while(|&&c| c == '#').count();
            if rest.get(1 + hashes) == Some(&'"') {
                let close: String = std::iter::once('"')
                    .chain("#".repeat(hashes).chars())
                    .collect();
                let body = 2 + hashes;
                let text: String = rest[body..].iter().collect();
                text.find(&close).map_or(rest.len(), |n| {
                    body + text[..n].chars().count() + close.len()
                })
            } else {
                0
            }
        } else if rest[0] == '"' {
            let mut k = 1;
            while k < rest.len() && rest[k] != '"' {
                k += if rest[k] == '\\' { 2 } else { 1 };
            }
            k + 1
        } else if rest[0] == '\'' {
            // A character literal ('x', '\n', '\u{1F600}'), not a lifetime.
            match rest.get(1) {
                Some('\\') => rest[3..]
                    .iter()
                    .position(|&c| c == '\'')
                    .map_or(0, |n| n + 4),
                Some(_) if rest.get(2) == Some(&'\'') => 3,
                _ => 0,
            }
        } else {
            0
        };
        if end == 0 {
            out.push(chars[i]);
            i += 1;
        } else {
            let end = end.min(rest.len());
            for &c in &rest[..end] {
                blank(&mut out, c);
            }
            i += end;
        }
    }
    out
}

/// A token of code: a word, `::`, or one other character.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Token {
    text: String,
    line: usize,
}

fn tokens(code: &str) -> Vec<Token> {
    let mut out = Vec::new();
    for (n, line) in code.lines().enumerate() {
        let chars: Vec<char> = line.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            let len = if c.is_alphanumeric() || c == '_' {
                chars[i..]
                    .iter()
                    .take_while(|c| c.is_alphanumeric() || **c == '_')
                    .count()
            } else if c == ':' && chars.get(i + 1) == Some(&':') {
                2
            } else {
                1
            };
            if !c.is_whitespace() {
                out.push(Token {
                    text: chars[i..i + len].iter().collect(),
                    line: n + 1,
                });
            }
            i += len;
        }
    }
    out
}

/// The top-level modules a file refers to, each with its line. `module`
/// is the file's module path (`["check", "counterexample", "render"]`).
fn references(module: &[String], text: &str) -> Vec<(usize, String)> {
    let tokens = tokens(&code_only(text));
    let word = |k: usize| tokens.get(k).map_or("", |t| t.text.as_str());
    let mut found = Vec::new();
    // The names a path names at the crate's root, from token `k` on:
    // one name, or the first name of each item of a `{..}` group.
    let named_at_root = |k: usize, found: &mut Vec<(usize, String)>| {
        if word(k) != "{" {
            found.push((tokens[k - 1].line, word(k).to_string()));
            return;
        }
        let (mut depth, mut item_start) = (0, true);
        for t in &tokens[k..] {
            match t.text.as_str() {
                "{" => depth += 1,
                "}" if depth == 1 => break,
                "}" => depth -= 1,
                "," if depth == 1 => item_start = true,
                name if depth == 1 && item_start => {
                    found.push((t.line, name.to_string()));
                    item_start = false;
                }
                _ => {}
            }
        }
    };
    // Inline modules (`mod tests { .. }`) add to the depth `super` climbs.
    let mut inline: Vec<usize> = Vec::new();
    let mut braces = 0;
    let mut k = 0;
    while k < tokens.len() {
        match word(k) {
            "{" => braces += 1,
            "}" => {
                braces -= 1;
                if inline.last() == Some(&braces) {
                    inline.pop();
                }
            }
            "mod" if word(k + 2) == "{" => {
                inline.push(braces);
                braces += 1;
                k += 3;
                continue;
            }
            "crate" if word(k + 1) == "::" => named_at_root(k + 2, &mut found),
            "super" if word(k.wrapping_sub(1)) != "::" => {
                let mut climbed = 1;
                while word(k + 2 * climbed - 1) == "::" && word(k + 2 * climbed) == "super" {
                    climbed += 1;
                }
                let after = k + 2 * climbed;
                let depth = module.len() + inline.len();
                if climbed >= depth && word(after - 1) == "::" {
                    named_at_root(after, &mut found);
                }
            }
            _ => {}
        }
        k += 1;
    }
    found
}

/// A file's module path from its path under `src/`.
fn module_path(relative: &Path) -> Vec<String> {
    let mut parts: Vec<String> = relative
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().expect("a file name");
    let stem = last.strip_suffix(".rs").expect("a Rust file");
    if stem != "mod" {
        parts.push(stem.to_string());
    }
    parts
}

/// Every breach of the layering in the given files (paths relative to
/// `src/`, with their text), as `src/file:line: ...` lines.
fn breaches(files: &[(PathBuf, String)]) -> Vec<String> {
    let mut found = Vec::new();
    for (path, text) in files {
        let shown = Path::new("src").join(path).display().to_string();
        if path.parent() == Some(Path::new("")) && ROOTS.iter().any(|r| path == Path::new(r)) {
            continue;
        }
        let module = module_path(path);
        let top = &module[0];
        let Some(from) = place(top) else {
            found.push(format!(
                "{shown}: module `{top}` has no place in the layering \
                 (add it to tests/layering.rs and docs/architecture.md)"
            ));
            continue;
        };
        for (line, used) in references(&module, text) {
            if used == *top {
                continue;
            }
            match place(&used) {
                None => found.push(format!(
                    "{shown}:{line}: `{top}` refers to `crate::{used}`, which has no place in the layering"
                )),
                Some(to) if !may_use(from, to) => found.push(format!(
                    "{shown}:{line}: `{top}` must not use `{used}` (see \"Layering\" in docs/architecture.md)"
                )),
                Some(_) => {}
            }
        }
    }
    found
}

/// Every `.rs` file under `dir`, relative to `root`, with its text.
fn sources(root: &Path, dir: &Path, out: &mut Vec<(PathBuf, String)>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            sources(root, &path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).expect("a readable source file");
            let relative = path.strip_prefix(root).expect("under src").to_path_buf();
            out.push((relative, text));
        }
    }
}

#[test]
fn no_module_uses_a_layer_after_its_own() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &src, &mut files);
    assert!(files.len() > 50, "only {} source files found", files.len());
    let found = breaches(&files);
    assert!(
        found.is_empty(),
        "the layering is broken:\n{}",
        found.join("\n")
    );
}

fn file(path: &str, text: &str) -> (PathBuf, String) {
    (PathBuf::from(path), text.to_string())
}

#[test]
fn a_use_of_a_later_layer_is_reported_with_its_file_and_line() {
    let found = breaches(&[file(
        "lts/animator.rs",
        "//! Animation.\n\nuse crate::eval::EvalResult;\nuse crate::check::counterexample::Counterexample;\n",
    )]);
    assert_eq!(
        found,
        [
            "src/lts/animator.rs:4: `lts` must not use `check` (see \"Layering\" in docs/architecture.md)"
        ]
    );
}

#[test]
fn paths_in_code_groups_and_super_chains_count_and_comments_and_literals_do_not() {
    let text = r##"
use crate::{eval::Value, process::{Term, ProcId}};
// use crate::tui;
/* use crate::cli; /* nested */ use crate::cli; */
const A: &str = "crate::check";
const B: &str = r#"crate::"check""#;
const C: char = '"';
fn f<'a>(x: &'a str) -> usize { crate::lts::search::run(x) }
mod inner {
    use super::super::check::Verdict;
    use super::helper;
}
use super::machine;
"##;
    let module = ["process".to_string(), "print".to_string()];
    let found: Vec<(usize, String)> = references(&module, text);
    let at = |line: usize, name: &str| (line, name.to_string());
    // `super::super` from `process::print::inner` is `process`; from
    // `process::print`, `super` is `process` too: neither leaves it.
    assert_eq!(
        found,
        [at(2, "eval"), at(2, "process"), at(8, "lts")],
        "{found:?}"
    );
    let climbing = references(
        &["check".to_string(), "worker".to_string()],
        "use super::super::tui::App;\nuse super::super::{cli, lts};\n",
    );
    assert_eq!(climbing, [at(1, "tui"), at(2, "cli"), at(2, "lts")]);
}

#[test]
fn every_module_has_a_place_and_each_layer_sees_only_earlier_ones() {
    let found = breaches(&[
        file("lib.rs", "pub mod anything;\n"),
        file("newlayer/mod.rs", "use crate::syntax::Span;\n"),
        file("stack.rs", "use crate::eval::Value;\n"),
        file("cli/animate.rs", "use crate::tui::app::App;\n"),
        file(
            "tui/app.rs",
            "use crate::cli::check;\nuse crate::files::write;\n",
        ),
        file(
            "check/mod.rs",
            "use crate::symmetry::Group;\nuse crate::nowhere::X;\n",
        ),
    ]);
    assert_eq!(
        found,
        [
            "src/newlayer/mod.rs: module `newlayer` has no place in the layering (add it to tests/layering.rs and docs/architecture.md)",
            "src/stack.rs:1: `stack` must not use `eval` (see \"Layering\" in docs/architecture.md)",
            "src/tui/app.rs:1: `tui` must not use `cli` (see \"Layering\" in docs/architecture.md)",
            "src/check/mod.rs:2: `check` refers to `crate::nowhere`, which has no place in the layering",
        ]
    );
}

/// The modules a file's paths lead to (`crate::a::b`, `super::b`,
/// `self::b`, a child module's name), each with its line: every path as
/// far as its names go, groups (`{..}`) giving one path per item.
/// `module` is the file's module path; `children` the modules it
/// declares (`mod b;`).
fn module_paths(module: &[String], text: &str) -> Vec<(usize, Vec<String>)> {
    let tokens = tokens(&code_only(text));
    let word = |k: usize| tokens.get(k).map_or("", |t| t.text.as_str());
    let is_name = |w: &str| {
        w.chars()
            .next()
            .is_some_and(|c| c.is_alphabetic() || c == '_')
            && w.chars().all(|c| c.is_alphanumeric() || c == '_')
    };
    // The names of a path from token `k` on, as far as they go.
    let read = |mut k: usize| -> Vec<String> {
        let mut names = Vec::new();
        while is_name(word(k)) {
            names.push(word(k).to_string());
            if word(k + 1) != "::" {
                break;
            }
            k += 2;
        }
        names
    };
    let children: Vec<String> = (0..tokens.len())
        .filter(|&k| word(k) == "mod" && word(k + 2) == ";")
        .map(|k| word(k + 1).to_string())
        .collect();
    let mut found = Vec::new();
    let mut inline: Vec<(usize, String)> = Vec::new();
    let mut braces = 0;
    let mut k = 0;
    while k < tokens.len() {
        let before = word(k.wrapping_sub(1));
        let mut here: Vec<String> = module.to_vec();
        here.extend(inline.iter().map(|(_, name)| name.clone()));
        let base = match word(k) {
            "{" => {
                braces += 1;
                None
            }
            "}" => {
                braces -= 1;
                if inline.last().is_some_and(|(depth, _)| *depth == braces) {
                    inline.pop();
                }
                None
            }
            "mod" if word(k + 2) == "{" => {
                inline.push((braces, word(k + 1).to_string()));
                braces += 1;
                k += 3;
                continue;
            }
            _ if before == "::" || before == "." => None,
            "crate" if word(k + 1) == "::" => Some((Vec::new(), k + 2)),
            "self" if word(k + 1) == "::" => Some((here.clone(), k + 2)),
            "super" => {
                let mut climbed = 1;
                while word(k + 2 * climbed - 1) == "::" && word(k + 2 * climbed) == "super" {
                    climbed += 1;
                }
                (word(k + 2 * climbed - 1) == "::").then(|| {
                    let kept = here.len().saturating_sub(climbed);
                    (here[..kept].to_vec(), k + 2 * climbed)
                })
            }
            name if children.iter().any(|c| c == name) && word(k + 1) == "::" => {
                Some((module.to_vec(), k))
            }
            _ => None,
        };
        if let Some((base, start)) = base {
            let line = tokens[k].line;
            if word(start) == "{" {
                let (mut depth, mut item_start) = (0, true);
                for (j, t) in tokens.iter().enumerate().skip(start) {
                    match t.text.as_str() {
                        "{" => depth += 1,
                        "}" if depth == 1 => break,
                        "}" => depth -= 1,
                        "," if depth == 1 => item_start = true,
                        _ if depth == 1 && item_start => {
                            let mut path = base.clone();
                            path.extend(read(j));
                            found.push((t.line, path));
                            item_start = false;
                        }
                        _ => {}
                    }
                }
            } else {
                let mut path = base;
                path.extend(read(start));
                found.push((line, path));
            }
        }
        k += 1;
    }
    found
}

/// Every circle of imports between files of one layer: a file that,
/// through files that are not its ancestors, imports itself again (a
/// child using its parent's items is no circle). Each as `a → b → a`.
fn circles(files: &[(PathBuf, String)]) -> Vec<String> {
    let modules: Vec<Vec<String>> = files.iter().map(|(p, _)| module_path(p)).collect();
    let index: std::collections::HashMap<&[String], usize> = modules
        .iter()
        .enumerate()
        .map(|(k, m)| (m.as_slice(), k))
        .collect();
    // Per file, the files it imports.
    let edges: Vec<Vec<usize>> = files
        .iter()
        .enumerate()
        .map(|(k, (_, text))| {
            let mut to: Vec<usize> = module_paths(&modules[k], text)
                .into_iter()
                .filter_map(|(_, path)| {
                    (1..=path.len())
                        .rev()
                        .find_map(|n| index.get(&path[..n]).copied())
                })
                .filter(|&t| t != k && !modules[k].starts_with(&modules[t]))
                .collect();
            to.sort_unstable();
            to.dedup();
            to
        })
        .collect();
    // Tarjan's strongly connected components.
    struct Tarjan<'e> {
        edges: &'e [Vec<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        components: Vec<Vec<usize>>,
    }
    impl Tarjan<'_> {
        fn visit(&mut self, v: usize) {
            self.index[v] = Some(self.next);
            self.low[v] = self.next;
            self.next += 1;
            self.stack.push(v);
            self.on_stack[v] = true;
            for &w in &self.edges[v] {
                match self.index[w] {
                    None => {
                        self.visit(w);
                        self.low[v] = self.low[v].min(self.low[w]);
                    }
                    Some(i) if self.on_stack[w] => self.low[v] = self.low[v].min(i),
                    Some(_) => {}
                }
            }
            if Some(self.low[v]) == self.index[v] {
                let mut component = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack[w] = false;
                    component.push(w);
                    if w == v {
                        break;
                    }
                }
                self.components.push(component);
            }
        }
    }
    let n = files.len();
    let mut tarjan = Tarjan {
        edges: &edges,
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        next: 0,
        components: Vec::new(),
    };
    for v in 0..n {
        if tarjan.index[v].is_none() {
            tarjan.visit(v);
        }
    }
    let shown = |k: usize| Path::new("src").join(&files[k].0).display().to_string();
    let mut found: Vec<String> = tarjan
        .components
        .into_iter()
        .filter(|c| c.len() > 1)
        .map(|mut c| {
            c.sort_unstable();
            let mut names: Vec<String> = c.iter().map(|&k| shown(k)).collect();
            names.push(names[0].clone());
            format!("an import circle: {}", names.join(" → "))
        })
        .collect();
    found.sort();
    found
}

#[test]
fn no_files_import_each_other_in_a_circle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &src, &mut files);
    let found = circles(&files);
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn a_circle_between_siblings_is_reported_and_a_child_using_its_parent_is_not() {
    let found = circles(&[
        file(
            "lts/mod.rs",
            "pub mod search;\npub mod expand;\nuse search::Search;\n",
        ),
        file(
            "lts/search.rs",
            "use super::expand::{expand, Batch};\nuse super::Thing;\n",
        ),
        file("lts/expand.rs", "use crate::lts::search::Scratch;\n"),
        file("lts/store.rs", "use super::search::Search;\n"),
        file(
            "eval/a.rs",
            "fn f() { crate::eval::b::g() }\nmod tests { use super::*; }\n",
        ),
        file("eval/b.rs", "use crate::{eval::c::h, syntax::Span};\n"),
        file("eval/c.rs", "use super::{a::f, b};\n"),
    ]);
    assert_eq!(
        found,
        [
            "an import circle: src/eval/a.rs → src/eval/b.rs → src/eval/c.rs → src/eval/a.rs",
            "an import circle: src/lts/search.rs → src/lts/expand.rs → src/lts/search.rs",
        ]
    );
}
