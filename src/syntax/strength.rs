//! The operator table: every CSPM operator with its symbol as CSPM
//! writes it, its binding strength (FDR manual, "Binding Strength") and
//! how its operands take brackets. It is the one place operators are
//! spelled and ranked: the pest grammar's Pratt parser (`parser.rs`), the
//! fast parser (`descent/`) and its lexer (`tokens.rs`), the AST printer
//! (`print.rs`), the parse diagnostics (`errors.rs`), and the printers of
//! process states (`process::print`) and of the supercombinator's
//! operators (`lts::machine`) all read it.
//!
//! The functional operators bind tighter than every process operator;
//! `.` is the loosest functional operator, so `c.x+1` is `c.(x+1)`;
//! communication fields bind tighter than `->`.
//!
//! One bracketing rule serves every printer: an operand is bracketed
//! exactly when its level is below the least level its place takes
//! ([`needs_brackets`]); [`operand_min`] gives that level for each side
//! of each operator from the operator's fixity. The constructs that
//! extend as far right as they can (`if`, `let`, lambdas, replicated
//! operators) are at [`GREEDY`], below every operand's place, so they are
//! bracketed whenever they are an operand.

/// How the operators of one level take their operands.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Fixity {
    Left,
    Right,
    Prefix,
    Postfix,
}

/// Every operator of CSPM's expressions.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Operator {
    Hide,
    Project,
    Interleave,
    GenPar,
    /// `P [| A |> Q`; the grammar reads it with [`Operator::GenPar`].
    Exception,
    /// `P [A || B] Q`.
    BracketPar,
    /// `P [a <-> b] Q`; the grammar reads it with [`Operator::BracketPar`].
    LinkedPar,
    IntChoice,
    ExtChoice,
    SyncChoice,
    Interrupt,
    SyncInterrupt,
    Sliding,
    Seq,
    Then,
    Guard,
    FieldIn,
    FieldOut,
    FieldNondet,
    DoubleAt,
    Dot,
    Or,
    And,
    Not,
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
    Neg,
    Length,
    Concat,
    Call,
    Rename,
}

/// How CSPM writes an operator. One written around an argument
/// (`P [| A |] Q`, `P [[a <- b]]`) has an opening symbol, a closing one
/// and, where the argument is made of pairs, the symbol joining each
/// pair's halves; a plain one has its symbol alone.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct Spelling {
    /// The symbol; for one written around an argument, the opening one.
    pub symbol: &'static str,
    /// Joins the halves of each pair of the argument (`||` of
    /// `[A || B]`, `<->` of links, `<-` of renamings, `,` between
    /// arguments); empty if none.
    pub joins: &'static str,
    /// Closes the argument; empty if nothing does.
    pub close: &'static str,
}

impl Spelling {
    const fn plain(symbol: &'static str) -> Self {
        Spelling {
            symbol,
            joins: "",
            close: "",
        }
    }

    const fn enclosing(symbol: &'static str, close: &'static str) -> Self {
        Spelling {
            symbol,
            joins: "",
            close,
        }
    }

    const fn pairs(symbol: &'static str, joins: &'static str, close: &'static str) -> Self {
        Spelling {
            symbol,
            joins,
            close,
        }
    }

    /// The operator written around `inner`, spaced inside: `[| inner |]`.
    pub(crate) fn enclose(self, inner: &str) -> String {
        format!("{} {inner} {}", self.symbol, self.close)
    }

    /// The symbol joining the halves of a pair, spaced: ` <- `, ` || `.
    pub(crate) fn spaced_joins(self) -> String {
        format!(" {} ", self.joins)
    }

    /// The symbols it is written with, the empty ones left out.
    #[cfg(test)]
    pub(crate) fn symbols(self) -> impl Iterator<Item = &'static str> {
        [self.symbol, self.joins, self.close]
            .into_iter()
            .filter(|s| !s.is_empty())
    }
}

/// One level of the table: how its operators associate, and each
/// operator with its spelling.
pub(crate) type Level = (Fixity, &'static [(Operator, Spelling)]);

/// The levels, loosest first. A row's level is its index plus one: level
/// 0 is taken by what extends as far right as it can ([`GREEDY`]), and
/// [`ATOM`] lies above the table.
pub(crate) const TABLE: &[Level] = {
    use Fixity::*;
    use Operator::*;
    const fn plain(symbol: &'static str) -> Spelling {
        Spelling::plain(symbol)
    }
    const fn around(symbol: &'static str, close: &'static str) -> Spelling {
        Spelling::enclosing(symbol, close)
    }
    const fn pairs(symbol: &'static str, joins: &'static str, close: &'static str) -> Spelling {
        Spelling::pairs(symbol, joins, close)
    }
    &[
        (Left, &[(Hide, plain("\\")), (Project, plain("|\\"))]),
        (Left, &[(Interleave, plain("|||"))]),
        (
            Left,
            &[
                (GenPar, around("[|", "|]")),
                (Exception, around("[|", "|>")),
                (BracketPar, pairs("[", "||", "]")),
                (LinkedPar, pairs("[", "<->", "]")),
            ],
        ),
        (Left, &[(IntChoice, plain("|~|"))]),
        (
            Left,
            &[(ExtChoice, plain("[]")), (SyncChoice, around("[+", "+]"))],
        ),
        (
            Left,
            &[
                (Interrupt, plain("/\\")),
                (SyncInterrupt, around("/+", "+\\")),
            ],
        ),
        (Left, &[(Sliding, plain("[>"))]),
        (Left, &[(Seq, plain(";"))]),
        (Right, &[(Then, plain("->")), (Guard, plain("&"))]),
        (
            Postfix,
            &[
                (FieldIn, plain("?")),
                (FieldOut, plain("!")),
                (FieldNondet, plain("$")),
            ],
        ),
        (Right, &[(DoubleAt, plain("@@"))]),
        (Right, &[(Dot, plain("."))]),
        (Left, &[(Or, plain("or"))]),
        (Left, &[(And, plain("and"))]),
        (Prefix, &[(Not, plain("not"))]),
        (
            Left,
            &[
                (Eq, plain("==")),
                (Ne, plain("!=")),
                (Lt, plain("<")),
                (Le, plain("<=")),
                (Gt, plain(">")),
                (Ge, plain(">=")),
            ],
        ),
        (Left, &[(Plus, plain("+")), (Minus, plain("-"))]),
        (
            Left,
            &[(Times, plain("*")), (Div, plain("/")), (Mod, plain("%"))],
        ),
        (Prefix, &[(Neg, plain("-"))]),
        (Prefix, &[(Length, plain("#"))]),
        (Left, &[(Concat, plain("^"))]),
        (
            Postfix,
            &[
                (Call, pairs("(", ",", ")")),
                (Rename, pairs("[[", "<-", "]]")),
            ],
        ),
    ]
};

/// The level of what extends as far right as it can.
pub(crate) const GREEDY: u8 = 0;
/// The level of what needs no brackets anywhere.
pub(crate) const ATOM: u8 = TABLE.len() as u8 + 1;

/// How many operators there are.
const OPERATORS: usize = Operator::Rename as usize + 1;

/// One operator's entry: its level, fixity and spelling.
#[derive(Clone, Copy)]
struct Entry {
    level: u8,
    fixity: Fixity,
    spelling: Spelling,
}

/// Each operator's entry, indexed by the operator, made from [`TABLE`]
/// at compile time; it fails to compile unless every operator has
/// exactly one row.
const ENTRIES: [Entry; OPERATORS] = {
    let unset = Entry {
        level: u8::MAX,
        fixity: Fixity::Left,
        spelling: Spelling::plain(""),
    };
    let mut out = [unset; OPERATORS];
    let mut row = 0;
    while row < TABLE.len() {
        let (fixity, ops) = TABLE[row];
        let mut k = 0;
        while k < ops.len() {
            let (op, spelling) = ops[k];
            assert!(out[op as usize].level == u8::MAX, "an operator has one row");
            out[op as usize] = Entry {
                level: row as u8 + 1,
                fixity,
                spelling,
            };
            k += 1;
        }
        row += 1;
    }
    let mut op = 0;
    while op < OPERATORS {
        assert!(out[op].level != u8::MAX, "every operator is in the table");
        op += 1;
    }
    out
};

/// The operator's level (larger binds tighter) and fixity.
pub(crate) const fn strength(op: Operator) -> (u8, Fixity) {
    let entry = ENTRIES[op as usize];
    (entry.level, entry.fixity)
}

/// The operator's level.
pub(crate) const fn level(op: Operator) -> u8 {
    ENTRIES[op as usize].level
}

/// How CSPM writes the operator.
pub(crate) const fn spelling(op: Operator) -> Spelling {
    ENTRIES[op as usize].spelling
}

/// The operator's symbol (the opening one, for one written around an
/// argument).
pub(crate) const fn symbol(op: Operator) -> &'static str {
    ENTRIES[op as usize].spelling.symbol
}

/// The symbols of several operators, in order, at compile time.
pub(crate) const fn symbols<const N: usize>(ops: [Operator; N]) -> [&'static str; N] {
    let mut out = [""; N];
    let mut k = 0;
    while k < N {
        out[k] = symbol(ops[k]);
        k += 1;
    }
    out
}

/// Which operand of an operator: the left one of an infix or postfix
/// operator, the right one of an infix or prefix operator.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Side {
    Left,
    Right,
}

/// The least level an operand on `side` of `op` may have and stand
/// without brackets: the operator's own level on the side it associates
/// to (and for the one operand of a prefix or postfix operator), one
/// tighter on the other, so that `a - (b - c)` keeps its brackets and
/// `(a - b) - c` loses them.
pub(crate) const fn operand_min(op: Operator, side: Side) -> u8 {
    let (level, fixity) = strength(op);
    match (fixity, side) {
        (Fixity::Left, Side::Right) | (Fixity::Right, Side::Left) => level + 1,
        _ => level,
    }
}

/// The bracketing rule: an operand of level `level` in a place that takes
/// `min` or tighter (an [`operand_min`], [`ATOM`] where a printer wants
/// only atoms, [`GREEDY`] where anything goes) is bracketed.
pub(crate) const fn needs_brackets(level: u8, min: u8) -> bool {
    level < min
}

/// Every operator, in the order of the enum.
pub(crate) const ALL: [Operator; OPERATORS] = {
    let mut out = [Operator::Hide; OPERATORS];
    let mut row = 0;
    while row < TABLE.len() {
        let ops = TABLE[row].1;
        let mut k = 0;
        while k < ops.len() {
            out[ops[k].0 as usize] = ops[k].0;
            k += 1;
        }
        row += 1;
    }
    out
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_follow_fdr_order() {
        assert_eq!(level(Operator::Hide), 1);
        assert!(level(Operator::Seq) < level(Operator::Then));
        assert!(level(Operator::Then) < level(Operator::FieldOut));
        assert!(level(Operator::FieldOut) < level(Operator::Dot));
        assert!(level(Operator::Dot) < level(Operator::Plus));
        assert_eq!(strength(Operator::Dot).1, Fixity::Right);
        assert_eq!(strength(Operator::Length).1, Fixity::Prefix);
        assert_eq!(level(Operator::Rename), ATOM - 1);
    }

    #[test]
    fn every_operator_is_listed_once_in_order() {
        for (k, &op) in ALL.iter().enumerate() {
            assert_eq!(op as usize, k, "{op:?}");
        }
    }

    #[test]
    fn an_operand_is_bracketed_where_it_would_regroup() {
        use Side::*;
        // `a - b - c` is `(a - b) - c`; `a . b . c` is `a . (b . c)`.
        let minus = level(Operator::Minus);
        assert!(!needs_brackets(minus, operand_min(Operator::Minus, Left)));
        assert!(needs_brackets(minus, operand_min(Operator::Minus, Right)));
        let dot = level(Operator::Dot);
        assert!(needs_brackets(dot, operand_min(Operator::Dot, Left)));
        assert!(!needs_brackets(dot, operand_min(Operator::Dot, Right)));
        // A looser operand always, a tighter one never, greedy ones
        // wherever a place has a bound.
        let plus = operand_min(Operator::Plus, Left);
        assert!(needs_brackets(level(Operator::Eq), plus));
        assert!(!needs_brackets(level(Operator::Times), plus));
        assert!(needs_brackets(GREEDY, operand_min(Operator::Hide, Left)));
        assert!(!needs_brackets(ATOM, operand_min(Operator::Call, Left)));
    }

    #[test]
    fn operators_written_around_an_argument_close_it() {
        for op in ALL {
            let spelling = spelling(op);
            assert!(!spelling.symbol.is_empty(), "{op:?} has a symbol");
            if !spelling.joins.is_empty() {
                assert!(!spelling.close.is_empty(), "{op:?} closes its pairs");
            }
        }
    }
}
