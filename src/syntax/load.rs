//! Reading scripts: a file and, recursively, the files it includes
//! (resolved relative to the including file; cycles are an error), each
//! checked lexically and parsed, with several errors per file where the
//! parser can recover.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use pest::Parser;

use thin_vec::ThinVec;

use super::ast::{Decl, DeclKind, File};
use super::build::Builder;
use super::diagnostic::{Diagnostic, render_all};
use super::parser::{CspmParser, Rule};
use super::source::{FileId, MAX_SOURCE_BYTES, SourceMap, Span};
use super::{descent, errors, lexical};

/// How many syntax errors one file reports.
const MAX_SYNTAX_ERRORS: usize = 10;

/// How deep includes may nest (a guard against runaway generated scripts;
/// cycles are caught exactly).
const MAX_INCLUDE_DEPTH: usize = 64;

/// A parsed script: every file, the root first.
#[derive(Debug)]
pub struct Program {
    pub sources: SourceMap,
    /// Indexed by [`FileId`].
    pub files: Vec<File>,
    pub root: FileId,
}

impl Program {
    pub fn root_file(&self) -> &File {
        &self.files[self.root as usize]
    }
}

/// A script that could not be read, with the sources the diagnostics
/// point into.
#[derive(Debug)]
pub struct LoadError {
    pub sources: SourceMap,
    pub diagnostics: Vec<Diagnostic>,
}

impl LoadError {
    pub fn render(&self) -> String {
        render_all(&self.diagnostics, &self.sources)
    }
}

/// Loads the script at `path` and everything it includes.
pub fn load_file(path: &Path) -> Result<Program, LoadError> {
    crate::stack::with_large_stack(|| {
        let mut loader = Loader::default();
        let root = loader.read_and_parse(path, path.display().to_string(), None);
        loader.finish(root)
    })
}

/// Loads a script given as text; includes resolve against the current
/// directory.
pub fn load_str(name: &str, text: &str) -> Result<Program, LoadError> {
    crate::stack::with_large_stack(|| {
        let mut loader = Loader::default();
        let root = loader.sources.add(name, None, text.to_string(), None);
        loader.parse(root);
        loader.finish(Some(root))
    })
}

/// Parses the declarations of one file without following includes.
pub(crate) fn parse_decls(base: u32, text: &str) -> Result<ThinVec<Decl>, Vec<Diagnostic>> {
    let lexical_errors = lexical::check(base, text);
    if !lexical_errors.is_empty() {
        return Err(lexical_errors);
    }
    if let Some(decls) = descent::parse_file(base, text) {
        return Ok(decls);
    }
    parse_decls_with_pest(base, text)
}

/// Parses the declarations of one file with pest alone: the reference the
/// fast parser ([`descent`]) leaves every text it declines to.
pub(crate) fn parse_decls_with_pest(
    base: u32,
    text: &str,
) -> Result<ThinVec<Decl>, Vec<Diagnostic>> {
    if text.len() >= 2 * CHUNK_BYTES
        && let Some(decls) = parse_in_chunks(base, text)
    {
        return Ok(decls);
    }
    match CspmParser::parse(Rule::file, text) {
        Ok(mut pairs) => Builder::new(base, 0).file(pairs.next().expect("a file pair")),
        Err(first) => Err(with_error_detail(|| recover(base, text, first))),
    }
}

/// Large scripts are parsed in chunks of about this many bytes.
const CHUNK_BYTES: usize = 64 * 1024;

/// Parses a large script as chunks of whole declarations, on every core.
///
/// Chunks start at lines that begin, in the first column, with a word that
/// cannot continue an expression. Such a line can still sit inside a
/// construct (a module, a bracket left open); then a chunk fails and the
/// caller parses the whole text instead, so the result never differs from
/// a whole-text parse. Besides speed, chunks bound the memory of pest's
/// token queue.
fn parse_in_chunks(base: u32, text: &str) -> Option<ThinVec<Decl>> {
    let mut starts = vec![0];
    for point in lexical::restart_points(text) {
        if point >= starts.last().copied().unwrap_or(0) + CHUNK_BYTES {
            starts.push(point);
        }
    }
    let bounds: Vec<(usize, usize)> = starts
        .iter()
        .zip(starts.iter().skip(1).chain(std::iter::once(&text.len())))
        .map(|(&a, &b)| (a, b))
        .collect();
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(bounds.len());
    let per_worker = bounds.len().div_ceil(workers);
    let results: Vec<Option<ThinVec<Decl>>> = std::thread::scope(|scope| {
        let handles: Vec<_> = bounds
            .chunks(per_worker)
            .map(|group| {
                std::thread::Builder::new()
                    .stack_size(crate::stack::LARGE_STACK)
                    .spawn_scoped(scope, move || {
                        let mut decls = ThinVec::new();
                        for &(start, end) in group {
                            let chunk = &text[start..end];
                            let mut pairs = CspmParser::parse(Rule::file, chunk).ok()?;
                            let built =
                                Builder::new(base, start).file(pairs.next().expect("a file pair"));
                            decls.extend(built.ok()?);
                        }
                        Some(decls)
                    })
                    .expect("the system can start a thread")
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().ok().flatten())
            .collect()
    });
    let mut all = ThinVec::new();
    for part in results {
        all.extend(part?);
    }
    Some(all)
}

/// Runs `f`, which may switch on pest's record of what it expected at each
/// failure (see [`recover`]). That bookkeeping slows parsing severalfold,
/// so it is on only while a script that failed is parsed again for its
/// diagnostics. pest's switch is global: the lock keeps concurrent
/// re-parses from turning it off under each other (plain parses only run
/// slower while it is on), and it is off again when `f` returns.
pub(crate) fn with_error_detail<T>(f: impl FnOnce() -> T) -> T {
    static DETAIL: Mutex<()> = Mutex::new(());
    let _guard = DETAIL
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let result = f();
    pest::set_error_detail(false);
    result
}

/// Reports the error of a failed parse of the whole text (`first`), then
/// looks for more by restarting the parser at later declarations.
///
/// Runs under [`with_error_detail`]. pest's record of what it expected
/// (needed for the message) slows parsing severalfold, so each stretch is
/// parsed without it; a failure is then parsed again with it from the last
/// declaration start before the failure, which is short. A large script
/// with a few errors thus costs about one ordinary pass.
fn recover(base: u32, text: &str, first: pest::error::Error<Rule>) -> Vec<Diagnostic> {
    let restarts = lexical::restart_points(text);
    let mut diagnostics = Vec::new();
    let mut start = 0;
    let mut failure = Some(first);
    while diagnostics.len() < MAX_SYNTAX_ERRORS {
        let rest = &text[start..];
        // The caller's parse of the whole text is the first attempt.
        let attempt = match failure.take() {
            Some(first) => Err(first),
            None => parse_with_detail(rest, false),
        };
        match attempt {
            Ok(mut pairs) => {
                if let Err(more) =
                    Builder::new(base, start).file(pairs.next().expect("a file pair"))
                {
                    diagnostics.extend(more);
                }
                break;
            }
            Err(error) => {
                let failed_at = start + errors::failure_offset(&error);
                diagnostics.push(explain_failure(base, text, start, failed_at, &restarts));
                // Resume at the first declaration starting on a later line.
                let line_end = text[failed_at.min(text.len())..]
                    .find('\n')
                    .map_or(text.len(), |p| failed_at + p);
                match restarts.iter().find(|&&p| p > line_end) {
                    Some(&next) => start = next,
                    None => break,
                }
            }
        }
    }
    diagnostics.truncate(MAX_SYNTAX_ERRORS);
    diagnostics
}

fn parse_with_detail(
    text: &str,
    detail: bool,
) -> Result<pest::iterators::Pairs<'_, Rule>, pest::error::Error<Rule>> {
    pest::set_error_detail(detail);
    CspmParser::parse(Rule::file, text)
}

/// The diagnostic for a parse of `text[start..]` that failed at
/// `failed_at`: parsed again with detail from the last declaration start
/// before the failure (or, if that start lies inside the broken construct
/// and fails elsewhere, from `start` itself).
fn explain_failure(
    base: u32,
    text: &str,
    start: usize,
    failed_at: usize,
    restarts: &[usize],
) -> Diagnostic {
    let near = restarts
        .iter()
        .rev()
        .copied()
        .find(|&p| p >= start && p <= failed_at)
        .unwrap_or(start);
    if near > start {
        let rest = &text[near..];
        if let Err(error) = parse_with_detail(rest, true)
            && near + errors::failure_offset(&error) == failed_at
        {
            return errors::diagnostic(&error, base, text, near);
        }
    }
    let rest = &text[start..];
    let error = parse_with_detail(rest, true).expect_err("a text that failed to parse fails again");
    errors::diagnostic(&error, base, text, start)
}

#[derive(Default)]
struct Loader {
    sources: SourceMap,
    files: Vec<Option<File>>,
    diagnostics: Vec<Diagnostic>,
    /// Canonical paths of the files being loaded, outermost first.
    chain: Vec<PathBuf>,
}

impl Loader {
    fn finish(self, root: Option<FileId>) -> Result<Program, LoadError> {
        match root {
            Some(root) if self.diagnostics.is_empty() => Ok(Program {
                files: self
                    .files
                    .into_iter()
                    .map(|f| f.expect("every file without errors is parsed"))
                    .collect(),
                sources: self.sources,
                root,
            }),
            _ => Err(LoadError {
                sources: self.sources,
                diagnostics: self.diagnostics,
            }),
        }
    }

    /// Reads `path` into the source map and parses it; `None` when it
    /// cannot be read at all.
    fn read_and_parse(
        &mut self,
        path: &Path,
        name: String,
        included_from: Option<Span>,
    ) -> Option<FileId> {
        let bytes = match std::fs::read(path) {
            Ok(b) => b,
            Err(e) => {
                let message = format!("cannot read `{name}`: {}", io_reason(&e));
                self.diagnostics.push(match included_from {
                    Some(site) => Diagnostic::error(site, message),
                    None => Diagnostic::error_nowhere(message),
                });
                return None;
            }
        };
        // A binary file is usually not UTF-8 either; its NUL bytes (which
        // the lexical check reports) say more than the first bad byte.
        let binary = bytes.contains(&0);
        let (text, bad_byte) = match String::from_utf8(bytes) {
            Ok(t) => (t, None),
            Err(e) => {
                let at = e.utf8_error().valid_up_to();
                let bad = (!binary).then(|| (at, e.as_bytes()[at]));
                (String::from_utf8_lossy(e.as_bytes()).into_owned(), bad)
            }
        };
        if !self.sources.has_room_for(text.len()) {
            let message = format!(
                "cannot read `{name}`: the script is too large (at most {} MiB in all its files)",
                MAX_SOURCE_BYTES >> 20
            );
            self.diagnostics.push(match included_from {
                Some(site) => Diagnostic::error(site, message),
                None => Diagnostic::error_nowhere(message),
            });
            return None;
        }
        let id = self
            .sources
            .add(name, Some(path.to_path_buf()), text, included_from);
        if let Some((at, byte)) = bad_byte {
            self.diagnostics.push(Diagnostic::error(
                Span::new(self.sources.base(id), at, at + 1),
                format!("this is not a CSPM script: it is not UTF-8 text (byte 0x{byte:02X})"),
            ));
            return Some(id);
        }
        let canonical = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
        self.chain.push(canonical);
        self.parse(id);
        self.chain.pop();
        Some(id)
    }

    fn parse(&mut self, id: FileId) {
        let source = self.sources.file(id);
        match parse_decls(source.base, &source.text) {
            Ok(mut decls) => {
                self.resolve_includes(id, &mut decls);
                self.store(id, File { id, decls });
            }
            Err(diagnostics) => self.diagnostics.extend(diagnostics),
        }
    }

    fn store(&mut self, id: FileId, file: File) {
        let index = id as usize;
        if self.files.len() <= index {
            self.files.resize_with(index + 1, || None);
        }
        self.files[index] = Some(file);
    }

    fn resolve_includes(&mut self, id: FileId, decls: &mut [Decl]) {
        for decl in decls {
            match &mut decl.kind {
                DeclKind::Include(include) => {
                    include.file = self.include(id, &include.path, decl.span);
                }
                DeclKind::Module(m) => {
                    self.resolve_includes(id, &mut m.private);
                    if let Some(exports) = &mut m.exports {
                        self.resolve_includes(id, exports);
                    }
                }
                DeclKind::Timed(_, inner) => self.resolve_includes(id, inner),
                _ => {}
            }
        }
    }

    fn include(&mut self, from: FileId, path: &str, site: Span) -> Option<FileId> {
        let base = self
            .sources
            .file(from)
            .path
            .as_ref()
            .and_then(|p| p.parent().map(Path::to_path_buf))
            .unwrap_or_default();
        let target = base.join(path);
        let name = target.display().to_string();
        let canonical = target.canonicalize().unwrap_or_else(|_| target.clone());
        if let Some(pos) = self.chain.iter().position(|p| *p == canonical) {
            let cycle: Vec<String> = self.chain[pos..]
                .iter()
                .chain(std::iter::once(&canonical))
                .map(|p| {
                    p.file_name().map_or_else(
                        || p.display().to_string(),
                        |n| n.to_string_lossy().into_owned(),
                    )
                })
                .collect();
            self.diagnostics.push(Diagnostic::error(
                site,
                format!("include cycle: {}", cycle.join(" includes ")),
            ));
            return None;
        }
        if self.chain.len() >= MAX_INCLUDE_DEPTH {
            self.diagnostics.push(Diagnostic::error(
                site,
                format!("includes nested more than {MAX_INCLUDE_DEPTH} deep"),
            ));
            return None;
        }
        self.read_and_parse(&target, name, Some(site))
    }
}

fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        std::io::ErrorKind::IsADirectory => "it is a directory".into(),
        _ => e.to_string(),
    }
}

/// A file with nothing but white space in it is almost always a mistake
/// (a wrong path, a truncated save), so the command line refuses it; a
/// script of comments only is deliberate and parses to no declarations.
pub fn empty_file(path: &Path) -> Option<&'static str> {
    let bytes = std::fs::read(path).ok()?;
    bytes
        .iter()
        .all(u8::is_ascii_whitespace)
        .then_some("the file is empty: there is no script to parse")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The whole-text parse, bypassing chunking.
    fn parse_whole(text: &str) -> ThinVec<Decl> {
        let mut pairs = CspmParser::parse(Rule::file, text).expect("the text parses");
        Builder::new(0, 0)
            .file(pairs.next().unwrap())
            .expect("the text builds")
    }

    /// Repeats scripts until the text is long enough to be chunked.
    fn long_text(scripts: &[&str]) -> String {
        let mut text = String::new();
        while text.len() < 4 * CHUNK_BYTES {
            for s in scripts {
                text.push_str(s);
                text.push('\n');
            }
        }
        text
    }

    // Spans take no part in `==`, so the trees are compared through their
    // debug form, which shows every span.
    fn same_with_spans(a: &[Decl], b: &[Decl]) -> bool {
        format!("{a:?}") == format!("{b:?}")
    }

    #[test]
    fn chunked_parsing_gives_exactly_the_whole_text_parse() {
        let text = long_text(&[
            include_str!("../../models/liststack.csp"),
            include_str!("../../tests/fixtures/valid/processes.csp"),
            include_str!("../../tests/fixtures/valid/layout.csp"),
        ]);
        let chunked =
            parse_in_chunks(0, &text).expect("every chunk boundary is a declaration boundary");
        assert!(same_with_spans(&chunked, &parse_whole(&text)));
        assert!(same_with_spans(&parse_decls(0, &text).unwrap(), &chunked));
    }

    #[test]
    fn a_chunk_boundary_inside_a_construct_falls_back_to_the_whole_text() {
        // Module bodies put declarations in the first column: some chunk
        // boundaries land inside a module, and those chunks fail.
        let module = "module M\nx = 1\ny = 2\nexports\nz = x + y\nendmodule\n";
        let text = long_text(&[&module.repeat(200)]);
        assert!(parse_in_chunks(0, &text).is_none());
        assert!(same_with_spans(
            &parse_decls(0, &text).unwrap(),
            &parse_whole(&text)
        ));
    }
}
