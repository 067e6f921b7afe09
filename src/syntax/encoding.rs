//! Reading a script's bytes as text.
//!
//! Scripts are UTF-8 today, but many were written on Windows or in
//! Latin-1 editors and carry a stray `é` or `’` in a comment or a string.
//! FDR reads them, so symcsp does too: a file that is not UTF-8 is read
//! as Windows-1252 (Latin-1 with printable characters where Latin-1 has
//! control codes), which never fails.

/// The characters Windows-1252 puts at 0x80..=0x9F; the five codes it
/// leaves undefined keep their Latin-1 meaning (a control character).
const WINDOWS_1252_HIGH: [char; 32] = [
    '€', '\u{81}', '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', '\u{8D}', 'Ž', '\u{8F}',
    '\u{90}', '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', '\u{9D}', 'ž', 'Ÿ',
];

/// The text of a script's bytes: UTF-8 when they are, Windows-1252
/// otherwise.
pub(super) fn decode(bytes: Vec<u8>) -> String {
    match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => e.into_bytes().into_iter().map(windows_1252).collect(),
    }
}

fn windows_1252(byte: u8) -> char {
    match byte {
        0x80..=0x9F => WINDOWS_1252_HIGH[usize::from(byte - 0x80)],
        _ => char::from(byte),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_is_read_as_it_is() {
        assert_eq!(decode("café ’".as_bytes().to_vec()), "café ’");
    }

    #[test]
    fn other_bytes_are_windows_1252() {
        assert_eq!(decode(b"caf\xe9 \x92x\x81".to_vec()), "café ’x\u{81}");
        assert_eq!(decode(b"\x80\x9f\xa0\xff".to_vec()), "€Ÿ\u{a0}ÿ");
    }
}
