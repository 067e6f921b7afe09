//! The pretty-printer: CSPM text from the AST, re-parsing to the same tree.
//!
//! Operators are spelled, ranked and bracketed by the operator table
//! (`strength.rs`): parentheses go exactly where its bracketing rule
//! needs them, which puts them around the constructs that extend as far
//! right as they can (`if`, `let`, lambdas, replicated operators)
//! whenever they are an operand.

use std::fmt;

mod declarations;

use super::ast::*;
use super::strength::{
    ATOM, GREEDY, Operator, Side, Spelling, level, needs_brackets, operand_min, spelling, symbol,
};

/// The loosest level of a functional-only context (a field, a generator,
/// a channel type): everything looser needs parentheses.
const FUNCTIONAL: u8 = level(Operator::DoubleAt);

/// The operator of the table a binary operator is.
fn binary_operator(op: BinaryOp) -> Operator {
    match op {
        BinaryOp::Or => Operator::Or,
        BinaryOp::And => Operator::And,
        BinaryOp::Eq => Operator::Eq,
        BinaryOp::Ne => Operator::Ne,
        BinaryOp::Lt => Operator::Lt,
        BinaryOp::Le => Operator::Le,
        BinaryOp::Gt => Operator::Gt,
        BinaryOp::Ge => Operator::Ge,
        BinaryOp::Add => Operator::Plus,
        BinaryOp::Sub => Operator::Minus,
        BinaryOp::Mul => Operator::Times,
        BinaryOp::Div => Operator::Div,
        BinaryOp::Mod => Operator::Mod,
        BinaryOp::Concat => Operator::Concat,
    }
}

/// The operator of the table a process operator is.
fn process_operator(op: ProcOp) -> Operator {
    match op {
        ProcOp::ExternalChoice => Operator::ExtChoice,
        ProcOp::InternalChoice => Operator::IntChoice,
        ProcOp::Interleave => Operator::Interleave,
        ProcOp::SequentialComposition => Operator::Seq,
        ProcOp::Interrupt => Operator::Interrupt,
        ProcOp::SlidingChoice => Operator::Sliding,
    }
}

/// The operator of the table a unary operator is.
fn unary_operator(op: UnaryOp) -> Operator {
    match op {
        UnaryOp::Neg => Operator::Neg,
        UnaryOp::Not => Operator::Not,
        UnaryOp::Length => Operator::Length,
    }
}

/// A binary operator's symbol, as CSPM writes it.
pub fn binary_symbol(op: BinaryOp) -> &'static str {
    symbol(binary_operator(op))
}

/// A process operator's symbol, as CSPM writes it.
pub fn process_symbol(op: ProcOp) -> &'static str {
    symbol(process_operator(op))
}

/// The operator at the top of an expression, if one is.
fn top_operator(e: &Expr) -> Option<Operator> {
    use ExprKind::*;
    Some(match &e.kind {
        Int(i) if *i < 0 => Operator::Neg,
        App(..) => Operator::Call,
        Rename(..) => Operator::Rename,
        Dot(..) => Operator::Dot,
        Unary(op, _) => unary_operator(*op),
        Binary(op, ..) => binary_operator(*op),
        DoubleAt(..) => Operator::DoubleAt,
        Prefix(..) => Operator::Then,
        Guard(..) => Operator::Guard,
        Process(op, ..) => process_operator(*op),
        Hide(..) => Operator::Hide,
        Project(..) => Operator::Project,
        GenParallel(..) => Operator::GenPar,
        Exception(..) => Operator::Exception,
        AlphaParallel(..) => Operator::BracketPar,
        LinkedParallel(..) => Operator::LinkedPar,
        SyncExternalChoice(..) => Operator::SyncChoice,
        SyncInterrupt(..) => Operator::SyncInterrupt,
        _ => return None,
    })
}

/// Binding strength of an expression: its top operator's level, [`GREEDY`]
/// for what extends to the right as far as possible, [`ATOM`] for the rest.
fn expr_level(e: &Expr) -> u8 {
    use ExprKind::*;
    match (&e.kind, top_operator(e)) {
        (_, Some(op)) => level(op),
        (If(..) | Let(..) | Lambda(..) | Replicated(..), None) => GREEDY,
        (_, None) => ATOM,
    }
}

/// The operator at the top of a pattern, if one is.
fn pattern_operator(p: &Pattern) -> Option<Operator> {
    Some(match &p.kind {
        PatternKind::Int(i) if *i < 0 => Operator::Neg,
        PatternKind::Dot(..) => Operator::Dot,
        PatternKind::Concat(..) => Operator::Concat,
        PatternKind::DoubleAt(..) => Operator::DoubleAt,
        _ => return None,
    })
}

/// Writes CSPM text into a string.
#[derive(Default)]
pub(crate) struct Printer {
    out: String,
    indent: usize,
    /// Directly inside `<...>`, where a bare `>` would close the sequence.
    in_sequence: bool,
    /// Never break lines (used to measure an expression's width).
    flat: bool,
    /// The indentation of continuation lines, once a construct has broken.
    continuation: Option<usize>,
    /// The next process operator must break: it is a link of a chain
    /// that broke.
    break_chain: bool,
    /// Measuring: once the text passes this many bytes the answer is
    /// known (it does not fit), and nothing more is written. `None`: no
    /// limit. Keeps measuring each link of a long chain from costing the
    /// whole chain's text.
    enough: Option<usize>,
}

/// Lines longer than this are broken before process operators.
const WIDTH: usize = 88;

impl Printer {
    pub(crate) fn finish(self) -> String {
        self.out
    }

    fn put(&mut self, s: &str) {
        self.out.push_str(s);
    }

    /// The line being written.
    fn current_line(&self) -> &str {
        &self.out[self.out.rfind('\n').map_or(0, |p| p + 1)..]
    }

    fn line_indent(&self) -> usize {
        self.current_line()
            .chars()
            .take_while(|&c| c == ' ')
            .count()
    }

    /// Where lines broken inside the construct being written start: the
    /// indentation already chosen by an enclosing broken construct, or two
    /// more than the current line's.
    fn continuation_indent(&self) -> usize {
        self.continuation.unwrap_or_else(|| self.line_indent() + 2)
    }

    fn with_continuation(&mut self, indent: usize, f: impl FnOnce(&mut Self)) {
        let saved = self.continuation.replace(indent);
        f(self);
        self.continuation = saved;
    }

    fn break_or_space(&mut self, fits: bool, indent: usize) {
        if fits {
            self.put(" ");
        } else {
            let saved = std::mem::replace(&mut self.indent, indent);
            self.newline();
            self.indent = saved;
        }
    }

    /// The right-hand side of a definition: after `=` on the same line if
    /// it fits, otherwise on the lines below, indented.
    fn definition_body(&mut self, rhs: &Expr) {
        self.put(" ");
        if self.fits(rhs) {
            self.expr(rhs, 0);
            return;
        }
        self.out.pop();
        let indent = self.line_indent() + 2;
        self.break_or_space(false, indent);
        self.with_continuation(indent, |p| p.expr(rhs, 0));
    }

    /// Whether `e` fits, unbroken, on the rest of the current line.
    fn fits(&self, e: &Expr) -> bool {
        if self.flat {
            return true;
        }
        // A character is at most four bytes: past 4 × WIDTH bytes the
        // text is wider than the line.
        let mut p = Printer {
            in_sequence: self.in_sequence,
            flat: true,
            enough: Some(4 * WIDTH),
            ..Printer::default()
        };
        p.expr_bare(e);
        !p.measured()
            && !p.out.contains('\n')
            && self.current_line().chars().count() + p.out.chars().count() <= WIDTH
    }

    fn newline(&mut self) {
        self.out.push('\n');
        for _ in 0..self.indent {
            self.out.push(' ');
        }
    }

    /// Runs `f` inside brackets: resets the sequence context and, when the
    /// content would otherwise fuse with the opening bracket into another
    /// token (`{-` opens a comment, `{|` a production, `<-` is a
    /// generator), separates them with a space.
    fn bracketed(&mut self, open: &str, close: &str, sequence: bool, f: impl FnOnce(&mut Self)) {
        self.put(open);
        let start = self.out.len();
        let saved = std::mem::replace(&mut self.in_sequence, sequence);
        f(self);
        self.in_sequence = saved;
        let first = self.out[start..].chars().next();
        let fuses = match (open.trim_start(), first) {
            ("{", Some('-' | '|')) | ("<", Some('-' | '=')) => true,
            ("[", Some('[' | '|' | ']' | '>' | '+')) => true,
            (_, _) => false,
        };
        if fuses {
            self.out.insert(start, ' ');
        }
        self.put(close);
    }

    fn list<T>(&mut self, items: &[T], mut f: impl FnMut(&mut Self, &T)) {
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                self.put(", ");
            }
            f(self, item);
        }
    }

    // ------------------------------------------------------------ expressions

    /// Writes `e`, in parentheses where the table's bracketing rule wants
    /// them in a place taking level `min` or tighter, or where a bare `>`
    /// would close the sequence around it.
    /// Whether a measurement has seen enough ([`Printer::enough`]).
    fn measured(&self) -> bool {
        self.enough.is_some_and(|enough| self.out.len() > enough)
    }

    pub(crate) fn expr(&mut self, e: &Expr, min: u8) {
        if self.measured() {
            return;
        }
        let closes_sequence =
            self.in_sequence && matches!(e.kind, ExprKind::Binary(BinaryOp::Gt, ..));
        if needs_brackets(expr_level(e), min) || closes_sequence {
            self.bracketed("(", ")", false, |p| p.expr_bare(e));
        } else {
            self.expr_bare(e);
        }
    }

    /// Writes `e` as the operand on `side` of `op`.
    fn operand(&mut self, op: Operator, side: Side, e: &Expr) {
        self.expr(e, operand_min(op, side));
    }

    /// Writes an infix operator's symbol as it stands between operands:
    /// spaced, but for the `.` that glues the parts of an event (`c.x`).
    fn infix(&mut self, op: Operator) {
        if op == Operator::Dot {
            self.put(symbol(op));
        } else {
            self.put(" ");
            self.put(symbol(op));
            self.put(" ");
        }
    }

    /// Writes `l op r`.
    fn binary_operands(&mut self, op: Operator, l: &Expr, r: &Expr) {
        self.operand(op, Side::Left, l);
        self.infix(op);
        self.operand(op, Side::Right, r);
    }

    /// Writes an operator written around an argument as it stands between
    /// operands, `[| A |]`: its symbols and the argument, spaced.
    fn around(&mut self, op: Operator, argument: impl FnOnce(&mut Self)) {
        let Spelling { symbol, close, .. } = spelling(op);
        self.bracketed(&format!("{symbol} "), &format!(" {close}"), false, argument);
    }

    fn expr_bare(&mut self, e: &Expr) {
        use ExprKind::*;
        match &e.kind {
            Int(i) => self.put(&i.to_string()),
            Char(c) => self.char_literal(*c),
            String(s) => self.string_literal(s),
            Bool(b) => self.put(if *b { "true" } else { "false" }),
            Name(n) => self.name(n),
            Wildcard => self.put("_"),
            Tuple(items) => self.bracketed("(", ")", false, |p| p.list(items, |p, x| p.expr(x, 0))),
            App(f, args) => self.application(f, args),
            Dot(l, r) => self.dot(l, r),
            Unary(op, x) => self.unary(*op, x),
            Binary(op, l, r) => self.binary_operands(binary_operator(*op), l, r),
            DoubleAt(l, r) => self.binary_operands(Operator::DoubleAt, l, r),
            If(c, t, f) => self.conditional(e, c, t, f),
            Let(decls, body) => self.let_within(decls, body),
            Lambda(params, body) => {
                self.put("\\ ");
                self.list(params, |p, x| p.pattern(x, FUNCTIONAL));
                self.put(" @ ");
                self.expr(body, 0);
            }
            Seq(items) => self.bracketed("<", ">", true, |p| p.list(items, |p, x| p.expr(x, 0))),
            SeqRange(from, to, stmts) => self.bracketed("<", ">", true, |p| {
                p.range(from, to.as_deref());
                p.stmts(stmts);
            }),
            SeqComprehension(items, stmts) => {
                self.bracketed("<", ">", true, |p| p.comprehension(items, stmts))
            }
            Set(items) => self.bracketed("{", "}", false, |p| p.list(items, |p, x| p.expr(x, 0))),
            SetRange(from, to, stmts) => self.bracketed("{", "}", false, |p| {
                p.range(from, to.as_deref());
                p.stmts(stmts);
            }),
            SetComprehension(items, stmts) => {
                self.bracketed("{", "}", false, |p| p.comprehension(items, stmts))
            }
            Production(items, _) if items.is_empty() => self.put("{| |}"),
            Production(items, stmts) => {
                self.bracketed("{| ", " |}", false, |p| p.comprehension(items, stmts))
            }
            Map(entries) if entries.is_empty() => self.put("(| |)"),
            Map(entries) => self.bracketed("(| ", " |)", false, |p| {
                p.list(entries, |p, (k, v)| {
                    p.expr(k, 0);
                    p.put(" => ");
                    p.expr(v, 0);
                })
            }),
            Prefix(event, fields, body) => self.prefix(e, event, fields, body),
            Guard(b, p) => self.binary_operands(Operator::Guard, b, p),
            Process(op, l, r) => self.plain_process(e, process_operator(*op), l, r),
            Hide(l, r) => self.plain_process(e, Operator::Hide, l, r),
            Project(l, r) => self.plain_process(e, Operator::Project, l, r),
            GenParallel(l, a, r) => self.process_around(e, Operator::GenPar, l, a, r),
            Exception(l, a, r) => self.process_around(e, Operator::Exception, l, a, r),
            SyncExternalChoice(l, a, r) => self.process_around(e, Operator::SyncChoice, l, a, r),
            SyncInterrupt(l, a, r) => self.process_around(e, Operator::SyncInterrupt, l, a, r),
            AlphaParallel(par) => self.alphabetised_parallel(e, par),
            LinkedParallel(par) => self.linked_parallel(e, par),
            Rename(p, pairs, stmts) => self.renaming(p, pairs, stmts),
            Replicated(replicated) => self.replicated(replicated),
        }
    }

    /// `f(args)`.
    fn application(&mut self, f: &Expr, args: &[Expr]) {
        self.operand(Operator::Call, Side::Left, f);
        let Spelling { symbol, close, .. } = spelling(Operator::Call);
        self.bracketed(symbol, close, false, |p| p.list(args, |p, x| p.expr(x, 0)));
    }

    /// `l.r`. An operand that is a binary operation is bracketed although
    /// the table lets it stand bare (`.` binds loosest of the functional
    /// operators): `c.(x + 1)` reads better than `c.x + 1`.
    fn dot(&mut self, l: &Expr, r: &Expr) {
        let min = |side, e: &Expr| {
            if matches!(e.kind, ExprKind::Binary(..)) {
                ATOM
            } else {
                operand_min(Operator::Dot, side)
            }
        };
        self.expr(l, min(Side::Left, l));
        self.infix(Operator::Dot);
        self.expr(r, min(Side::Right, r));
    }

    fn unary(&mut self, op: UnaryOp, x: &Expr) {
        let operator = unary_operator(op);
        self.put(symbol(operator));
        // A word (`not`) stays apart from its operand.
        if symbol(operator).ends_with(|c: char| c.is_ascii_alphabetic()) {
            self.put(" ");
        }
        let start = self.out.len();
        self.operand(operator, Side::Right, x);
        // `- -x` must not become the comment `--x`.
        if op == UnaryOp::Neg && self.out[start..].starts_with('-') {
            self.out.insert(start, ' ');
        }
    }

    /// `if c then t else f`, on one line if it fits; broken, `then` and
    /// `else` start lines of their own and their branches continue further
    /// in.
    fn conditional(&mut self, whole: &Expr, c: &Expr, t: &Expr, f: &Expr) {
        let fits = self.fits(whole);
        let indent = self.continuation_indent() + 2;
        self.put("if ");
        self.expr(c, 0);
        self.break_or_space(fits, indent);
        self.put("then ");
        self.with_continuation(indent + 2, |p| p.expr(t, 0));
        self.break_or_space(fits, indent);
        self.put("else ");
        self.with_continuation(indent + 2, |p| p.expr(f, 0));
    }

    /// `let` with its declarations on lines of their own, then `within`.
    fn let_within(&mut self, decls: &[Decl], body: &Expr) {
        let saved = std::mem::replace(&mut self.in_sequence, false);
        self.put("let");
        self.indent += 4;
        for d in decls {
            self.newline();
            self.decl(d);
        }
        self.indent -= 2;
        self.newline();
        self.indent -= 2;
        self.in_sequence = saved;
        self.put("within ");
        self.expr(body, 0);
    }

    /// `event fields -> body`. A long chain of prefixes goes on with one
    /// event per line.
    fn prefix(&mut self, whole: &Expr, event: &Expr, fields: &[Field], body: &Expr) {
        let fits = self.fits(whole);
        let indent = self.continuation_indent();
        if fields.is_empty() {
            self.operand(Operator::Then, Side::Left, event);
        } else {
            // The fields are postfix operators on the event.
            self.operand(Operator::FieldOut, Side::Left, event);
            for f in fields {
                self.field(f);
            }
        }
        self.put(" ");
        self.put(symbol(Operator::Then));
        self.break_or_space(fits, indent);
        self.with_continuation(indent, |p| p.operand(Operator::Then, Side::Right, body));
    }

    /// `l op r` for a process operator written with its symbol alone.
    fn plain_process(&mut self, whole: &Expr, op: Operator, l: &Expr, r: &Expr) {
        self.process_operands(whole, op, l, r, |p| p.put(symbol(op)));
    }

    /// `l [| a |] r` for a process operator written around an argument.
    fn process_around(&mut self, whole: &Expr, op: Operator, l: &Expr, a: &Expr, r: &Expr) {
        self.process_operands(whole, op, l, r, |p| p.around(op, |p| p.expr(a, 0)));
    }

    /// `P [A || B] Q`.
    fn alphabetised_parallel(&mut self, whole: &Expr, par: &AlphaParallel) {
        let op = Operator::BracketPar;
        self.process_operands(whole, op, &par.left, &par.right, |p| {
            let Spelling { symbol, close, .. } = spelling(op);
            p.bracketed(symbol, close, false, |p| {
                p.expr(&par.left_alphabet, FUNCTIONAL);
                p.put(&spelling(op).spaced_joins());
                p.expr(&par.right_alphabet, 0);
            })
        });
    }

    /// `P [a <-> b] Q`.
    fn linked_parallel(&mut self, whole: &Expr, par: &LinkedParallel) {
        let op = Operator::LinkedPar;
        self.process_operands(whole, op, &par.left, &par.right, |p| {
            let Spelling { symbol, close, .. } = spelling(op);
            p.bracketed(symbol, close, false, |p| {
                p.links(&par.links, &spelling(op).spaced_joins(), &par.stmts)
            })
        });
    }

    /// Writes `l op r` for a left-associative process operator: on one
    /// line if it fits, otherwise with `op r` on a new, indented line (FDR
    /// lets a newline stand before every process operator).
    fn process_operands(
        &mut self,
        whole: &Expr,
        op: Operator,
        l: &Expr,
        r: &Expr,
        write_operator: impl FnOnce(&mut Self),
    ) {
        // Once a chain `a [] b [] c` breaks, every link of it does.
        let forced = std::mem::take(&mut self.break_chain);
        let fits = !forced && self.fits(whole);
        let indent = self.continuation_indent();
        self.break_chain =
            !fits && std::mem::discriminant(&l.kind) == std::mem::discriminant(&whole.kind);
        self.with_continuation(indent, |p| p.operand(op, Side::Left, l));
        self.break_chain = false;
        self.break_or_space(fits, indent);
        write_operator(self);
        self.put(" ");
        // A hidden set that is itself a process operator is bracketed:
        // unbracketed, the hiding would take its first operand
        // (`ExprKind::hiding`).
        let right = match op {
            Operator::Hide | Operator::Project => level(Operator::Then),
            _ => operand_min(op, Side::Right),
        };
        self.with_continuation(indent, |p| p.expr(r, right));
    }

    /// `P [[a <- b]]`, spaced inside the brackets.
    fn renaming(&mut self, process: &Expr, pairs: &[(Expr, Expr)], stmts: &[Stmt]) {
        let op = Operator::Rename;
        self.operand(op, Side::Left, process);
        let Spelling { symbol, close, .. } = spelling(op);
        if pairs.is_empty() {
            self.put(&format!(" {symbol} {close}"));
        } else {
            let (open, close) = (format!(" {symbol} "), format!(" {close}"));
            self.bracketed(&open, &close, false, |p| {
                p.links(pairs, &spelling(op).spaced_joins(), stmts)
            });
        }
    }

    /// A replicated operator: `[] x : S @ P`, `[| A |] x : S @ P`,
    /// `|| x : S @ [A] P`.
    fn replicated(&mut self, replicated: &super::ast::Replicated) {
        let super::ast::Replicated { op, stmts, body } = replicated;
        let plain = |p: &mut Self, op: Operator| {
            p.put(symbol(op));
            p.put(" ");
        };
        match op {
            ReplicatedOp::ExternalChoice => plain(self, Operator::ExtChoice),
            ReplicatedOp::InternalChoice => plain(self, Operator::IntChoice),
            ReplicatedOp::Interleave => plain(self, Operator::Interleave),
            ReplicatedOp::SequentialComposition => plain(self, Operator::Seq),
            ReplicatedOp::SyncExternalChoice(a) => {
                self.around(Operator::SyncChoice, |p| p.expr(a, 0));
                self.put(" ");
            }
            ReplicatedOp::GenParallel(a) => {
                self.around(Operator::GenPar, |p| p.expr(a, 0));
                self.put(" ");
            }
            ReplicatedOp::LinkedParallel(links, link_stmts) => {
                let op = Operator::LinkedPar;
                self.around(op, |p| {
                    p.links(links, &spelling(op).spaced_joins(), link_stmts)
                });
                self.put(" ");
            }
            ReplicatedOp::AlphaParallel(_) => {
                self.put(spelling(Operator::BracketPar).joins);
                self.put(" ");
            }
        }
        self.list(stmts, |p, s| p.stmt(s));
        self.put(" @ ");
        if let ReplicatedOp::AlphaParallel(alphabet) = op {
            let Spelling { symbol, close, .. } = spelling(Operator::BracketPar);
            self.bracketed(symbol, close, false, |p| p.expr(alphabet, 0));
            self.put(" ");
        }
        self.expr(body, 0);
    }

    fn range(&mut self, from: &Expr, to: Option<&Expr>) {
        self.expr(from, 0);
        self.put("..");
        if let Some(to) = to {
            self.expr(to, 0);
        }
    }

    fn comprehension(&mut self, items: &[Expr], stmts: &[Stmt]) {
        self.list(items, |p, x| p.expr(x, 0));
        self.stmts(stmts);
    }

    fn links(&mut self, pairs: &[(Expr, Expr)], arrow: &str, stmts: &[Stmt]) {
        self.list(pairs, |p, (a, b)| {
            p.expr(a, FUNCTIONAL);
            p.put(arrow);
            p.expr(b, FUNCTIONAL);
        });
        self.stmts(stmts);
    }

    /// ` | stmt, stmt` after a comprehension's head, if it has statements.
    fn stmts(&mut self, stmts: &[Stmt]) {
        if !stmts.is_empty() {
            self.put(" | ");
            self.list(stmts, |p, s| p.stmt(s));
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        match &s.kind {
            StmtKind::Generator(pat, sep, e) => {
                self.pattern(pat, FUNCTIONAL);
                self.put(match sep {
                    GeneratorSep::Arrow => " <- ",
                    GeneratorSep::Colon => " : ",
                });
                self.expr(e, FUNCTIONAL);
            }
            StmtKind::Guard(e) => self.expr(e, FUNCTIONAL),
        }
    }

    fn field(&mut self, f: &Field) {
        match &f.kind {
            FieldKind::Input(pat, restriction) | FieldKind::NondetInput(pat, restriction) => {
                self.put(symbol(if matches!(f.kind, FieldKind::Input(..)) {
                    Operator::FieldIn
                } else {
                    Operator::FieldNondet
                }));
                self.pattern(pat, FUNCTIONAL);
                if let Some(set) = restriction {
                    self.put(":");
                    self.expr(set, FUNCTIONAL);
                }
            }
            FieldKind::Output(e) => {
                self.put(symbol(Operator::FieldOut));
                self.expr(e, FUNCTIONAL);
            }
        }
    }

    // ------------------------------------------------------------ patterns

    /// Writes `pat`, in parentheses where the table's bracketing rule
    /// wants them in a place taking level `min` or tighter.
    pub(crate) fn pattern(&mut self, pat: &Pattern, min: u8) {
        if needs_brackets(pattern_operator(pat).map_or(ATOM, level), min) {
            self.bracketed("(", ")", false, |p| p.pattern_bare(pat));
        } else {
            self.pattern_bare(pat);
        }
    }

    fn pattern_bare(&mut self, pat: &Pattern) {
        match &pat.kind {
            PatternKind::Wildcard => self.put("_"),
            PatternKind::Name(n) => self.name(n),
            PatternKind::Int(i) => self.put(&i.to_string()),
            PatternKind::Char(c) => self.char_literal(*c),
            PatternKind::String(s) => self.string_literal(s),
            PatternKind::Bool(b) => self.put(if *b { "true" } else { "false" }),
            PatternKind::Tuple(items) => {
                self.bracketed("(", ")", false, |p| p.list(items, |p, x| p.pattern(x, 0)))
            }
            PatternKind::Seq(items) => {
                self.bracketed("<", ">", true, |p| p.list(items, |p, x| p.pattern(x, 0)))
            }
            PatternKind::Set(items) => {
                self.bracketed("{", "}", false, |p| p.list(items, |p, x| p.pattern(x, 0)))
            }
            PatternKind::Dot(l, r) => self.pattern_operands(Operator::Dot, l, r),
            PatternKind::Concat(l, r) => self.pattern_operands(Operator::Concat, l, r),
            PatternKind::DoubleAt(l, r) => self.pattern_operands(Operator::DoubleAt, l, r),
        }
    }

    /// Writes `l op r` of patterns.
    fn pattern_operands(&mut self, op: Operator, l: &Pattern, r: &Pattern) {
        self.pattern(l, operand_min(op, Side::Left));
        self.infix(op);
        self.pattern(r, operand_min(op, Side::Right));
    }

    // ------------------------------------------------------------ literals

    fn string_literal(&mut self, s: &str) {
        self.out.push('"');
        for c in s.chars() {
            self.escaped(c, '"');
        }
        self.out.push('"');
    }

    fn char_literal(&mut self, c: char) {
        self.out.push('\'');
        self.escaped(c, '\'');
        self.out.push('\'');
    }

    fn escaped(&mut self, c: char, quote: char) {
        match c {
            '\n' => self.put("\\n"),
            '\t' => self.put("\\t"),
            '\r' => self.put("\\r"),
            '\0' => self.put("\\0"),
            '\\' => self.put("\\\\"),
            c if c == quote => {
                self.out.push('\\');
                self.out.push(c);
            }
            c => self.out.push(c),
        }
    }
}

/// Renders with a fresh printer.
fn render(f: &mut fmt::Formatter<'_>, write: impl FnOnce(&mut Printer)) -> fmt::Result {
    let mut p = Printer::default();
    write(&mut p);
    f.write_str(&p.finish())
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        render(f, |p| p.expr(self, 0))
    }
}

impl fmt::Display for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        render(f, |p| p.pattern(self, 0))
    }
}

impl fmt::Display for Decl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        render(f, |p| p.decl(self))
    }
}

impl fmt::Display for TypeExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        render(f, |p| p.type_expr(self))
    }
}

impl fmt::Display for File {
    /// One declaration per line, ending in a newline.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        render(f, |p| {
            p.decls(&self.decls);
            if !self.decls.is_empty() {
                p.put("\n");
            }
        })
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

#[cfg(test)]
mod tests;
