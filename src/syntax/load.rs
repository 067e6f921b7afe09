//! Reading scripts: a file and, recursively, the files it includes
//! (resolved relative to the including file; cycles are an error), each
//! checked lexically and parsed, with several errors per file where the
//! parser can recover.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use thin_vec::ThinVec;

use crate::budget::{Meter, Stopped, Ticker};

use super::ast::{Decl, DeclKind, File};
use super::build::Builder;
use super::diagnostic::{Diagnostic, render_all};
use super::parser::Rule;
use super::pest_run::{self, Detail};
use super::source::{FileId, MAX_SOURCE_BYTES, SourceMap, Span};
use super::{descent, encoding, errors, lexical, read, tokens};

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

/// How many of a load's errors are shown unless every one is asked for.
pub const ERROR_CAP: usize = 20;

/// `--all-errors`: every error of a load is shown, not the first
/// [`ERROR_CAP`]. Set once, from the command line, before any load.
static ALL_ERRORS: AtomicBool = AtomicBool::new(false);

/// Shows every error of a load (`true`) or the first [`ERROR_CAP`].
pub fn show_all_errors(all: bool) {
    ALL_ERRORS.store(all, Ordering::Relaxed);
}

/// A script that could not be read, with the sources the diagnostics
/// point into.
#[derive(Debug)]
pub struct LoadError {
    pub sources: SourceMap,
    pub diagnostics: Vec<Diagnostic>,
    /// When a budget stopped loading before it could tell whether the
    /// script is good: why, and in which stage. The diagnostics are then
    /// those found before it stopped (often none).
    pub stopped: Option<LoadStopped>,
}

impl LoadError {
    /// The errors of a stage that refused the script.
    pub fn refused(sources: SourceMap, diagnostics: Vec<Diagnostic>) -> LoadError {
        LoadError {
            sources,
            diagnostics,
            stopped: None,
        }
    }

    /// The diagnostics as a person reads them: the first [`ERROR_CAP`]
    /// (as FDR's front end stops after about twenty), then a line saying
    /// how many more there are; all of them after [`show_all_errors`].
    pub fn render(&self) -> String {
        let shown = match ALL_ERRORS.load(Ordering::Relaxed) {
            true => self.diagnostics.len(),
            false => self.diagnostics.len().min(ERROR_CAP),
        };
        let mut text = render_all(&self.diagnostics[..shown], &self.sources);
        let more = self.diagnostics.len() - shown;
        if more > 0 {
            text.push_str(&format!(
                "\n{more} more {} not shown: the first {ERROR_CAP} are, as FDR stops after about \
                 twenty (--all-errors shows every one)\n",
                if more == 1 { "error" } else { "errors" }
            ));
        }
        if let Some(stopped) = self.stopped {
            text.push_str(&format!("{}\n", stopped.sentence()));
        }
        text
    }
}

/// Why and where a budget stopped loading a script.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoadStopped {
    pub reason: Stopped,
    pub stage: LoadStage,
}

impl LoadStopped {
    /// `the script was not loaded: stopped by the time-out while parsing
    /// the script`.
    pub fn sentence(self) -> String {
        format!(
            "the script was not loaded: {} while {}",
            self.reason.ended(),
            self.stage.describe()
        )
    }
}

/// The stages of loading a script, which a budget may stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoadStage {
    /// Reading the files and parsing them.
    Parsing,
    /// Resolving names (the `script` layer).
    Resolving,
    /// Checking types (the `types` layer).
    TypeChecking,
}

impl LoadStage {
    /// The stage as a check's stop names it: `parsing the script`.
    pub fn describe(self) -> &'static str {
        match self {
            LoadStage::Parsing => "parsing the script",
            LoadStage::Resolving => "resolving the script's names",
            LoadStage::TypeChecking => "checking the script's types",
        }
    }
}

/// Declarations parsed, or definitions resolved, between two polls of a
/// loading meter.
pub const LOAD_POLL_EVERY: u32 = 256;

/// Loads the script at `path` (`-`: standard input) and everything it
/// includes. Each file is read once, within the size limit; a root file
/// of nothing but white space is refused (see [`empty_file`]).
pub fn load_file(path: &Path) -> Result<Program, LoadError> {
    load_file_within(path, &Meter::unlimited())
}

/// [`load_file`] within what `meter` allows (the time-out, the memory
/// budget, a cancel), polled between declarations.
pub fn load_file_within(path: &Path, meter: &Meter) -> Result<Program, LoadError> {
    crate::stack::with_large_stack(|| {
        let mut loader = Loader::new(meter);
        let root = loader.read_and_parse(path, display_name(path), None);
        loader.finish(root)
    })
}

/// How a script's path is named in messages: `-` is standard input.
pub fn display_name(path: &Path) -> String {
    if read::is_stdin(path) {
        "<stdin>".to_string()
    } else {
        path.display().to_string()
    }
}

/// Loads a script given as text; includes resolve against the current
/// directory.
pub fn load_str(name: &str, text: &str) -> Result<Program, LoadError> {
    load_str_within(name, text, &Meter::unlimited())
}

/// [`load_str`] within what `meter` allows.
pub fn load_str_within(name: &str, text: &str, meter: &Meter) -> Result<Program, LoadError> {
    crate::stack::with_large_stack(|| {
        let mut loader = Loader::new(meter);
        let root = loader.sources.add(name, None, text.to_string(), None);
        loader.parse(root);
        loader.finish(Some(root))
    })
}

/// The texts of files that an editor holds, by canonical path: loading
/// reads them instead of the disk (an editor's unsaved buffers).
pub type OpenFiles = rustc_hash::FxHashMap<PathBuf, String>;

/// Loads `text` as the script at `path` (which need not exist on disk):
/// includes resolve against `path`'s folder, and any file in `open`
/// (the root among them or not) is read from there instead of the disk.
pub fn load_text_at_within(
    path: &Path,
    text: &str,
    open: &OpenFiles,
    meter: &Meter,
) -> Result<Program, LoadError> {
    crate::stack::with_large_stack(|| {
        let mut loader = Loader::new(meter);
        loader.open = open.clone();
        let canonical = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
        loader.open.insert(canonical, text.to_string());
        let root = loader.read_and_parse(path, display_name(path), None);
        loader.finish(root)
    })
}

/// Parses the declarations of one file without following includes.
///
/// The fast parser ([`descent`]) reads every declaration it can; pest
/// reads each stretch it declines (a module, a rare layout, an error) and
/// explains the errors, resuming after each at a later declaration. A
/// large script with a few modules or a few errors so costs about one
/// fast pass, and at most [`MAX_SYNTAX_ERRORS`] are reported.
pub(crate) fn parse_decls(base: u32, text: &str) -> Result<ThinVec<Decl>, Vec<Diagnostic>> {
    let mut ticker = Ticker::unlimited();
    let parsed = parse_decls_within(base, text, &mut ticker);
    match ticker.stopped() {
        Some(stop) => Err(vec![Diagnostic::error(
            Span::new(base, 0, 0),
            format!("parsing was {}", stop.ended()),
        )]),
        None => parsed,
    }
}

/// [`parse_decls`], each declaration a tick of `ticker`: when it says
/// stop, what comes back is partial, and the caller asks the ticker.
fn parse_decls_within(
    base: u32,
    text: &str,
    ticker: &mut Ticker,
) -> Result<ThinVec<Decl>, Vec<Diagnostic>> {
    let lexical_errors = lexical::check(base, text, super::lexical::Whole::File);
    if !lexical_errors.is_empty() {
        return Err(lexical_errors);
    }
    let (mut decls, stop) = descent::parse_prefix(base, text, ticker);
    let Some(mut start) = stop else {
        return Ok(decls);
    };
    let restarts = lexical::restart_points(text);
    let mut diagnostics = Vec::new();
    loop {
        if ticker.stopped().is_some() || ticker.meter().poll().is_err() {
            break;
        }
        // Pest's part, from `start`.
        let resume = match parse_stretch(base, text, start, &restarts) {
            Stretch::Parsed { built, end } => {
                match built {
                    Ok(more) => decls.extend(more),
                    Err(errors) => diagnostics.extend(errors),
                }
                end
            }
            Stretch::Failed { failed_at } => {
                diagnostics.push(explain_failure(base, text, start, failed_at, &restarts));
                // Resume at the first declaration starting on a later line.
                let line_end = text[failed_at..]
                    .find('\n')
                    .map_or(text.len(), |p| failed_at + p);
                match restarts.iter().find(|&&p| p > line_end) {
                    Some(&next) => next,
                    None => break,
                }
            }
        };
        if resume >= text.len() || diagnostics.len() >= MAX_SYNTAX_ERRORS {
            break;
        }
        // The fast parser's part, from `resume`.
        let (more, stop) = descent::parse_prefix(base + resume as u32, &text[resume..], ticker);
        decls.extend(more);
        match stop {
            Some(at) => start = resume + at,
            None => break,
        }
    }
    if diagnostics.is_empty() {
        Ok(decls)
    } else {
        diagnostics.truncate(MAX_SYNTAX_ERRORS);
        Err(diagnostics)
    }
}

/// Parses the declarations of one file with pest alone: the reference the
/// fast parser is tested against.
pub(crate) fn parse_decls_with_pest(
    base: u32,
    text: &str,
) -> Result<ThinVec<Decl>, Vec<Diagnostic>> {
    match pest_run::parse(Rule::file, text, Detail::Off) {
        Ok(mut pairs) => Builder::new(base, 0).file(pairs.next().expect("a file pair")),
        Err(error) => {
            let failed_at = errors::failure_offset(&error);
            let restarts = lexical::restart_points(text);
            Err(vec![explain_failure(base, text, 0, failed_at, &restarts)])
        }
    }
}

/// What pest made of a stretch of declarations.
enum Stretch {
    /// The declarations of `text[start..end]`, or the builder's objections
    /// to some of them.
    Parsed {
        built: Result<ThinVec<Decl>, Vec<Diagnostic>>,
        end: usize,
    },
    /// A syntax error at `failed_at`.
    Failed { failed_at: usize },
}

/// Parses with pest from `start` (a declaration start) to a restart point:
/// the first after `start` at which the stretch parses, trying points
/// ever further apart (what starts at `start` may reach over several, as
/// a module's body does). A failure before the stretch's last token is
/// the script's own error: pest looked no further, so a parse of the
/// whole text fails there too.
fn parse_stretch(base: u32, text: &str, start: usize, restarts: &[usize]) -> Stretch {
    let first = restarts.partition_point(|&p| p <= start);
    let mut reach = 1;
    loop {
        let end = restarts
            .get(first + reach - 1)
            .copied()
            .unwrap_or(text.len());
        match pest_run::parse(Rule::file, &text[start..end], Detail::Off) {
            Ok(mut pairs) => {
                let built = Builder::new(base, start).file(pairs.next().expect("a file pair"));
                return Stretch::Parsed { built, end };
            }
            Err(error) => {
                let failed_at = start + errors::failure_offset(&error);
                if end == text.len()
                    || pest_run::gave_up(&error)
                    || !tokens::only_trivia(&text[failed_at..end])
                {
                    return Stretch::Failed { failed_at };
                }
                reach *= 2;
            }
        }
    }
}

/// The diagnostic for a parse of `text[start..]` that failed at
/// `failed_at`: parsed again with pest's record of what it expected (slow,
/// so only for a failed stretch) from the last declaration start before
/// the failure (or, if that start lies inside the broken construct and
/// fails elsewhere, from `start` itself).
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
        if let Err(error) = pest_run::parse(Rule::file, rest, Detail::On)
            && near + errors::failure_offset(&error) == failed_at
        {
            return errors::diagnostic(&error, base, text, near, errors::Input::Script);
        }
    }
    let rest = &text[start..];
    let error = pest_run::parse(Rule::file, rest, Detail::On)
        .expect_err("a text that failed to parse fails again");
    errors::diagnostic(&error, base, text, start, errors::Input::Script)
}

struct Loader {
    sources: SourceMap,
    files: Vec<Option<File>>,
    diagnostics: Vec<Diagnostic>,
    /// Canonical paths of the files being loaded, outermost first.
    chain: Vec<PathBuf>,
    /// Polled between declarations; once it has stopped, no more files
    /// are read.
    ticker: Ticker,
    /// Files read from here, not the disk ([`load_text_at_within`]).
    open: OpenFiles,
}

impl Loader {
    fn new(meter: &Meter) -> Loader {
        Loader {
            sources: SourceMap::default(),
            files: Vec::new(),
            diagnostics: Vec::new(),
            chain: Vec::new(),
            ticker: Ticker::new(meter.clone(), LOAD_POLL_EVERY),
            open: OpenFiles::default(),
        }
    }

    fn finish(self, root: Option<FileId>) -> Result<Program, LoadError> {
        if let Some(reason) = self.ticker.stopped() {
            return Err(LoadError {
                sources: self.sources,
                diagnostics: self.diagnostics,
                stopped: Some(LoadStopped {
                    reason,
                    stage: LoadStage::Parsing,
                }),
            });
        }
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
            _ => Err(LoadError::refused(self.sources, self.diagnostics)),
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
        let limit = self.sources.room().saturating_sub(1);
        let canonical = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
        let held = self.open.get(&canonical).map(|text| read::Contents {
            bytes: text.clone().into_bytes(),
            device: false,
        });
        let problem = match held.map_or_else(|| read::read(path, limit), Ok) {
            Ok(contents) if included_from.is_none() && read::is_blank(&contents) => {
                Err(format!("`{name}` is empty: there is no script in it"))
            }
            Ok(contents) => Ok(contents.bytes),
            Err(e) => Err(format!(
                "cannot read `{name}`: {}",
                e.reason(MAX_SOURCE_BYTES)
            )),
        };
        let bytes = match problem {
            Ok(bytes) => bytes,
            Err(message) => {
                self.diagnostics.push(match included_from {
                    Some(site) => Diagnostic::error(site, message),
                    None => Diagnostic::error_nowhere(message),
                });
                return None;
            }
        };
        // A script in a legacy 8-bit encoding is read as FDR reads it; a
        // binary file's NUL bytes are reported by the lexical check.
        let text = encoding::decode(bytes);
        let id = self
            .sources
            .add(name, Some(path.to_path_buf()), text, included_from);
        self.chain.push(canonical);
        self.parse(id);
        self.chain.pop();
        Some(id)
    }

    fn parse(&mut self, id: FileId) {
        if self.ticker.stopped().is_some() {
            return;
        }
        let source = self.sources.file(id);
        match parse_decls_within(source.base, &source.text, &mut self.ticker) {
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

/// Whether the regular file at `path` holds nothing but white space,
/// which [`load_file`] refuses: for callers that look before loading.
/// Anything else (a pipe, a device, a missing file) is left to the
/// loader, which reads it once.
pub fn empty_file(path: &Path) -> Option<&'static str> {
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return None;
    }
    let contents = read::read(path, MAX_SOURCE_BYTES).ok()?;
    read::is_blank(&contents).then_some("the file is empty: there is no script in it")
}

#[cfg(test)]
mod tests {
    use super::*;

    // Spans take no part in `==`, so the trees are compared through their
    // debug form, which shows every span.
    fn same_with_spans(a: &[Decl], b: &[Decl]) -> bool {
        format!("{a:?}") == format!("{b:?}")
    }

    /// Modules (which the fast parser leaves to pest) among ordinary
    /// declarations, with declarations in the first column inside them
    /// (restart points within a construct).
    const MIXED: &str = "P = a -> STOP\n\
        module M\nx = 1\ny = 2\nexports\nz = x + y\nendmodule\n\
        Q = P [] b -> SKIP\n  |~| STOP\n\
        instance N = M\n\
        R(n) = if n == 0 then STOP else c!n -> R(n - 1)\n";

    #[test]
    fn the_mixed_parse_gives_exactly_the_whole_text_parse() {
        let text = format!(
            "{}{}",
            include_str!("../../models/liststack.csp"),
            MIXED.repeat(50)
        );
        let mixed = parse_decls(7, &text).expect("the text parses");
        let whole = parse_decls_with_pest(7, &text).expect("the text parses");
        assert!(same_with_spans(&mixed, &whole));
    }

    #[test]
    fn every_error_is_reported_once_where_it_is() {
        let text = format!(
            "{}P = a -> \nQ = STOP\n{}X = 1 2\n{}Y = STOP [] \n",
            MIXED.repeat(20),
            MIXED.repeat(20),
            MIXED.repeat(20)
        );
        let mut sources = SourceMap::new();
        let id = sources.add("m.csp", None, text.clone(), None);
        let errors = parse_decls(sources.base(id), &text).expect_err("the text has errors");
        let lines: Vec<usize> = errors
            .iter()
            .map(|d| sources.location(d.span.expect("a place")).line)
            .collect();
        let line_of = |needle: &str| text[..text.find(needle).unwrap()].lines().count() + 1;
        assert_eq!(
            lines,
            [
                line_of("Q = STOP"),
                line_of("X = 1 2"),
                line_of("Y = STOP []")
            ],
            "{errors:#?}"
        );
    }
}
