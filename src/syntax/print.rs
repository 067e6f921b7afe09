//! The pretty-printer: CSPM text from the AST, re-parsing to the same tree.
//!
//! Parentheses are put back exactly where binding strengths need them
//! (the levels below are read from the table in `strength.rs`), plus around
//! the constructs that extend as far right as they can (`if`, `let`,
//! lambdas, replicated operators) whenever they are an operand.

use std::fmt;

use super::ast::*;
use super::strength::{self, Fixity, Operator};

/// Binding strength of an expression's outermost operator; atoms are the
/// tightest. `GREEDY` constructs extend to the right as far as possible.
mod level {
    use super::super::strength::{self, Operator, level};
    pub const GREEDY: u8 = strength::GREEDY;
    pub const HIDE: u8 = level(Operator::Hide);
    pub const INTERLEAVE: u8 = level(Operator::Interleave);
    pub const PARALLEL: u8 = level(Operator::GenPar);
    pub const INTERNAL: u8 = level(Operator::IntChoice);
    pub const EXTERNAL: u8 = level(Operator::ExtChoice);
    pub const INTERRUPT: u8 = level(Operator::Interrupt);
    pub const SLIDING: u8 = level(Operator::Sliding);
    pub const SEQUENTIAL: u8 = level(Operator::Seq);
    pub const PREFIX: u8 = level(Operator::Then);
    pub const FIELD: u8 = level(Operator::FieldOut);
    pub const DOUBLE_AT: u8 = level(Operator::DoubleAt);
    pub const DOT: u8 = level(Operator::Dot);
    pub const NOT: u8 = level(Operator::Not);
    pub const NEG: u8 = level(Operator::Neg);
    pub const LENGTH: u8 = level(Operator::Length);
    pub const CONCAT: u8 = level(Operator::Concat);
    pub const POSTFIX: u8 = level(Operator::Call);
    pub const ATOM: u8 = strength::ATOM;
    /// The loosest level of a functional-only context (a field, a
    /// generator, a channel type): everything looser needs parentheses.
    pub const FUNCTIONAL: u8 = DOUBLE_AT;
}

/// The operator of the binding-strength table a binary operator is.
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

fn binary_level(op: BinaryOp) -> u8 {
    strength::level(binary_operator(op))
}

pub fn binary_symbol(op: BinaryOp) -> &'static str {
    match op {
        BinaryOp::Add => "+",
        BinaryOp::Sub => "-",
        BinaryOp::Mul => "*",
        BinaryOp::Div => "/",
        BinaryOp::Mod => "%",
        BinaryOp::Eq => "==",
        BinaryOp::Ne => "!=",
        BinaryOp::Lt => "<",
        BinaryOp::Le => "<=",
        BinaryOp::Gt => ">",
        BinaryOp::Ge => ">=",
        BinaryOp::And => "and",
        BinaryOp::Or => "or",
        BinaryOp::Concat => "^",
    }
}

fn process_level(op: ProcOp) -> u8 {
    match op {
        ProcOp::ExternalChoice => level::EXTERNAL,
        ProcOp::InternalChoice => level::INTERNAL,
        ProcOp::Interleave => level::INTERLEAVE,
        ProcOp::SequentialComposition => level::SEQUENTIAL,
        ProcOp::Interrupt => level::INTERRUPT,
        ProcOp::SlidingChoice => level::SLIDING,
    }
}

pub fn process_symbol(op: ProcOp) -> &'static str {
    match op {
        ProcOp::ExternalChoice => "[]",
        ProcOp::InternalChoice => "|~|",
        ProcOp::Interleave => "|||",
        ProcOp::SequentialComposition => ";",
        ProcOp::Interrupt => "/\\",
        ProcOp::SlidingChoice => "[>",
    }
}

fn expr_level(e: &Expr) -> u8 {
    use ExprKind::*;
    match &e.kind {
        Int(i) if *i < 0 => level::NEG,
        Int(_) | Char(_) | String(_) | Bool(_) | Name(_) | Wildcard | Tuple(_) => level::ATOM,
        Seq(_) | SeqRange(..) | SeqComprehension(..) | Set(_) | SetRange(..) => level::ATOM,
        SetComprehension(..) | Production(..) | Map(_) => level::ATOM,
        App(..) | Rename(..) => level::POSTFIX,
        Dot(..) => level::DOT,
        Unary(UnaryOp::Neg, _) => level::NEG,
        Unary(UnaryOp::Not, _) => level::NOT,
        Unary(UnaryOp::Length, _) => level::LENGTH,
        Binary(op, ..) => binary_level(*op),
        DoubleAt(..) => level::DOUBLE_AT,
        If(..) | Let(..) | Lambda(..) | Replicated(..) => level::GREEDY,
        Prefix(..) | Guard(..) => level::PREFIX,
        Process(op, ..) => process_level(*op),
        Hide(..) | Project(..) => level::HIDE,
        GenParallel(..) | Exception(..) | AlphaParallel(..) | LinkedParallel(..) => level::PARALLEL,
        SyncExternalChoice(..) => level::EXTERNAL,
        SyncInterrupt(..) => level::INTERRUPT,
    }
}

fn pattern_level(p: &Pattern) -> u8 {
    match &p.kind {
        PatternKind::Int(i) if *i < 0 => level::NEG,
        PatternKind::Dot(..) => level::DOT,
        PatternKind::Concat(..) => level::CONCAT,
        PatternKind::DoubleAt(..) => level::DOUBLE_AT,
        _ => level::ATOM,
    }
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
        let mut p = Printer {
            in_sequence: self.in_sequence,
            flat: true,
            ..Printer::default()
        };
        p.expr_bare(e);
        !p.out.contains('\n')
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

    // ------------------------------------------------------------ declarations

    pub(crate) fn decls(&mut self, decls: &[Decl]) {
        for (i, d) in decls.iter().enumerate() {
            if i > 0 {
                self.newline();
            }
            self.decl(d);
        }
    }

    fn indented_decls(&mut self, decls: &[Decl]) {
        self.indent += 2;
        for d in decls {
            self.newline();
            self.decl(d);
        }
        self.indent -= 2;
    }

    pub(crate) fn decl(&mut self, d: &Decl) {
        match &d.kind {
            DeclKind::Definition(def) => {
                match &def.lhs {
                    Lhs::Name(n) => self.put(&n.name),
                    Lhs::Function(n, params) => {
                        self.put(&n.name);
                        for group in params {
                            self.bracketed("(", ")", false, |p| {
                                p.list(group, |p, x| p.pattern(x, 0))
                            });
                        }
                    }
                    Lhs::Pattern(pat) => self.pattern(pat, level::FUNCTIONAL),
                }
                self.put(" =");
                self.definition_body(&def.rhs);
            }
            DeclKind::TypeAnnotation(names, ty) => {
                self.idents(names);
                self.put(" :: ");
                self.type_expr(ty);
            }
            DeclKind::Channel(names, ty) => {
                self.put("channel ");
                self.idents(names);
                if let Some(t) = ty {
                    self.put(" : ");
                    self.expr(t, level::FUNCTIONAL);
                }
            }
            DeclKind::DataType(name, clauses) | DeclKind::SubType(name, clauses) => {
                let keyword = if matches!(d.kind, DeclKind::DataType(..)) {
                    "datatype"
                } else {
                    "subtype"
                };
                self.put(keyword);
                self.put(" ");
                self.put(&name.name);
                self.put(" = ");
                for (i, c) in clauses.iter().enumerate() {
                    if i > 0 {
                        self.put(" | ");
                    }
                    self.put(&c.name.name);
                    if let Some(f) = &c.fields {
                        self.put(".");
                        self.expr(f, level::FUNCTIONAL);
                    }
                }
            }
            DeclKind::NameType(name, e) => {
                self.put("nametype ");
                self.put(&name.name);
                self.put(" = ");
                self.expr(e, 0);
            }
            DeclKind::External(names) => {
                self.put("external ");
                self.idents(names);
            }
            DeclKind::Transparent(names) => {
                self.put("transparent ");
                self.idents(names);
            }
            DeclKind::Assert(a) => self.assertion(a),
            DeclKind::Include(inc) => {
                // The path is read without escapes (see `build::include_path`).
                self.put("include \"");
                self.put(&inc.path);
                self.put("\"");
            }
            DeclKind::Print(e) => {
                self.put("print ");
                self.expr(e, 0);
            }
            DeclKind::Module(m) => {
                self.put("module ");
                self.put(&m.name.name);
                if let Some(params) = &m.params {
                    self.bracketed("(", ")", false, |p| p.idents(params));
                }
                self.indented_decls(&m.private);
                if let Some(exports) = &m.exports {
                    self.newline();
                    self.put("exports");
                    self.indented_decls(exports);
                }
                self.newline();
                self.put("endmodule");
            }
            DeclKind::Instance(name, module, args) => {
                self.put("instance ");
                self.put(&name.name);
                self.put(" = ");
                self.name(module);
                if let Some(args) = args {
                    self.bracketed("(", ")", false, |p| p.list(args, |p, a| p.expr(a, 0)));
                }
            }
            DeclKind::Timed(function, decls) => {
                self.put("Timed");
                if let Some(f) = function {
                    self.bracketed("(", ")", false, |p| p.expr(f, 0));
                }
                self.put(" {");
                self.indented_decls(decls);
                self.newline();
                self.put("}");
            }
        }
    }

    fn idents(&mut self, names: &[Ident]) {
        self.list(names, |p, n| p.put(&n.name));
    }

    fn name(&mut self, name: &Name) {
        self.put(&name.text);
    }

    fn assertion(&mut self, a: &Assertion) {
        self.put("assert ");
        if a.negated {
            self.put("not ");
        }
        let model = |m: &Option<Model>| {
            m.map(|m| format!(" [{}]", m.abbreviation()))
                .unwrap_or_default()
        };
        match &a.kind {
            AssertionKind::Refinement { spec, model, imp } => {
                self.expr(spec, level::HIDE);
                self.put(&format!(" [{}= ", model.abbreviation()));
                self.expr(imp, level::HIDE);
            }
            AssertionKind::Property {
                process,
                property,
                model: m,
            } => {
                self.expr(process, level::HIDE);
                self.put(&format!(" :[{}{}]", property.text(), model(m)));
            }
            AssertionKind::HasTrace {
                process,
                model: m,
                trace,
            } => {
                self.expr(process, level::HIDE);
                self.put(&format!(" :[has trace{}]: ", model(m)));
                self.expr(trace, level::FUNCTIONAL);
            }
            AssertionKind::Symmetric { process, types } => {
                self.expr(process, level::HIDE);
                self.put(" :[symmetric]: ");
                self.list(types, |p, t| p.expr(t, level::FUNCTIONAL));
            }
        }
        for option in &a.options {
            match &option.kind {
                AssertOptionKind::TauPriority(set) => {
                    self.put(" :[tau priority over]: ");
                    self.expr(set, level::FUNCTIONAL);
                }
                AssertOptionKind::PartialOrderReduce(mode) => {
                    self.put(" :[partial order reduce");
                    if let Some(mode) = mode {
                        self.put(" [");
                        self.put(&mode.name);
                        self.put("]");
                    }
                    self.put("]");
                }
                AssertOptionKind::SymmetryReduce(types) => {
                    self.put(" :[symmetry reduce]");
                    if !types.is_empty() {
                        self.put(": ");
                        self.list(types, |p, t| p.expr(t, level::FUNCTIONAL));
                    }
                }
            }
        }
    }

    pub(crate) fn type_expr(&mut self, t: &TypeExpr) {
        match &t.kind {
            TypeKind::Name(n) => self.name(n),
            TypeKind::Tuple(items) => {
                self.bracketed("(", ")", false, |p| p.list(items, |p, t| p.type_expr(t)))
            }
            TypeKind::Set(inner) => self.bracketed("{", "}", false, |p| p.type_expr(inner)),
            TypeKind::Seq(inner) => self.bracketed("<", ">", false, |p| p.type_expr(inner)),
            TypeKind::Map(k, v) => self.bracketed("(|", "|)", false, |p| {
                p.type_expr(k);
                p.put(" => ");
                p.type_expr(v);
            }),
            TypeKind::Dot(parts) => {
                for (i, part) in parts.iter().enumerate() {
                    if i > 0 {
                        self.put(".");
                    }
                    self.type_expr(part);
                }
            }
            TypeKind::Function(arg, result) => {
                self.type_expr(arg);
                self.put(" -> ");
                self.type_expr(result);
            }
            TypeKind::Dotable(fields, result) => {
                self.type_expr(fields);
                self.put(" => ");
                self.type_expr(result);
            }
            TypeKind::Extendable(fields, result) => {
                self.type_expr(fields);
                self.put(" =>* ");
                self.type_expr(result);
            }
            TypeKind::Constrained(constraints, body) => {
                let write = |p: &mut Self, (class, var): &(Ident, Ident)| {
                    p.put(&class.name);
                    p.put(" ");
                    p.put(&var.name);
                };
                if constraints.len() == 1 {
                    write(self, &constraints[0]);
                } else {
                    self.bracketed("(", ")", false, |p| p.list(constraints, write));
                }
                self.put(" => ");
                self.type_expr(body);
            }
        }
    }

    // ------------------------------------------------------------ expressions

    /// Writes `e`, in parentheses if it binds looser than `min`.
    pub(crate) fn expr(&mut self, e: &Expr, min: u8) {
        let lvl = expr_level(e);
        let greedy_operand = lvl == level::GREEDY && min > 0;
        let closes_sequence =
            self.in_sequence && matches!(e.kind, ExprKind::Binary(BinaryOp::Gt, ..));
        if lvl < min || greedy_operand || closes_sequence {
            self.bracketed("(", ")", false, |p| p.expr_bare(e));
        } else {
            self.expr_bare(e);
        }
    }

    fn binary_operands(&mut self, op: Operator, l: &Expr, symbol: &str, r: &Expr) {
        let (lmin, rmin) = match strength::strength(op) {
            (lvl, Fixity::Right) => (lvl + 1, lvl),
            (lvl, _) => (lvl, lvl + 1),
        };
        self.expr(l, lmin);
        self.put(symbol);
        self.expr(r, rmin);
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
            App(f, args) => {
                self.expr(f, level::POSTFIX);
                self.bracketed("(", ")", false, |p| p.list(args, |p, x| p.expr(x, 0)));
            }
            Dot(l, r) => {
                // `c.(x + 1)` parses without the parentheses (dot binds
                // loosest of the functional operators) but reads better.
                let lmin = if matches!(l.kind, Binary(..)) {
                    level::ATOM
                } else {
                    level::DOT + 1
                };
                let rmin = if matches!(r.kind, Binary(..)) {
                    level::ATOM
                } else {
                    level::DOT
                };
                self.expr(l, lmin);
                self.put(".");
                self.expr(r, rmin);
            }
            Unary(op, x) => {
                let (symbol, lvl) = match op {
                    UnaryOp::Neg => ("-", level::NEG),
                    UnaryOp::Not => ("not ", level::NOT),
                    UnaryOp::Length => ("#", level::LENGTH),
                };
                self.put(symbol);
                let start = self.out.len();
                self.expr(x, lvl);
                // `- -x` must not become the comment `--x`.
                if *op == UnaryOp::Neg && self.out[start..].starts_with('-') {
                    self.out.insert(start, ' ');
                }
            }
            Binary(op, l, r) => {
                let symbol = format!(" {} ", binary_symbol(*op));
                self.binary_operands(binary_operator(*op), l, &symbol, r);
            }
            DoubleAt(l, r) => self.binary_operands(Operator::DoubleAt, l, " @@ ", r),
            If(c, t, f) => {
                // Broken, `then` and `else` start lines of their own and
                // their branches continue further in.
                let fits = self.fits(e);
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
            Let(decls, body) => {
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
            Lambda(params, body) => {
                self.put("\\ ");
                self.list(params, |p, x| p.pattern(x, level::FUNCTIONAL));
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
            Prefix(event, fields, body) => {
                // A long chain of prefixes goes on with one event per line.
                let fits = self.fits(e);
                let indent = self.continuation_indent();
                if fields.is_empty() {
                    self.expr(event, level::PREFIX + 1);
                } else {
                    self.expr(event, level::FIELD + 1);
                    for f in fields {
                        self.field(f);
                    }
                }
                self.put(" ->");
                self.break_or_space(fits, indent);
                self.with_continuation(indent, |p| p.expr(body, level::PREFIX));
            }
            Guard(b, p) => self.binary_operands(Operator::Guard, b, " & ", p),
            Process(op, l, r) => {
                let lvl = process_level(*op);
                self.process_operands(e, lvl, l, r, |p| p.put(process_symbol(*op)));
            }
            Hide(l, r) => self.process_operands(e, level::HIDE, l, r, |p| p.put("\\")),
            Project(l, r) => self.process_operands(e, level::HIDE, l, r, |p| p.put("|\\")),
            GenParallel(l, a, r) => self.process_operands(e, level::PARALLEL, l, r, |p| {
                p.bracketed("[| ", " |]", false, |p| p.expr(a, 0))
            }),
            Exception(l, a, r) => self.process_operands(e, level::PARALLEL, l, r, |p| {
                p.bracketed("[| ", " |>", false, |p| p.expr(a, 0))
            }),
            AlphaParallel(par) => {
                let (l, r) = (&par.left, &par.right);
                self.process_operands(e, level::PARALLEL, l, r, |p| {
                    p.bracketed("[", "]", false, |p| {
                        p.expr(&par.left_alphabet, level::FUNCTIONAL);
                        p.put(" || ");
                        p.expr(&par.right_alphabet, 0);
                    })
                })
            }
            LinkedParallel(par) => {
                let (l, r) = (&par.left, &par.right);
                self.process_operands(e, level::PARALLEL, l, r, |p| {
                    p.bracketed("[", "]", false, |p| {
                        p.links(&par.links, " <-> ", &par.stmts)
                    })
                })
            }
            SyncExternalChoice(l, a, r) => self.process_operands(e, level::EXTERNAL, l, r, |p| {
                p.bracketed("[+ ", " +]", false, |p| p.expr(a, 0))
            }),
            SyncInterrupt(l, a, r) => self.process_operands(e, level::INTERRUPT, l, r, |p| {
                p.bracketed("/+ ", " +\\", false, |p| p.expr(a, 0))
            }),
            Rename(p, pairs, _) if pairs.is_empty() => {
                self.expr(p, level::POSTFIX);
                self.put(" [[ ]]");
            }
            Rename(p, pairs, stmts) => {
                self.expr(p, level::POSTFIX);
                self.bracketed(" [[ ", " ]]", false, |p| p.links(pairs, " <- ", stmts));
            }
            Replicated(replicated) => {
                let super::ast::Replicated { op, stmts, body } = &**replicated;
                match op {
                    ReplicatedOp::ExternalChoice => self.put("[] "),
                    ReplicatedOp::InternalChoice => self.put("|~| "),
                    ReplicatedOp::Interleave => self.put("||| "),
                    ReplicatedOp::SequentialComposition => self.put("; "),
                    ReplicatedOp::SyncExternalChoice(a) => {
                        self.bracketed("[+ ", " +] ", false, |p| p.expr(a, 0));
                    }
                    ReplicatedOp::GenParallel(a) => {
                        self.bracketed("[| ", " |] ", false, |p| p.expr(a, 0));
                    }
                    ReplicatedOp::LinkedParallel(links, link_stmts) => {
                        self.bracketed("[ ", " ] ", false, |p| p.links(links, " <-> ", link_stmts));
                    }
                    ReplicatedOp::AlphaParallel(_) => self.put("|| "),
                }
                self.list(stmts, |p, s| p.stmt(s));
                self.put(" @ ");
                if let ReplicatedOp::AlphaParallel(alphabet) = op {
                    self.bracketed("[", "] ", false, |p| p.expr(alphabet, 0));
                }
                self.expr(body, 0);
            }
        }
    }

    /// Writes `l op r` for a left-associative process operator: on one
    /// line if it fits, otherwise with `op r` on a new, indented line (FDR
    /// lets a newline stand before every process operator).
    fn process_operands(
        &mut self,
        whole: &Expr,
        lvl: u8,
        l: &Expr,
        r: &Expr,
        op: impl FnOnce(&mut Self),
    ) {
        // Once a chain `a [] b [] c` breaks, every link of it does.
        let forced = std::mem::take(&mut self.break_chain);
        let fits = !forced && self.fits(whole);
        let indent = self.continuation_indent();
        self.break_chain =
            !fits && std::mem::discriminant(&l.kind) == std::mem::discriminant(&whole.kind);
        self.with_continuation(indent, |p| p.expr(l, lvl));
        self.break_chain = false;
        self.break_or_space(fits, indent);
        op(self);
        self.put(" ");
        // A hidden set that is itself a process operator is bracketed:
        // unbracketed, the hiding would take its first operand
        // (`ExprKind::hiding`).
        let right = match whole.kind {
            ExprKind::Hide(..) | ExprKind::Project(..) => level::PREFIX,
            _ => lvl + 1,
        };
        self.with_continuation(indent, |p| p.expr(r, right));
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
            p.expr(a, level::FUNCTIONAL);
            p.put(arrow);
            p.expr(b, level::FUNCTIONAL);
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
                self.pattern(pat, level::FUNCTIONAL);
                self.put(match sep {
                    GeneratorSep::Arrow => " <- ",
                    GeneratorSep::Colon => " : ",
                });
                self.expr(e, level::FUNCTIONAL);
            }
            StmtKind::Guard(e) => self.expr(e, level::FUNCTIONAL),
        }
    }

    fn field(&mut self, f: &Field) {
        match &f.kind {
            FieldKind::Input(pat, restriction) | FieldKind::NondetInput(pat, restriction) => {
                self.put(if matches!(f.kind, FieldKind::Input(..)) {
                    "?"
                } else {
                    "$"
                });
                self.pattern(pat, level::FUNCTIONAL);
                if let Some(set) = restriction {
                    self.put(":");
                    self.expr(set, level::FUNCTIONAL);
                }
            }
            FieldKind::Output(e) => {
                self.put("!");
                self.expr(e, level::FUNCTIONAL);
            }
        }
    }

    // ------------------------------------------------------------ patterns

    pub(crate) fn pattern(&mut self, pat: &Pattern, min: u8) {
        if pattern_level(pat) < min {
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
            PatternKind::Dot(l, r) => {
                self.pattern(l, level::DOT + 1);
                self.put(".");
                self.pattern(r, level::DOT);
            }
            PatternKind::Concat(l, r) => {
                self.pattern(l, level::CONCAT);
                self.put(" ^ ");
                self.pattern(r, level::CONCAT + 1);
            }
            PatternKind::DoubleAt(l, r) => {
                self.pattern(l, level::DOUBLE_AT + 1);
                self.put(" @@ ");
                self.pattern(r, level::DOUBLE_AT);
            }
        }
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
