//! Source text and positions: the files of a script (the root file and
//! everything it includes), byte spans into them, and the translation of a
//! byte offset into the line and column a person reads.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::path::PathBuf;

/// Index of a file in a [`SourceMap`].
pub type FileId = u32;

/// A byte range `start..end` in the positions of a [`SourceMap`].
///
/// Every file of a map occupies its own range of positions, from its
/// [`base`](SourceMap::base) on, so a span names its file without storing
/// it (as in rustc): eight bytes on every node of the syntax tree.
///
/// Spans record *where* a node came from, never *what* it is: two spans
/// always compare equal and hash alike, so that syntax trees compare
/// structurally (a script and its pretty-printed re-parse are `==`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    /// Bytes `start..end` of a text whose first byte is at position
    /// `base`.
    pub fn new(base: u32, start: usize, end: usize) -> Self {
        let at = |offset: usize| base.saturating_add(u32::try_from(offset).unwrap_or(u32::MAX));
        Span {
            start: at(start),
            end: at(end),
        }
    }

    /// The smallest span covering both (which must be in the same file).
    pub fn to(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.start >= self.end
    }
}

impl PartialEq for Span {
    fn eq(&self, _: &Span) -> bool {
        true
    }
}

impl Eq for Span {}

impl Hash for Span {
    fn hash<H: Hasher>(&self, _: &mut H) {}
}

/// One loaded file.
#[derive(Debug)]
pub struct SourceFile {
    /// The name shown in diagnostics: the path as the user gave it, or as
    /// resolved from the including file.
    pub name: String,
    /// Where it was read from, when it came from disk.
    pub path: Option<PathBuf>,
    pub text: String,
    /// The `include` that brought this file in, if any.
    pub included_from: Option<Span>,
    /// The position of its first byte in the map.
    pub base: u32,
    line_starts: Vec<u32>,
}

impl SourceFile {
    /// The byte offset in this file of a position in the map (clamped to
    /// the file).
    pub fn offset(&self, position: u32) -> usize {
        (position.saturating_sub(self.base) as usize).min(self.text.len())
    }

    /// 1-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let line = match self.line_starts.binary_search(&(offset as u32)) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = self.line_starts[line] as usize;
        let col = char_count(&self.text, start, offset) + 1;
        (line + 1, col)
    }

    /// The text of a 1-based line, without its line terminator.
    pub fn line_text(&self, line: usize) -> &str {
        let start = self.line_starts[line - 1] as usize;
        let end = self
            .line_starts
            .get(line)
            .map(|&e| e as usize)
            .unwrap_or(self.text.len());
        self.text[start..end].trim_end_matches(['\n', '\r'])
    }

    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }

    /// The 0-based line of a byte offset and the offset its line starts
    /// at.
    pub fn line_and_start(&self, offset: usize) -> (usize, usize) {
        let line = self
            .line_starts
            .partition_point(|&start| start as usize <= offset)
            .saturating_sub(1);
        (line, self.line_starts[line] as usize)
    }

    /// The byte offset 0-based line `line` starts at, if there is one.
    pub fn line_start(&self, line: usize) -> Option<usize> {
        self.line_starts.get(line).map(|&start| start as usize)
    }
}

/// Number of characters in `text[start..end]`, tolerating offsets that do
/// not fall on a character boundary (they are rounded down).
fn char_count(text: &str, start: usize, end: usize) -> usize {
    let mut end = end;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[start..end].chars().count()
}

/// All files of one script.
#[derive(Debug, Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
    /// The base of the next file added.
    next_base: u32,
}

/// The most text, over all its files, that one script may have: 256 MiB.
/// Its tree takes about 13 times as much (3.4 GB), and positions, 32
/// bits, would allow 2 GiB.
pub const MAX_SOURCE_BYTES: usize = 256 << 20;

impl SourceMap {
    pub fn new() -> Self {
        SourceMap::default()
    }

    /// Whether a file of `len` bytes fits in the map beside those it holds
    /// ([`MAX_SOURCE_BYTES`] in all).
    pub fn has_room_for(&self, len: usize) -> bool {
        len < self.room()
    }

    /// How many bytes a file added now may have at most, plus one.
    pub fn room(&self) -> usize {
        MAX_SOURCE_BYTES.saturating_sub(self.next_base as usize)
    }

    /// Adds a file and gives it the next free range of positions (a file
    /// that does not fit, as [`has_room_for`](Self::has_room_for) tells,
    /// gets positions that clamp at the end of the range).
    pub fn add(
        &mut self,
        name: impl Into<String>,
        path: Option<PathBuf>,
        text: String,
        included_from: Option<Span>,
    ) -> FileId {
        let mut line_starts = vec![0];
        line_starts.extend(
            text.bytes()
                .enumerate()
                .filter(|&(_, b)| b == b'\n')
                .map(|(i, _)| (i + 1) as u32),
        );
        let base = self.next_base;
        // One position past the end, so that a span at a file's end still
        // names that file.
        self.next_base =
            u32::try_from(text.len() + 1).map_or(u32::MAX, |len| base.saturating_add(len));
        self.files.push(SourceFile {
            name: name.into(),
            path,
            text,
            included_from,
            base,
            line_starts,
        });
        (self.files.len() - 1) as FileId
    }

    pub fn file(&self, id: FileId) -> &SourceFile {
        &self.files[id as usize]
    }

    pub fn files(&self) -> impl Iterator<Item = (FileId, &SourceFile)> {
        self.files.iter().enumerate().map(|(i, f)| (i as FileId, f))
    }

    /// Where a file's positions start.
    pub fn base(&self, id: FileId) -> u32 {
        self.file(id).base
    }

    /// The file a span lies in.
    pub fn file_of(&self, span: Span) -> FileId {
        let after = self.files.partition_point(|f| f.base <= span.start);
        after.saturating_sub(1) as FileId
    }

    /// The source text a span covers.
    pub fn snippet(&self, span: Span) -> &str {
        let file = self.file(self.file_of(span));
        file.text
            .get(file.offset(span.start)..file.offset(span.end))
            .unwrap_or("")
    }

    /// `file:line:col` of the start of a span.
    pub fn location(&self, span: Span) -> Location<'_> {
        let file = self.file(self.file_of(span));
        let (line, col) = file.line_col(file.offset(span.start));
        Location {
            file: &file.name,
            line,
            col,
        }
    }
}

/// A printable `file:line:col`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Location<'a> {
    pub file: &'a str,
    pub line: usize,
    pub col: usize,
}

impl fmt::Display for Location<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.col)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column_are_one_based_and_count_characters() {
        let mut map = SourceMap::new();
        let id = map.add("t.csp", None, "ab\nλx = 1\n".to_string(), None);
        let file = map.file(id);
        assert_eq!(file.line_col(0), (1, 1));
        assert_eq!(file.line_col(2), (1, 3));
        assert_eq!(file.line_col(3), (2, 1));
        // 'λ' is two bytes: 'x' is the second character of line 2.
        assert_eq!(file.line_col(5), (2, 2));
        assert_eq!(file.line_text(2), "λx = 1");
        assert_eq!(file.line_count(), 3);
    }

    #[test]
    fn spans_never_take_part_in_equality() {
        assert_eq!(Span::new(0, 1, 2), Span::new(3, 4, 5));
    }

    #[test]
    fn each_file_has_its_own_positions() {
        let mut map = SourceMap::new();
        let a = map.add("a.csp", None, "P = STOP\n".to_string(), None);
        let b = map.add("b.csp", None, "Q = SKIP\n".to_string(), None);
        let empty = map.add("c.csp", None, String::new(), None);
        let q = Span::new(map.base(b), 0, 1);
        assert_eq!(
            (map.file_of(Span::new(map.base(a), 9, 9)), map.file_of(q)),
            (a, b)
        );
        assert_eq!(map.snippet(Span::new(map.base(b), 4, 8)), "SKIP");
        assert_eq!(map.location(q).to_string(), "b.csp:1:1");
        assert_eq!(map.file_of(Span::new(map.base(empty), 0, 0)), empty);
    }
}
