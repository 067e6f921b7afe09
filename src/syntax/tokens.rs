//! The tokens of CSPM, read one at a time for the fast parser
//! (`descent.rs`).
//!
//! The tokens are the grammar's lexemes (`grammar/cspm.pest`) cut the way
//! its negative lookaheads cut them: `<->` before `<-` before `<`, `|||`
//! before `||` before `|`, `(|` only where the grammar opens a map, and so
//! on. Each token records what the layout rules need: whether a newline
//! stands between it and the previous token, and where pest's implicit
//! white-space skip after the previous token stops (the end of a pest
//! span that finishes with an optional part).
//!
//! Texts the grammar reads in a context-dependent way that a plain token
//! cannot express (a keyword operator with primes glued on, `{||`) come
//! out as [`Tok::Bad`]; the fast parser then gives up and pest decides.

use super::lexical::{block_comment_end, line_end};

/// The kind of a token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Tok {
    /// A name, possibly qualified (`M::x`).
    Ident,
    Int,
    Str,
    Char,
    Wildcard,
    True,
    False,
    // Keywords.
    And,
    Or,
    Not,
    If,
    Then,
    Else,
    Let,
    Within,
    Channel,
    Datatype,
    Subtype,
    Nametype,
    External,
    Transparent,
    Assert,
    Include,
    Print,
    Module,
    Exports,
    Endmodule,
    Instance,
    // Brackets.
    LParen,
    RParen,
    LBrace,
    RBrace,
    LSquare,
    RSquare,
    /// `(|`
    MapOpen,
    /// `|)`
    MapClose,
    /// `{|`
    ProdOpen,
    /// `|}`
    ProdClose,
    /// `[[` (a renaming closes with two `]` tokens side by side)
    RenameOpen,
    /// `[|`
    GenParOpen,
    /// `|]`
    GenParClose,
    /// `|>`
    ExceptionClose,
    /// `[+`
    SyncChoiceOpen,
    /// `+]`
    SyncChoiceClose,
    /// `/+`
    SyncInterruptOpen,
    /// `+\`
    SyncInterruptClose,
    // Punctuation and operators.
    Comma,
    Bar,
    DotDot,
    Dot,
    Define,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Plus,
    Minus,
    Times,
    Div,
    Mod,
    Concat,
    Hash,
    Arrow,
    Amp,
    Semi,
    /// `[]`
    ExtChoice,
    /// `|~|`
    IntChoice,
    /// `|||`
    Interleave,
    /// `||`
    Parallel,
    /// `/\`
    Interrupt,
    /// `[>`
    Sliding,
    /// `|\`
    Project,
    Backslash,
    Question,
    Bang,
    Dollar,
    Colon,
    DoubleColon,
    /// `:[`
    PropertyOpen,
    At,
    DoubleAt,
    /// `<-`
    Drawn,
    /// `<->`
    Tie,
    /// `=>`
    FatArrow,
    /// `[T=`, `[FD=`, ...
    Refine,
    Eof,
    Bad,
}

#[derive(Clone, Copy, Debug)]
pub(super) struct Token {
    pub kind: Tok,
    pub start: u32,
    pub end: u32,
    /// A newline (outside comments) stands between the previous token and
    /// this one.
    pub nl_before: bool,
    /// Where pest's white-space skip after the previous token stops: the
    /// first newline after it, or this token's start.
    pub trail_before: u32,
}

/// Reads tokens on demand. Copying a lexer saves its position.
#[derive(Clone, Copy)]
pub(super) struct Lexer<'t> {
    text: &'t str,
    pos: usize,
}

/// The keyword a word is, if any.
fn keyword(word: &str) -> Option<Tok> {
    Some(match word {
        "and" => Tok::And,
        "or" => Tok::Or,
        "not" => Tok::Not,
        "if" => Tok::If,
        "then" => Tok::Then,
        "else" => Tok::Else,
        "let" => Tok::Let,
        "within" => Tok::Within,
        "true" => Tok::True,
        "false" => Tok::False,
        "channel" => Tok::Channel,
        "datatype" => Tok::Datatype,
        "subtype" => Tok::Subtype,
        "nametype" => Tok::Nametype,
        "external" => Tok::External,
        "transparent" => Tok::Transparent,
        "assert" => Tok::Assert,
        "include" => Tok::Include,
        "print" => Tok::Print,
        "module" => Tok::Module,
        "exports" => Tok::Exports,
        "endmodule" => Tok::Endmodule,
        "instance" => Tok::Instance,
        _ => return None,
    })
}

/// The operator or bracket at the start of `rest` and its length, longest
/// first as the grammar's lookaheads cut them (`<->` before `<-` before
/// `<`). A slice match compiles to a decision on the first bytes rather
/// than a string comparison per symbol.
fn symbol_at(rest: &[u8]) -> Option<(usize, Tok)> {
    Some(match rest {
        [b'[', b'F' | b'R' | b'V', b'D', b'=', ..] => (4, Tok::Refine),
        [b'<', b'-', b'>', ..] => (3, Tok::Tie),
        [b'|', b'|', b'|', ..] => (3, Tok::Interleave),
        [b'|', b'~', b'|', ..] => (3, Tok::IntChoice),
        [b'[', b'F' | b'T' | b'R' | b'V', b'=', ..] => (3, Tok::Refine),
        [b'[', b'[', ..] => (2, Tok::RenameOpen),
        [b'[', b'|', ..] => (2, Tok::GenParOpen),
        [b'[', b']', ..] => (2, Tok::ExtChoice),
        [b'[', b'>', ..] => (2, Tok::Sliding),
        [b'[', b'+', ..] => (2, Tok::SyncChoiceOpen),
        [b'|', b'|', ..] => (2, Tok::Parallel),
        [b'|', b']', ..] => (2, Tok::GenParClose),
        [b'|', b'}', ..] => (2, Tok::ProdClose),
        [b'|', b')', ..] => (2, Tok::MapClose),
        [b'|', b'>', ..] => (2, Tok::ExceptionClose),
        [b'|', b'\\', ..] => (2, Tok::Project),
        [b':', b':', ..] => (2, Tok::DoubleColon),
        [b':', b'[', ..] => (2, Tok::PropertyOpen),
        [b'=', b'=', ..] => (2, Tok::Eq),
        [b'=', b'>', ..] => (2, Tok::FatArrow),
        [b'!', b'=', ..] => (2, Tok::Ne),
        [b'<', b'-', ..] => (2, Tok::Drawn),
        [b'<', b'=', ..] => (2, Tok::Le),
        [b'>', b'=', ..] => (2, Tok::Ge),
        [b'-', b'>', ..] => (2, Tok::Arrow),
        [b'+', b']', ..] => (2, Tok::SyncChoiceClose),
        [b'+', b'\\', ..] => (2, Tok::SyncInterruptClose),
        [b'/', b'\\', ..] => (2, Tok::Interrupt),
        [b'/', b'+', ..] => (2, Tok::SyncInterruptOpen),
        [b'@', b'@', ..] => (2, Tok::DoubleAt),
        [b'.', b'.', ..] => (2, Tok::DotDot),
        [b'(', ..] => (1, Tok::LParen),
        [b')', ..] => (1, Tok::RParen),
        [b'{', ..] => (1, Tok::LBrace),
        [b'}', ..] => (1, Tok::RBrace),
        [b'[', ..] => (1, Tok::LSquare),
        [b']', ..] => (1, Tok::RSquare),
        [b'|', ..] => (1, Tok::Bar),
        [b':', ..] => (1, Tok::Colon),
        [b'=', ..] => (1, Tok::Define),
        [b'!', ..] => (1, Tok::Bang),
        [b'<', ..] => (1, Tok::Lt),
        [b'>', ..] => (1, Tok::Gt),
        [b'-', ..] => (1, Tok::Minus),
        [b'+', ..] => (1, Tok::Plus),
        [b'/', ..] => (1, Tok::Div),
        [b'@', ..] => (1, Tok::At),
        [b'.', ..] => (1, Tok::Dot),
        [b'*', ..] => (1, Tok::Times),
        [b'%', ..] => (1, Tok::Mod),
        [b'^', ..] => (1, Tok::Concat),
        [b'#', ..] => (1, Tok::Hash),
        [b'&', ..] => (1, Tok::Amp),
        [b';', ..] => (1, Tok::Semi),
        [b',', ..] => (1, Tok::Comma),
        [b'?', ..] => (1, Tok::Question),
        [b'$', ..] => (1, Tok::Dollar),
        [b'\\', ..] => (1, Tok::Backslash),
        _ => return None,
    })
}

fn is_ident_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

impl<'t> Lexer<'t> {
    pub(super) fn new(text: &'t str) -> Self {
        Lexer { text, pos: 0 }
    }

    pub(super) fn text(&self) -> &'t str {
        self.text
    }

    /// The next token.
    pub(super) fn next_token(&mut self) -> Token {
        let (nl_before, trail_before) = self.skip_gap();
        let start = self.pos;
        let kind = self.scan();
        if self.pos == start && kind != Tok::Eof {
            // Every token but the end advances, so a reader that skips bad
            // tokens cannot loop.
            self.pos += self.text[start..].chars().next().map_or(1, char::len_utf8);
        }
        Token {
            kind,
            start: start as u32,
            end: self.pos as u32,
            nl_before,
            trail_before: trail_before as u32,
        }
    }

    /// Skips white space, newlines and comments; returns whether a newline
    /// was among them and where the skip would have stopped without
    /// newlines.
    fn skip_gap(&mut self) -> (bool, usize) {
        let bytes = self.text.as_bytes();
        let mut newline_at = None;
        while let Some(&b) = bytes.get(self.pos) {
            match b {
                b' ' | b'\t' | 0x0B | 0x0C | b'\r' => self.pos += 1,
                b'\n' => {
                    newline_at.get_or_insert(self.pos);
                    self.pos += 1;
                }
                b'-' if bytes.get(self.pos + 1) == Some(&b'-') => {
                    self.pos = line_end(bytes, self.pos);
                }
                b'{' if bytes.get(self.pos + 1) == Some(&b'-') => {
                    match block_comment_end(bytes, self.pos) {
                        Some(end) => self.pos = end,
                        // Unterminated: the lexical check reports it; leave
                        // the text as a bad token.
                        None => break,
                    }
                }
                _ => break,
            }
        }
        (newline_at.is_some(), newline_at.unwrap_or(self.pos))
    }

    fn scan(&mut self) -> Tok {
        let bytes = self.text.as_bytes();
        let Some(&b) = bytes.get(self.pos) else {
            return Tok::Eof;
        };
        match b {
            b'a'..=b'z' | b'A'..=b'Z' => self.word(),
            b'0'..=b'9' => {
                self.pos += bytes[self.pos..]
                    .iter()
                    .take_while(|b| b.is_ascii_digit())
                    .count();
                Tok::Int
            }
            b'"' => self.quoted(b'"', false),
            b'\'' => self.quoted(b'\'', true),
            b'_' => {
                self.pos += 1;
                match bytes.get(self.pos) {
                    Some(&c) if is_ident_char(c) || c == b'\'' => {
                        self.ident_end();
                        Tok::Bad
                    }
                    _ => Tok::Wildcard,
                }
            }
            _ => self.symbol(),
        }
    }

    /// A keyword, a literal `true`/`false`, or a (qualified) name.
    fn word(&mut self) -> Tok {
        let start = self.pos;
        self.ident_end();
        let word = &self.text[start..self.pos];
        if let Some(kind) = keyword(word) {
            return kind;
        }
        // `and'` reads as the operator `and` followed by a character in
        // operator position, but as a name elsewhere: pest decides.
        if ["and'", "or'", "not'"].iter().any(|k| word.starts_with(k)) {
            return Tok::Bad;
        }
        // `M::x`, as long as each part is a name and not a keyword.
        let bytes = self.text.as_bytes();
        while self.text[self.pos..].starts_with("::")
            && bytes.get(self.pos + 2).is_some_and(u8::is_ascii_alphabetic)
        {
            let save = self.pos;
            self.pos += 2;
            let part_start = self.pos;
            self.ident_end();
            let part = &self.text[part_start..self.pos];
            if keyword(part).is_some() {
                self.pos = save;
                break;
            }
        }
        Tok::Ident
    }

    fn ident_end(&mut self) {
        let bytes = self.text.as_bytes();
        while bytes.get(self.pos).copied().is_some_and(is_ident_char) {
            self.pos += 1;
        }
        while bytes.get(self.pos) == Some(&b'\'') {
            self.pos += 1;
        }
    }

    /// A string (`"..."`) or a character (`'c'`, exactly one character or
    /// escape), neither crossing a line.
    fn quoted(&mut self, quote: u8, single: bool) -> Tok {
        let bytes = self.text.as_bytes();
        let mut i = self.pos + 1;
        let mut count = 0;
        loop {
            match bytes.get(i) {
                None | Some(b'\n') => return Tok::Bad,
                Some(&c) if c == quote => {
                    self.pos = i + 1;
                    return if !single {
                        Tok::Str
                    } else if count == 1 {
                        Tok::Char
                    } else {
                        Tok::Bad
                    };
                }
                Some(b'\\') => {
                    i += 1;
                    match self.text[i.min(self.text.len())..].chars().next() {
                        Some(c) => i += c.len_utf8(),
                        None => return Tok::Bad,
                    }
                }
                Some(_) => {
                    let c = self.text[i..].chars().next().expect("inside the text");
                    i += c.len_utf8();
                }
            }
            count += 1;
        }
    }

    fn symbol(&mut self) -> Tok {
        let rest = &self.text[self.pos..];
        // `(|` opens a map unless it is `(||` (a bracketed `||`, but not
        // the empty map `(||)`) or `(|~` (a bracketed `|~|`).
        if rest.starts_with("(|") {
            let after = rest.as_bytes().get(2).copied();
            let paren = after == Some(b'~')
                || (after == Some(b'|') && rest.as_bytes().get(3) != Some(&b')'));
            self.pos += if paren { 1 } else { 2 };
            return if paren { Tok::LParen } else { Tok::MapOpen };
        }
        if rest.starts_with("{-") {
            // An unterminated comment (the lexical check reports it).
            return Tok::Bad;
        }
        if rest.starts_with("{|") {
            // `{||` and `{|~` open neither a production nor a set.
            if matches!(rest.as_bytes().get(2), Some(b'|' | b'~')) {
                return Tok::Bad;
            }
            self.pos += 2;
            return Tok::ProdOpen;
        }
        match symbol_at(rest.as_bytes()) {
            Some((len, kind)) => {
                self.pos += len;
                kind
            }
            None => Tok::Bad,
        }
    }
}

/// Whether `text` holds nothing but white space and comments.
pub(super) fn only_trivia(text: &str) -> bool {
    Lexer::new(text).next_token().kind == Tok::Eof
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<Tok> {
        let mut lexer = Lexer::new(text);
        let mut out = Vec::new();
        loop {
            let t = lexer.next_token();
            if t.kind == Tok::Eof {
                return out;
            }
            out.push(t.kind);
        }
    }

    #[test]
    fn symbols_are_cut_as_the_grammar_cuts_them() {
        use Tok::*;
        assert_eq!(
            kinds("a <-> b <- c <= d < e"),
            [Ident, Tie, Ident, Drawn, Ident, Le, Ident, Lt, Ident]
        );
        assert_eq!(
            kinds("||| || |~| |] |} |) |> |\\ |"),
            [
                Interleave,
                Parallel,
                IntChoice,
                GenParClose,
                ProdClose,
                MapClose,
                ExceptionClose,
                Project,
                Bar
            ]
        );
        assert_eq!(
            kinds("(| (||) (|| (|~|"),
            [
                MapOpen, MapOpen, MapClose, LParen, Parallel, LParen, IntChoice
            ]
        );
        assert_eq!(
            kinds("[FD= [F= [[ [| [] [> [+ ["),
            [
                Refine,
                Refine,
                RenameOpen,
                GenParOpen,
                ExtChoice,
                Sliding,
                SyncChoiceOpen,
                LSquare
            ]
        );
        assert_eq!(kinds("{| {||"), [ProdOpen, Bad, Parallel]);
    }

    #[test]
    fn words_names_and_literals() {
        use Tok::*;
        assert_eq!(
            kinds("if iff if' M::x M::if"),
            [If, Ident, Ident, Ident, Ident, DoubleColon, If]
        );
        assert_eq!(
            kinds("and' x'' True true true_"),
            [Bad, Ident, Ident, True, Ident]
        );
        assert_eq!(
            kinds(r#""a\"b" 'c' '\n' 'ab' _ _x"#),
            [Str, Char, Char, Bad, Wildcard, Bad]
        );
        assert_eq!(kinds("12ab 1..3"), [Int, Ident, Int, DotDot, Int]);
    }

    #[test]
    fn gaps_record_newlines_and_where_the_skip_stops() {
        let mut lexer = Lexer::new("a  -- c\n  {- x\n -} b c");
        let a = lexer.next_token();
        let b = lexer.next_token();
        let c = lexer.next_token();
        assert!(!a.nl_before && b.nl_before && !c.nl_before);
        assert_eq!(b.trail_before, 7, "the skip after `a` stops at the newline");
        assert_eq!(c.trail_before, c.start);
    }
}
