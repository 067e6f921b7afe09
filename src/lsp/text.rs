//! Places as an editor names them: documents by `file://` URI, positions
//! by line and UTF-16 code unit (the protocol's default). Converts them
//! to and from the source map's byte positions.

use std::path::{Path, PathBuf};
use std::str::FromStr;

use lsp_types::{Position, Range, Uri};

use crate::syntax::{SourceFile, SourceMap, Span, floor_char_boundary};

/// The path a `file://` URI names, percent-decoded; `None` for another
/// scheme.
pub fn uri_path(uri: &Uri) -> Option<PathBuf> {
    let text = uri.as_str();
    let rest = text.strip_prefix("file://")?;
    // `file:///home/x` (empty authority) or `file://localhost/home/x`.
    let path = rest.strip_prefix("localhost").unwrap_or(rest);
    let bytes = path.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (bytes[i], bytes.get(i + 1), bytes.get(i + 2)) {
            (b'%', Some(&h), Some(&l)) if hex(h).is_some() && hex(l).is_some() => {
                decoded.push((hex(h).unwrap_or(0) * 16 + hex(l).unwrap_or(0)) as u8);
                i += 3;
            }
            (b, _, _) => {
                decoded.push(b);
                i += 1;
            }
        }
    }
    Some(PathBuf::from(
        String::from_utf8_lossy(&decoded).into_owned(),
    ))
}

/// The `file://` URI of `path`, its bytes percent-encoded where a URI
/// path may not hold them.
pub fn path_uri(path: &Path) -> Uri {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut text = String::from("file://");
    for &b in absolute.to_string_lossy().as_bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            text.push(b as char);
        } else {
            text.push_str(&format!("%{b:02X}"));
        }
    }
    Uri::from_str(&text).expect("an encoded file path is a URI")
}

/// The byte offset in `text` of the protocol's `position`: past the end
/// of a line is its end, past the last line the text's end.
pub fn offset(text: &str, position: Position) -> usize {
    let mut line_start = 0;
    for _ in 0..position.line {
        match text[line_start..].find('\n') {
            Some(i) => line_start += i + 1,
            None => return text.len(),
        }
    }
    let line_end = text[line_start..]
        .find('\n')
        .map_or(text.len(), |i| line_start + i);
    let mut units = 0;
    for (i, c) in text[line_start..line_end].char_indices() {
        if units >= position.character as usize {
            return line_start + i;
        }
        units += c.len_utf16();
    }
    line_end
}

/// The protocol's position of byte `offset` of a loaded file, found by
/// its line table (not by reading the text from its start).
pub fn file_position(file: &SourceFile, offset: usize) -> Position {
    let offset = floor_char_boundary(&file.text, offset);
    let (line, start) = file.line_and_start(offset);
    let character = file.text[start..offset].encode_utf16().count();
    Position::new(line as u32, character as u32)
}

/// The byte offset in a loaded file of the protocol's `position`, as
/// [`offset`] finds it, by the file's line table.
pub fn file_offset(file: &SourceFile, position: Position) -> usize {
    match file.line_start(position.line as usize) {
        Some(start) => start + offset(&file.text[start..], Position::new(0, position.character)),
        None => file.text.len(),
    }
}

/// Where `span` is, as the editor names it: the document `document`
/// (the source map's first file) by its own URI, another file by its
/// path; `None` for a file with no path (symcsp's own helpers).
pub fn location(document: &Uri, sources: &SourceMap, span: Span) -> Option<lsp_types::Location> {
    let (file, range) = file_range(sources, span);
    let uri = match sources.file_of(span) {
        0 => document.clone(),
        _ => path_uri(file.path.as_ref()?),
    };
    Some(lsp_types::Location::new(uri, range))
}

/// The file a span lies in and its range there.
pub fn file_range(sources: &SourceMap, span: Span) -> (&SourceFile, Range) {
    let file = sources.file(sources.file_of(span));
    let start = file.offset(span.start);
    let end = file.offset(span.end.max(span.start));
    (
        file,
        Range::new(file_position(file, start), file_position(file, end)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The position of byte `offset` of `text`, counted from the start:
    /// what [`file_position`] finds by the line table.
    fn position(text: &str, offset: usize) -> Position {
        let offset = floor_char_boundary(text, offset);
        let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
        let line = text[..line_start].matches('\n').count();
        let character = text[line_start..offset].encode_utf16().count();
        Position::new(line as u32, character as u32)
    }

    #[test]
    fn positions_count_utf16_units_and_round_trip() {
        let text = "α = 1\n-- 𝄞 x\nP = STOP";
        // `x` on line 1: `-- ` (3), the clef (2 units, 4 bytes), space.
        let x = text.find('x').unwrap();
        assert_eq!(position(text, x), Position::new(1, 6));
        assert_eq!(offset(text, Position::new(1, 6)), x);
        for at in (0..=text.len()).filter(|&i| text.is_char_boundary(i)) {
            assert_eq!(offset(text, position(text, at)), at, "offset {at}");
        }
        // Past a line's end, and past the last line.
        assert_eq!(offset(text, Position::new(0, 99)), text.find('\n').unwrap());
        assert_eq!(offset(text, Position::new(9, 0)), text.len());
        // The same by a loaded file's line table.
        let mut sources = SourceMap::default();
        let id = sources.add("t.csp", None, text.to_string(), None);
        let file = sources.file(id);
        for at in (0..=text.len()).filter(|&i| text.is_char_boundary(i)) {
            assert_eq!(file_position(file, at), position(text, at), "offset {at}");
            assert_eq!(file_offset(file, position(text, at)), at, "offset {at}");
        }
        assert_eq!(
            file_offset(file, Position::new(0, 99)),
            text.find('\n').unwrap()
        );
        assert_eq!(file_offset(file, Position::new(9, 0)), text.len());
    }

    #[test]
    fn file_uris_round_trip_with_odd_characters() {
        let path = Path::new("/tmp/a dir/ünï%code.csp");
        let uri = path_uri(path);
        assert_eq!(uri.as_str(), "file:///tmp/a%20dir/%C3%BCn%C3%AF%25code.csp");
        assert_eq!(uri_path(&uri).as_deref(), Some(path));
        let other = Uri::from_str("untitled:Untitled-1").unwrap();
        assert_eq!(uri_path(&other), None);
    }
}
