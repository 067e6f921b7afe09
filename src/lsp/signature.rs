//! Signature help: inside `f(…, |` the type of `f` as FDR prints it,
//! with the argument being written picked out. The call is found in the
//! text as the editor has it (half written, perhaps); the type is the
//! last load's, where that load knows it ([`Types::known_type_of`]).

use lsp_types::{ParameterInformation, ParameterLabel, SignatureHelp, SignatureInformation};

use super::navigate::Document;
use crate::script::builtins::Builtin;

/// The call around a place in a text: the function's name, which of its
/// brackets (`f(x)(y)`: 0, then 1) and which argument in it.
#[derive(Debug, PartialEq, Eq)]
pub struct Call {
    pub name: String,
    pub bracket: usize,
    pub argument: usize,
}

/// A bracket open at the place being read.
struct Open {
    /// `(` after a name (or after a call's closing bracket): the call.
    call: Option<(String, usize)>,
    commas: usize,
}

/// The innermost call whose brackets are open at byte `at` of `text`:
/// comments, strings and characters skipped, `{…}`, `[…]` and `(|…|)`
/// counted as brackets whose commas are not the call's.
pub fn call_at(text: &str, at: usize) -> Option<Call> {
    let bytes = &text.as_bytes()[..at.min(text.len())];
    let mut open: Vec<Open> = Vec::new();
    // The name just read (and nothing but spaces since), or the call
    // whose bracket just closed.
    let mut word: Option<String> = None;
    let mut closed: Option<(String, usize)> = None;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let rest = &bytes[i..];
        if rest.starts_with(b"--") {
            i += rest.iter().position(|&c| c == b'\n').unwrap_or(rest.len());
            continue;
        }
        if rest.starts_with(b"{-") {
            i += find(rest, b"-}").map_or(rest.len(), |end| end + 2);
            continue;
        }
        if b == b'"' || (b == b'\'' && word.is_none()) {
            let mut j = i + 1;
            while j < bytes.len() && bytes[j] != b {
                j += if bytes[j] == b'\\' { 2 } else { 1 };
            }
            i = j + 1;
            word = None;
            closed = None;
            continue;
        }
        if b.is_ascii_alphabetic() || b == b'_' {
            let start = i;
            while i < bytes.len() && is_name_byte(bytes[i]) {
                i += 1;
                // A module's member: `M::f`.
                if bytes[i..].starts_with(b"::") {
                    i += 2;
                }
            }
            word = Some(text[start..i].to_string());
            closed = None;
            continue;
        }
        if b.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        match b {
            b'(' if rest.starts_with(b"(|") => {
                open.push(Open {
                    call: None,
                    commas: 0,
                });
                i += 1;
            }
            b'(' => {
                let call = match (word.take(), closed.take()) {
                    (Some(name), _) => Some((name, 0)),
                    (None, Some((name, bracket))) => Some((name, bracket + 1)),
                    (None, None) => None,
                };
                open.push(Open { call, commas: 0 });
            }
            b'|' if rest.starts_with(b"|)") => {
                open.pop();
                i += 1;
            }
            b'{' | b'[' => open.push(Open {
                call: None,
                commas: 0,
            }),
            b')' | b'}' | b']' => {
                let frame = open.pop();
                i += 1;
                word = None;
                closed = frame.and_then(|f| f.call).filter(|_| b == b')');
                continue;
            }
            b',' => {
                if let Some(frame) = open.last_mut() {
                    frame.commas += 1;
                }
            }
            _ => {}
        }
        word = None;
        closed = None;
        i += 1;
    }
    open.iter().rev().find_map(|frame| {
        let (name, bracket) = frame.call.clone()?;
        Some(Call {
            name,
            bracket,
            argument: frame.commas,
        })
    })
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'\''
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// The argument types of the `bracket`-th bracket of a function type as
/// FDR prints it (`(Int, {a}) -> (Bool) -> Proc`), each as its byte
/// range in `ty`.
fn argument_ranges(ty: &str, bracket: usize) -> Option<Vec<(usize, usize)>> {
    // After the classes its variables must be in (`Eq a => `, `(Eq a,
    // Ord b) => `), if any.
    let mut from = match ty.find(" => ") {
        Some(arrow) if starts_with_class(&ty[..arrow]) => arrow + 4,
        _ => 0,
    };
    for _ in 0..bracket {
        let close = matching_close(ty, from)?;
        from = close + 1 + ty[close + 1..].find("-> ")? + 3;
    }
    let close = matching_close(ty, from)?;
    let mut ranges = Vec::new();
    let mut depth = 0;
    let mut start = from + 1;
    for (i, c) in ty[from + 1..close].char_indices() {
        let i = from + 1 + i;
        match c {
            '(' | '{' | '<' | '[' => depth += 1,
            ')' | '}' | '>' | ']' => depth -= 1,
            ',' if depth == 0 => {
                ranges.push((start, i));
                start = i + 2;
            }
            _ => {}
        }
    }
    if start < close {
        ranges.push((start, close));
    }
    Some(ranges)
}

/// Whether `text` starts with the name of a class (`Eq a`, `(Ord b, …`).
fn starts_with_class(text: &str) -> bool {
    let text = text.trim_start_matches('(');
    let name = text.split(' ').next().unwrap_or_default();
    crate::types::Class::from_name(name).is_some()
}

/// The bracket closing the `(` at byte `open` of `ty` (which must be
/// one), with `=>` and `->` not taken for brackets.
fn matching_close(ty: &str, open: usize) -> Option<usize> {
    if !ty[open..].starts_with('(') {
        return None;
    }
    let mut depth = 0;
    let bytes = ty.as_bytes();
    for (i, &b) in bytes.iter().enumerate().skip(open) {
        let arrow = i > 0 && matches!(bytes[i - 1], b'-' | b'=');
        match b {
            b'(' | b'{' | b'[' => depth += 1,
            b'<' => depth += 1,
            b'>' if !arrow => depth -= 1,
            b')' | b'}' | b']' => depth -= 1,
            _ => {}
        }
        if depth == 0 {
            return Some(i);
        }
    }
    None
}

/// UTF-16 offset of byte `at` of `text`, as the protocol counts.
fn utf16(text: &str, at: usize) -> u32 {
    text[..at].encode_utf16().count() as u32
}

impl Document<'_> {
    /// The signature of the call around byte `at` of `current` (the
    /// document as the editor has it).
    pub fn signature_help(&mut self, current: &str, at: usize) -> Option<SignatureHelp> {
        let call = call_at(current, at)?;

        let types = self.types.as_deref_mut()?;
        let ty = match self.script.lookup(&call.name) {
            Some(named) => types.known_type_of(self.script, named)?,
            None => types.builtin_type(self.script, Builtin::lookup(&call.name)?),
        };
        let label = format!("{} :: {ty}", call.name);
        let shift = label.len() - ty.len();
        let ranges = argument_ranges(&ty, call.bracket)?;
        let parameters = ranges
            .iter()
            .map(|&(start, end)| ParameterInformation {
                label: ParameterLabel::LabelOffsets([
                    utf16(&label, shift + start),
                    utf16(&label, shift + end),
                ]),
                documentation: None,
            })
            .collect::<Vec<_>>();
        let active = (call.argument < parameters.len()).then_some(call.argument as u32);
        Some(SignatureHelp {
            signatures: vec![SignatureInformation {
                label,
                documentation: None,
                parameters: Some(parameters),
                active_parameter: active,
            }],
            active_signature: Some(0),
            active_parameter: active,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(text: &str) -> Option<(String, usize, usize)> {
        let at = text.find('‸').expect("a cursor");
        let text = text.replacen('‸', "", 1);
        call_at(&text, at).map(|c| (c.name, c.bracket, c.argument))
    }

    #[test]
    fn the_call_around_the_cursor_is_found_with_its_argument() {
        assert_eq!(call("P = f(‸"), Some(("f".into(), 0, 0)));
        assert_eq!(call("P = f(1, g(2), ‸"), Some(("f".into(), 0, 2)));
        assert_eq!(call("P = f(1, g(2, ‸"), Some(("g".into(), 0, 1)));
        assert_eq!(call("P = f({1, 2}, <3>, ‸"), Some(("f".into(), 0, 2)));
        assert_eq!(call("P = M::f (x)(‸"), Some(("M::f".into(), 1, 0)));
        assert_eq!(call("P = f(\"a, (b\", 'c', ‸"), Some(("f".into(), 0, 2)));
        assert_eq!(
            call("P = f(1, -- a comment (\n {- (, -} ‸"),
            Some(("f".into(), 0, 1))
        );
        assert_eq!(
            call("P = f((| 1 => 2, 3 => 4 |), ‸"),
            Some(("f".into(), 0, 1))
        );
        assert_eq!(call("P = (1, ‸"), None);
        assert_eq!(call("P = f(1) + ‸"), None);
    }

    #[test]
    fn each_argument_of_a_printed_type_is_found() {
        let ty = "(Int, {a}, (Int, Bool)) -> (<Int>) -> Proc";
        let shown = |bracket| {
            argument_ranges(ty, bracket)
                .unwrap()
                .iter()
                .map(|&(s, e)| &ty[s..e])
                .collect::<Vec<_>>()
        };
        assert_eq!(shown(0), ["Int", "{a}", "(Int, Bool)"]);
        assert_eq!(shown(1), ["<Int>"]);
        assert_eq!(argument_ranges(ty, 2), None);
        assert_eq!(
            argument_ranges("(Int=>Event) -> Proc", 0).unwrap(),
            [(1, 11)]
        );
        assert_eq!(argument_ranges("Int", 0), None);
        let constrained = "(Eq a, Ord b) => ({a}, b) -> Int";
        let ranges = argument_ranges(constrained, 0).unwrap();
        assert_eq!(&constrained[ranges[0].0..ranges[0].1], "{a}");
        assert_eq!(&constrained[ranges[1].0..ranges[1].1], "b");
    }
}
