//! An included file's problems seen from the document that includes
//! it: one diagnostic on the `include` line (an editor shows the
//! included file's own only when that file is open), counting them and
//! saying the first, which it links to.

use crate::syntax::{Diagnostic, FileId, Severity, SourceMap, Span};

/// For each `include` of the document (the map's first file) whose
/// file, or a file it includes, has problems among `diagnostics`: a
/// diagnostic at the `include`, in the document's order.
pub fn summaries(sources: &SourceMap, diagnostics: &[Diagnostic]) -> Vec<Diagnostic> {
    let mut by_include: Vec<Through> = Vec::new();
    for d in diagnostics {
        let Some(span) = d.span else { continue };
        let Some((include, file)) = include_in_document(sources, span) else {
            continue;
        };
        match by_include.iter_mut().find(|t| t.include == include) {
            Some(through) => through.found.push((d, span)),
            None => by_include.push(Through {
                include,
                file,
                found: vec![(d, span)],
            }),
        }
    }
    by_include.sort_by_key(|t| t.include.start);
    by_include
        .into_iter()
        .filter_map(|t| summary(sources, (t.include, t.file), &t.found))
        .collect()
}

/// An `include` of the document, the file it reads, and the problems
/// met through it with their places, in the order given.
struct Through<'d> {
    include: Span,
    file: FileId,
    found: Vec<(&'d Diagnostic, Span)>,
}

/// The `include` of the document through which `span`'s file was read
/// (its own, or an ancestor's), and the file that `include` reads;
/// `None` for a place in the document.
fn include_in_document(sources: &SourceMap, span: Span) -> Option<(Span, FileId)> {
    let mut file = sources.file_of(span);
    let mut include = sources.file(file).included_from?;
    // A file is read once (including it again is an error), so the
    // chain ends at the document.
    loop {
        let outer = sources.file_of(include);
        match sources.file(outer).included_from {
            Some(further) => (file, include) = (outer, further),
            None => return Some((include, file)),
        }
    }
}

fn summary(
    sources: &SourceMap,
    (include, file): (Span, FileId),
    found: &[(&Diagnostic, Span)],
) -> Option<Diagnostic> {
    let rank = |s: Severity| match s {
        Severity::Error => 0,
        Severity::Warning => 1,
        Severity::Note => 2,
    };
    // The first of the worst.
    let &(first, at) = found.iter().min_by_key(|(d, _)| rank(d.severity))?;
    let errors = found
        .iter()
        .filter(|(d, _)| d.severity == Severity::Error)
        .count();
    let problems = match (errors, found.len() - errors) {
        (0, others) => counted(others, "warning"),
        (errors, 0) => counted(errors, "error"),
        (errors, others) => format!(
            "{} and {}",
            counted(errors, "error"),
            counted(others, "warning")
        ),
    };
    Some(Diagnostic {
        severity: first.severity,
        message: format!(
            "the included file {} has {problems}; the first, at {}: {}",
            sources.file(file).name,
            sources.location(at),
            first.message
        ),
        span: Some(include),
        secondary: vec![(at, "the first".to_string())],
        notes: Vec::new(),
    })
}

fn counted(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}
