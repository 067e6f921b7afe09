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
use super::strength::{Operator, spelling, symbol};

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

/// The operators written as words.
const AND: &str = symbol(Operator::And);
const OR: &str = symbol(Operator::Or);
const NOT: &str = symbol(Operator::Not);

/// The keyword a word is, if any.
fn keyword(word: &str) -> Option<Tok> {
    Some(match word {
        AND => Tok::And,
        OR => Tok::Or,
        NOT => Tok::Not,
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

/// The symbols of the operator table, each with the token it reads as:
/// the lexer spells no operator itself. (`not`, `and` and `or` are
/// words, read by [`keyword`]; the negation's `-` is the minus's token;
/// a renaming's `]]` is two `]` tokens.)
const OPERATOR_SYMBOLS: &[(&str, Tok)] = {
    use Operator as O;
    &[
        (symbol(O::Hide), Tok::Backslash),
        (symbol(O::Project), Tok::Project),
        (symbol(O::Interleave), Tok::Interleave),
        (symbol(O::GenPar), Tok::GenParOpen),
        (spelling(O::GenPar).close, Tok::GenParClose),
        (spelling(O::Exception).close, Tok::ExceptionClose),
        (symbol(O::BracketPar), Tok::LSquare),
        (spelling(O::BracketPar).joins, Tok::Parallel),
        (spelling(O::BracketPar).close, Tok::RSquare),
        (spelling(O::LinkedPar).joins, Tok::Tie),
        (symbol(O::IntChoice), Tok::IntChoice),
        (symbol(O::ExtChoice), Tok::ExtChoice),
        (symbol(O::SyncChoice), Tok::SyncChoiceOpen),
        (spelling(O::SyncChoice).close, Tok::SyncChoiceClose),
        (symbol(O::Interrupt), Tok::Interrupt),
        (symbol(O::SyncInterrupt), Tok::SyncInterruptOpen),
        (spelling(O::SyncInterrupt).close, Tok::SyncInterruptClose),
        (symbol(O::Sliding), Tok::Sliding),
        (symbol(O::Seq), Tok::Semi),
        (symbol(O::Then), Tok::Arrow),
        (symbol(O::Guard), Tok::Amp),
        (symbol(O::FieldIn), Tok::Question),
        (symbol(O::FieldOut), Tok::Bang),
        (symbol(O::FieldNondet), Tok::Dollar),
        (symbol(O::DoubleAt), Tok::DoubleAt),
        (symbol(O::Dot), Tok::Dot),
        (symbol(O::Eq), Tok::Eq),
        (symbol(O::Ne), Tok::Ne),
        (symbol(O::Lt), Tok::Lt),
        (symbol(O::Le), Tok::Le),
        (symbol(O::Gt), Tok::Gt),
        (symbol(O::Ge), Tok::Ge),
        (symbol(O::Plus), Tok::Plus),
        (symbol(O::Minus), Tok::Minus),
        (symbol(O::Times), Tok::Times),
        (symbol(O::Div), Tok::Div),
        (symbol(O::Mod), Tok::Mod),
        (symbol(O::Length), Tok::Hash),
        (symbol(O::Concat), Tok::Concat),
        (symbol(O::Call), Tok::LParen),
        (spelling(O::Call).joins, Tok::Comma),
        (spelling(O::Call).close, Tok::RParen),
        (symbol(O::Rename), Tok::RenameOpen),
        (spelling(O::Rename).joins, Tok::Drawn),
    ]
};

/// The symbols that are no operator's. (`(|` and `{|` depend on what
/// follows them: [`Lexer::symbol`] reads them.)
const PUNCTUATION: &[(&str, Tok)] = &[
    ("[FD=", Tok::Refine),
    ("[RD=", Tok::Refine),
    ("[VD=", Tok::Refine),
    ("[T=", Tok::Refine),
    ("[F=", Tok::Refine),
    ("[R=", Tok::Refine),
    ("[V=", Tok::Refine),
    ("|}", Tok::ProdClose),
    ("|)", Tok::MapClose),
    ("::", Tok::DoubleColon),
    (":[", Tok::PropertyOpen),
    ("=>", Tok::FatArrow),
    ("..", Tok::DotDot),
    ("{", Tok::LBrace),
    ("}", Tok::RBrace),
    ("|", Tok::Bar),
    (":", Tok::Colon),
    ("=", Tok::Define),
    ("@", Tok::At),
];

const SYMBOL_COUNT: usize = OPERATOR_SYMBOLS.len() + PUNCTUATION.len();

/// Every symbol the lexer knows, with its token.
const SYMBOLS: [(&str, Tok); SYMBOL_COUNT] = {
    let mut out = [("", Tok::Bad); SYMBOL_COUNT];
    let mut k = 0;
    while k < SYMBOL_COUNT {
        out[k] = if k < OPERATOR_SYMBOLS.len() {
            OPERATOR_SYMBOLS[k]
        } else {
            PUNCTUATION[k - OPERATOR_SYMBOLS.len()]
        };
        k += 1;
    }
    out
};

/// Marks the end of a row of [`BY_FIRST_BYTE`].
const NO_SYMBOL: u8 = u8::MAX;

/// The most symbols that start with one byte (`[` starts the most).
const MOST_WITH_ONE_FIRST_BYTE: usize = 16;

/// For each ASCII byte, the symbols starting with it as indices into
/// [`SYMBOLS`], longest first, so that the first that matches is the
/// longest (`<->` before `<-` before `<`, as the grammar's lookaheads cut
/// them). Made at compile time; a lookup tries a handful of symbols of
/// one to four bytes.
const BY_FIRST_BYTE: [[u8; MOST_WITH_ONE_FIRST_BYTE]; 128] = {
    assert!(SYMBOL_COUNT < NO_SYMBOL as usize);
    let mut out = [[NO_SYMBOL; MOST_WITH_ONE_FIRST_BYTE]; 128];
    let mut i = 0;
    while i < SYMBOL_COUNT {
        let symbol = SYMBOLS[i].0.as_bytes();
        let first = symbol[0] as usize;
        let mut end = 0;
        while out[first][end] != NO_SYMBOL {
            end += 1;
        }
        assert!(end + 1 < MOST_WITH_ONE_FIRST_BYTE, "room for the symbol");
        // Insert it after the longer ones and those as long.
        let mut at = end;
        while at > 0 && SYMBOLS[out[first][at - 1] as usize].0.len() < symbol.len() {
            out[first][at] = out[first][at - 1];
            at -= 1;
        }
        out[first][at] = i as u8;
        i += 1;
    }
    out
};

/// The symbol at the start of `rest` and its length, the longest that
/// matches.
fn symbol_at(rest: &[u8]) -> Option<(usize, Tok)> {
    let candidates = BY_FIRST_BYTE.get(usize::from(*rest.first()?))?;
    candidates
        .iter()
        .take_while(|&&i| i != NO_SYMBOL)
        .map(|&i| SYMBOLS[usize::from(i)])
        .find(|(symbol, _)| rest.starts_with(symbol.as_bytes()))
        .map(|(symbol, tok)| (symbol.len(), tok))
}

/// Whether `text` is one unqualified name as the lexer reads names (a
/// letter, then letters, digits and `_`, then primes), and no keyword:
/// what a definition, channel or variable may be called.
pub fn is_name(text: &str) -> bool {
    if !text.as_bytes().first().is_some_and(u8::is_ascii_alphabetic) {
        return false;
    }
    let mut lexer = Lexer::new(text);
    lexer.word() == Tok::Ident && lexer.pos == text.len() && !text.contains("::")
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
        let primed = |k: &str| {
            word.strip_prefix(k)
                .is_some_and(|rest| rest.starts_with('\''))
        };
        if [AND, OR, NOT].into_iter().any(primed) {
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
        if let Some(kind) = self.opening_with_bar(rest) {
            return kind;
        }
        if rest.starts_with("{-") {
            // An unterminated comment (the lexical check reports it).
            return Tok::Bad;
        }
        match symbol_at(rest.as_bytes()) {
            Some((len, kind)) => {
                self.pos += len;
                kind
            }
            None => Tok::Bad,
        }
    }

    /// A bracket and a bar at the start of `rest`, whose reading depends
    /// on what follows them: `(|` opens a map unless a bracketed `||` or
    /// `|~|` follows the parenthesis (but `(||)` is the empty map); a brace
    /// and a bar open a production (`{||}` the empty one), unless `||` or
    /// `|~` make it neither a production nor a set.
    fn opening_with_bar(&mut self, rest: &str) -> Option<Tok> {
        let after = rest.as_bytes().get(2).copied();
        if rest.starts_with("(|") {
            let paren = after == Some(b'~')
                || (after == Some(b'|') && rest.as_bytes().get(3) != Some(&b')'));
            self.pos += if paren { 1 } else { 2 };
            return Some(if paren { Tok::LParen } else { Tok::MapOpen });
        }
        if rest.starts_with("{|") {
            // `{||}` is the empty production; `{||` otherwise, or `{|~`,
            // neither a production nor a set.
            if matches!(after, Some(b'|' | b'~')) && !rest.starts_with("{||}") {
                return Some(Tok::Bad);
            }
            self.pos += 2;
            return Some(Tok::ProdOpen);
        }
        None
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
        assert_eq!(
            kinds("{||} {| |}"),
            [ProdOpen, ProdClose, ProdOpen, ProdClose]
        );
    }

    /// The tokens `text` reads as, with where each ends.
    fn cut(text: &str) -> Vec<(Tok, u32)> {
        let mut lexer = Lexer::new(text);
        std::iter::from_fn(|| Some(lexer.next_token()))
            .take_while(|t| t.kind != Tok::Eof)
            .map(|t| (t.kind, t.end))
            .collect()
    }

    #[test]
    fn every_symbol_of_the_operator_table_reads_as_its_token() {
        use super::super::strength::ALL;
        for op in ALL {
            for symbol in spelling(op).symbols() {
                let tokens = cut(symbol);
                if symbol.starts_with(|c: char| c.is_ascii_alphabetic()) {
                    assert_eq!(tokens.len(), 1, "{op:?}: `{symbol}`");
                    assert_eq!(keyword(symbol), Some(tokens[0].0), "{op:?}: `{symbol}`");
                } else if symbol == spelling(Operator::Rename).close {
                    // A renaming closes with two `]` side by side.
                    assert_eq!(tokens, [(Tok::RSquare, 1), (Tok::RSquare, 2)]);
                } else {
                    let (kind, end) = tokens[0];
                    assert_eq!(end as usize, symbol.len(), "{op:?}: `{symbol}` reads whole");
                    let entry = (symbol, kind);
                    assert!(OPERATOR_SYMBOLS.contains(&entry), "{op:?}: {entry:?}");
                }
            }
        }
    }

    #[test]
    fn every_operator_token_has_a_table_entry() {
        use super::super::strength::ALL;
        for &(symbol, kind) in OPERATOR_SYMBOLS {
            let spelled = ALL
                .iter()
                .any(|&op| spelling(op).symbols().any(|s| s == symbol));
            assert!(spelled, "`{symbol}` is in the operator table");
            assert_eq!(cut(symbol), [(kind, symbol.len() as u32)], "`{symbol}`");
            // No punctuation reads as an operator's token or spells one.
            assert!(
                PUNCTUATION.iter().all(|&(p, k)| p != symbol && k != kind),
                "`{symbol}` is an operator's alone"
            );
        }
        for &(symbol, kind) in PUNCTUATION {
            assert_eq!(cut(symbol), [(kind, symbol.len() as u32)], "`{symbol}`");
        }
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
