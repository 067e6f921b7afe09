//! The inference state shared by unification, expressions and
//! declarations, and how a type error becomes a diagnostic.
//!
//! A type error is reported where it is found, as FDR words it
//! ("Couldn't match expected type Int with actual type Bool"), with the
//! chain of types being matched ("whilst matching ...") and the
//! expressions around it ("in the expression: ...") as notes; the error
//! then travels up as [`Reported`] to the nearest place that recovers
//! (an expression checked against an expected type, a declaration), so
//! checking goes on and every independent mistake is reported.

use rustc_hash::FxHashMap;

use crate::budget::{Meter, Ticker};
use crate::script::Script;
use crate::script::ir::{DataTypeId, ExprId, FuncId, TypeVarId, VarRef};
use crate::syntax::{Diagnostic, Span};
use ustr::Ustr;

use super::env::Env;
use super::print::{Namer, Printer};
use super::ty::{Class, Store, Ty, TyId};

/// A type error was reported; the checking that met it stops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reported;

/// What checking found (a type, by default), or that it reported a type
/// error.
pub type Inferred<T = TyId> = Result<T, Reported>;

/// Whether values of a datatype can be compared with `==`: decided for
/// a group of datatypes once their fields' types are known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Equality {
    Yes,
    No,
    /// Being decided: a use of `==` is remembered and judged later.
    Pending,
}

/// What a type error is found in, innermost last: each becomes a note.
#[derive(Debug, Clone)]
pub enum Context {
    Expr(ExprId),
    /// The n-th argument (from 1) of a call of `function`.
    Argument {
        n: usize,
        function: ExprId,
        argument: ExprId,
    },
    /// The n-th operand (from 1) of `and` or `or`, which FDR reads as
    /// functions.
    Operand {
        n: usize,
        operator: &'static str,
        operand: ExprId,
    },
    /// A prefix's field, a comprehension's statement, a pattern binding:
    /// the text at the span, with what it is.
    Source {
        what: &'static str,
        span: Span,
    },
    /// An equation of the function named.
    Equation {
        name: Ustr,
        span: Span,
    },
    /// The declaration of a name.
    Declaration(Ustr),
    /// The declaration of a module instance, named.
    Instance(Ustr),
}

/// Most notes of context one error lists (FDR shows three).
const MAX_CONTEXTS: usize = 3;

/// Most type errors reported in one script.
pub const MAX_ERRORS: usize = 100;

/// Steps of inference allowed for one script, per byte of its text plus
/// a base: far more than any script written by hand needs, it stops
/// types that grow exponentially.
pub const WORK_PER_BYTE: u64 = 2_000;
pub const WORK_BASE: u64 = 50_000_000;

/// Everything inference keeps while it runs.
pub struct Checker<'s> {
    pub script: &'s Script,
    pub store: Store,
    /// The unifications in progress, outermost first: (expected, actual).
    pub pairs: Vec<(TyId, TyId)>,
    /// The class checks in progress, outermost first.
    pub class_pairs: Vec<(Class, TyId)>,
    /// Whether `x.y` written where a datatype value or event is expected
    /// may match it (not for function arguments and patterns: FDR does
    /// not take values apart by dots there).
    pub symmetric: bool,
    pub equality: Vec<Equality>,
    /// Uses of `==` on datatypes still being decided, with where.
    pub pending_equality: Vec<(DataTypeId, Span, Vec<Context>)>,
    pub contexts: Vec<Context>,
    /// The place being checked: where an error points.
    pub at: Span,
    pub diagnostics: Vec<Diagnostic>,
    /// Diagnostics already given, by place and message.
    said: FxHashMap<(u32, u32), Vec<String>>,
    /// Per module instance (by its place in the script's generic copies):
    /// its parameters' types, fresh copies of the module's.
    pub instance_types: FxHashMap<u32, Vec<TyId>>,
    pub work: u64,
    pub work_limit: u64,
    pub env: Env,
    /// See [`State::variables`].
    pub variables: FxHashMap<(FuncId, u32), TyId>,
    /// The functions being checked, innermost last.
    pub frames: Vec<Frame>,
    /// The variables of the functions being checked, frame after frame.
    pub bindings: Vec<super::env::Binding>,
    /// The types of the group of declarations being checked (they are
    /// the environment of a `let` inside them).
    pub group_types: Vec<TyId>,
    /// The rigid variable of each annotation's type variable.
    pub rigids: FxHashMap<TypeVarId, TyId>,
    /// The time-out, memory budget and cancel, polled once every
    /// [`TICKS_PER_POLL`] steps of work: once it has stopped, every step
    /// fails without a diagnostic, and the caller asks it why.
    pub ticker: Ticker,
}

/// How many variables an error lists, as FDR: the first ten met.
const RELEVANT_VARIABLES: usize = 10;

/// Steps of inference between two polls of the loading meter.
const TICKS_PER_POLL: u32 = 4096;

/// What inference knows once a script is checked: enough to check
/// expressions added to the script later in its scope.
#[derive(Debug, Clone)]
pub struct State {
    pub store: Store,
    pub env: Env,
    pub equality: Vec<Equality>,
    /// The type of each function's variables, by slot, as first
    /// checked: what an editor shows on a variable.
    pub variables: FxHashMap<(FuncId, u32), TyId>,
}

impl State {
    /// Forgets what it knows of declarations `script` no longer has (the
    /// generic copies of its modules, [`Script::drop_generic_copies`]):
    /// what is added to the script later reuses their ids.
    pub fn trim_to(&mut self, script: &Script) {
        self.env.globals.truncate(script.globals.len());
        self.env.ctors.truncate(script.ctors.len());
        self.env.channels.truncate(script.channels.len());
        self.equality.truncate(script.datatypes.len());
        let functions = script.functions.len();
        self.env.members.retain(|f, _| f.index() < functions);
        self.variables.retain(|(f, _), _| f.index() < functions);
    }

    pub fn new(script: &Script) -> State {
        State {
            store: Store::default(),
            env: Env::new(
                script.globals.len(),
                script.ctors.len(),
                script.channels.len(),
            ),
            equality: vec![Equality::Yes; script.datatypes.len()],
            variables: FxHashMap::default(),
        }
    }
}

impl<'s> Checker<'s> {
    /// A checker for `script` that knows what `state` knows.
    pub fn new(script: &'s Script, state: State) -> Checker<'s> {
        let text: u64 = script
            .sources
            .files()
            .map(|(_, f)| f.text.len() as u64)
            .sum();
        Checker {
            script,
            store: state.store,
            pairs: Vec::new(),
            class_pairs: Vec::new(),
            symmetric: true,
            equality: state.equality,
            pending_equality: Vec::new(),
            contexts: Vec::new(),
            at: Span::default(),
            diagnostics: Vec::new(),
            said: FxHashMap::default(),
            instance_types: FxHashMap::default(),
            work: 0,
            work_limit: WORK_BASE + text * WORK_PER_BYTE,
            env: state.env,
            variables: state.variables,
            frames: Vec::new(),
            bindings: Vec::new(),
            group_types: Vec::new(),
            rigids: FxHashMap::default(),
            ticker: Ticker::unlimited(),
        }
    }

    /// The same checker, polling `meter` as it works.
    pub fn polling(mut self, meter: &Meter) -> Checker<'s> {
        self.ticker = Ticker::new(meter.clone(), TICKS_PER_POLL);
        self
    }

    /// What this checker has learnt, and the errors it found.
    pub fn finish(self) -> (State, Vec<Diagnostic>) {
        (
            State {
                store: self.store,
                env: self.env,
                equality: self.equality,
                variables: self.variables,
            },
            self.diagnostics,
        )
    }

    /// Counts a step of work; past the budget, inference stops.
    pub fn tick(&mut self) -> Inferred<()> {
        if self.ticker.stopped().is_some() || self.ticker.tick().is_err() {
            return Err(Reported);
        }
        self.work += 1;
        if self.work > self.work_limit {
            if self.work == self.work_limit + 1 {
                let d = Diagnostic::error(
                    self.at,
                    "type checking stopped: the types here grow too large to work out",
                )
                .with_note(format!(
                    "inference took more than {} steps; a definition whose type doubles with each \
                     use (`f(x) = (x, x)` applied to itself) makes types too large to write",
                    self.work_limit
                ));
                self.diagnostics.push(d);
            }
            return Err(Reported);
        }
        Ok(())
    }

    /// Runs `f` with `context` as the innermost note of any error.
    pub fn within<T>(&mut self, context: Context, f: impl FnOnce(&mut Self) -> T) -> T {
        self.contexts.push(context);
        let result = f(self);
        self.contexts.pop();
        result
    }

    /// Runs `f` with `span` as the place errors point at.
    pub fn at<T>(&mut self, span: Span, f: impl FnOnce(&mut Self) -> T) -> T {
        let outer = std::mem::replace(&mut self.at, span);
        let result = f(self);
        self.at = outer;
        result
    }

    /// Runs `f` with unification of `x.y` against values made of dots
    /// turned off (function arguments, patterns).
    pub fn asymmetric<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        let outer = std::mem::replace(&mut self.symmetric, false);
        let result = f(self);
        self.symmetric = outer;
        result
    }

    pub fn printer<'p>(&'p mut self, namer: &'p mut Namer) -> Printer<'p> {
        Printer {
            store: &mut self.store,
            script: self.script,
            namer,
        }
    }

    /// Reports a diagnostic at the current place with the current
    /// contexts, unless the same was said there already.
    pub fn report(&mut self, message: String, notes: Vec<String>) -> Reported {
        self.report_then(message, notes, None)
    }

    /// [`Checker::report`] with a last note after the contexts'.
    fn report_then(
        &mut self,
        message: String,
        mut notes: Vec<String>,
        last: Option<String>,
    ) -> Reported {
        if self.diagnostics.len() >= MAX_ERRORS {
            return Reported;
        }
        let key = (self.at.start, self.at.end);
        let said = self.said.entry(key).or_default();
        if said.contains(&message) {
            return Reported;
        }
        said.push(message.clone());
        notes.extend(self.context_notes(&self.contexts.clone()));
        notes.extend(last);
        let mut d = Diagnostic::error(self.at, message);
        d.notes = notes;
        self.diagnostics.push(d);
        Reported
    }

    /// The notes that say where an error was found, innermost first.
    pub fn context_notes(&self, contexts: &[Context]) -> Vec<String> {
        contexts
            .iter()
            .rev()
            .take(MAX_CONTEXTS)
            .map(|c| self.context_note(c))
            .collect()
    }

    fn context_note(&self, context: &Context) -> String {
        match context {
            Context::Expr(e) => format!("in the expression: {}", self.text(self.expr_span(*e))),
            Context::Argument {
                n,
                function,
                argument,
            } => format!(
                "in the {} argument of {}, namely {}",
                nth(*n),
                self.text(self.expr_span(*function)),
                self.text(self.expr_span(*argument))
            ),
            Context::Operand {
                n,
                operator,
                operand,
            } => format!(
                "in the {} argument of {operator}, namely {}",
                nth(*n),
                self.text(self.expr_span(*operand))
            ),
            Context::Source { what, span } => format!("in {what}: {}", self.text(*span)),
            Context::Equation { name, span } => {
                format!("in an equation for {name}: {}", self.text(*span))
            }
            Context::Declaration(name) => format!("in the declaration of {name}"),
            Context::Instance(name) => {
                format!("in the declaration of the module instance: {name}")
            }
        }
    }

    pub fn expr_span(&self, e: ExprId) -> Span {
        self.script.expr(e).span
    }

    /// The source text at `span` on one line, shortened.
    pub fn text(&self, span: Span) -> String {
        let text = crate::syntax::one_line(&crate::syntax::without_comments(
            self.script.sources.snippet(span),
        ));
        const LONGEST: usize = 80;
        if text.chars().count() > LONGEST {
            let cut: String = text.chars().take(LONGEST).collect();
            format!("{cut}…")
        } else {
            text
        }
    }

    /// "Couldn't match expected type X with actual type Y", for the
    /// unifications in progress.
    pub fn mismatch(&mut self) -> Reported {
        let mut namer = Namer::default();
        let (first, mut notes) = self.pair_lines(&mut namer, false);
        notes.extend(self.rigid_origins(&namer));
        notes.extend(self.remedy());
        let variables = self.relevant_variables(&mut namer);
        self.report_then(first, notes, variables)
    }

    /// FDR's "relevant variable types": each variable the innermost
    /// expression of the error reads, with its type as inferred so far
    /// (named as the message names type variables).
    fn relevant_variables(&mut self, namer: &mut Namer) -> Option<String> {
        let frame = *self.frames.last()?;
        // Every context's expression, innermost first, each read left to
        // right, as FDR lists them.
        let mut vars = Vec::new();
        for context in self.contexts.iter().rev() {
            let e = match context {
                Context::Expr(e) => *e,
                Context::Argument { argument, .. } => *argument,
                Context::Operand { operand, .. } => *operand,
                _ => continue,
            };
            let mut pending = vec![e];
            while let Some(e) = pending.pop() {
                let kind = &self.script.expr(e).kind;
                kind.for_each_var(|v| vars.push(v));
                let at = pending.len();
                kind.for_each_child(|child| pending.push(child));
                pending[at..].reverse();
            }
        }
        let function = self.script.function(frame.func);
        let mut named: Vec<(Ustr, TyId)> = Vec::new();
        for var in vars {
            let (name, index) = match var {
                VarRef::Local(slot) => match self.script.index.variable_in(frame.func, slot) {
                    Some(local) => (local.name, frame.slots + slot),
                    None => continue,
                },
                VarRef::Capture(i) => match function.captures.get(i as usize) {
                    Some(&name) => (name, frame.captures + i),
                    None => continue,
                },
                VarRef::Env => continue,
            };
            if name.starts_with('$') || named.iter().any(|&(n, _)| n == name) {
                continue;
            }
            if let super::env::Binding::Mono(t) = self.bindings[index as usize] {
                named.push((name, t));
            }
            if named.len() == RELEVANT_VARIABLES {
                break;
            }
        }
        if named.is_empty() {
            return None;
        }
        let mut printer = Printer {
            store: &mut self.store,
            script: self.script,
            namer,
        };
        let shown: Vec<String> = named
            .iter()
            .map(|&(name, t)| format!("{name} :: {}", printer.ty(t)))
            .collect();
        Some(format!("relevant variable types: {}", shown.join(", ")))
    }

    /// The likely fix of the outermost mismatch, where one is clear.
    fn remedy(&mut self) -> Option<String> {
        let &(expected, actual) = self.pairs.first()?;
        let (_, expected) = self.store.view(expected);
        let (_, actual) = self.store.view(actual);
        // The expression the mismatch is about, as written.
        let written = match self.contexts.last() {
            Some(Context::Expr(e)) => Some(self.text(self.expr_span(*e))),
            _ => None,
        };
        match (expected, actual) {
            (Ty::Seq(_), Ty::Set(_)) => {
                return Some(
                    "the elements of a set come in no order: `seq(S)` lists a set `S` as a \
                     sequence"
                        .to_string(),
                );
            }
            (Ty::Set(_), Ty::Seq(_)) => {
                return Some(
                    "a sequence is not a set: `set(s)` is the set of the elements of `s`"
                        .to_string(),
                );
            }
            _ => {}
        }
        let written = written?;
        let is_event = |t: Ty| matches!(t, Ty::Event | Ty::Dotable(..) | Ty::Dot(..));
        let events =
            |store: &mut super::ty::Store, inner| store.head(inner) == super::ty::atom::EVENT;
        match (expected, actual) {
            (Ty::Set(inner), _) if is_event(actual) && events(&mut self.store, inner) => {
                Some(format!(
                    "a set of events is written in braces: `{{{written}}}` for the one event, \
                 `{{| {written} |}}` for every event that begins with it"
                ))
            }
            (Ty::Set(_), Ty::Int | Ty::Bool | Ty::Char | Ty::Data(_) | Ty::Tuple(_)) => Some(
                format!("a set is written in braces: `{{{written}}}` is the set of one value"),
            ),
            (Ty::Event, Ty::Dotable(..)) => Some(format!(
                "`{written}` still needs fields to be an event: give them with `.`, `!` or `?`"
            )),
            (Ty::Proc, Ty::Event) => Some(format!(
                "an event is not a process: `{written} -> STOP` performs it and stops"
            )),
            // A channel's fields make an event; a constructor's, a value.
            (Ty::Proc, Ty::Dotable(_, result)) => match self.dotted(result) {
                Ty::Event => Some(format!(
                    "an event is not a process: `{written} -> STOP` performs it and stops"
                )),
                Ty::Data(_) => Some(format!(
                    "`{written}` builds values of a datatype, and a value is not a process"
                )),
                _ => None,
            },
            (Ty::Fun(..), Ty::Proc | Ty::Int | Ty::Bool | Ty::Event | Ty::Set(_) | Ty::Seq(_)) => {
                Some("only a function can be applied to arguments".to_string())
            }
            (Ty::Fun(given, _), Ty::Fun(takes, _)) if given.len() != takes.len() => {
                let plural = |n: usize| if n == 1 { "argument" } else { "arguments" };
                Some(format!(
                    "`{written}` takes {} {}, and is given {}",
                    takes.len(),
                    plural(takes.len()),
                    given.len()
                ))
            }
            _ => None,
        }
    }

    /// What a value of type `t` is once given all its fields: `t`
    /// itself past every `a=>`.
    fn dotted(&mut self, mut t: TyId) -> Ty {
        loop {
            match self.store.view(t).1 {
                Ty::Dotable(_, result) => t = result,
                ty => return ty,
            }
        }
    }

    /// The unification stack as FDR prints it: the innermost pair first,
    /// then each enclosing one ("whilst matching ..."), at most four.
    fn pair_lines(&mut self, namer: &mut Namer, whilst_first: bool) -> (String, Vec<String>) {
        let mut stack: Vec<(TyId, TyId)> = self.pairs.iter().rev().copied().collect();
        if stack.len() > 4 {
            let last = *stack.last().expect("more than four");
            stack.truncate(3);
            stack.push(last);
        }
        let mut lines = Vec::new();
        for (i, &(expected, actual)) in stack.iter().enumerate() {
            let mut p = self.printer(namer);
            let (e, a) = (p.ty(expected), p.ty(actual));
            lines.push(if i == 0 && !whilst_first {
                format!("Couldn't match expected type {e} with actual type {a}")
            } else {
                format!("whilst matching expected type {e} with actual type {a}")
            });
        }
        // A dotted type written as what it gives can repeat the line
        // before it.
        lines.dedup();
        if lines.is_empty() {
            lines.push("the types do not match".to_string());
        }
        let first = lines.remove(0);
        (first, lines)
    }

    /// "The type Proc does not have the constraint Eq", for the class
    /// checks in progress.
    pub fn class_error(&mut self) -> Reported {
        let mut namer = Namer::default();
        let (inner_class, inner) = *self.class_pairs.last().expect("a class check");
        let (outer_class, outer) = self.class_pairs[0];
        let mut p = self.printer(&mut namer);
        let inner_text = p.ty(inner);
        let outer_text = p.ty(outer);
        let message = format!(
            "The type {inner_text} does not have the constraint {}",
            inner_class.name()
        );
        let mut notes = Vec::new();
        if self.class_pairs.len() > 1 {
            notes.push(format!(
                "whilst checking that the type {outer_text} has the constraint {}",
                outer_class.name()
            ));
        }
        if let (_, Ty::Rigid(index, _)) = self.store.view(outer) {
            let rigid = &self.store.rigids[index as usize];
            notes.push(format!(
                "maybe try adding {} {} to the type annotation at {}",
                outer_class.name(),
                rigid.name,
                self.script.sources.location(rigid.bound_at)
            ));
        }
        if !self.pairs.is_empty() {
            let (first, rest) = self.pair_lines(&mut namer, true);
            notes.push(first);
            notes.extend(rest);
        }
        notes.extend(self.rigid_origins(&namer));
        self.report(message, notes)
    }

    /// "Cannot construct the infinite type: a = <a>".
    pub fn infinite(&mut self, var: TyId, ty: TyId) -> Reported {
        let mut namer = Namer::default();
        let mut p = self.printer(&mut namer);
        let (v, t) = (p.ty(var), p.ty(ty));
        let notes = self.rigid_origins(&namer);
        self.report(
            format!("Cannot construct the infinite type: {v} = {t}"),
            notes,
        )
    }

    /// Where each rigid variable a message names was bound.
    fn rigid_origins(&self, namer: &Namer) -> Vec<String> {
        namer
            .named()
            .filter_map(|v| match self.store.node(v) {
                Ty::Rigid(index, _) => {
                    let rigid = &self.store.rigids[index as usize];
                    Some(format!(
                        "{} is the rigid type variable bound by the type annotation at {}",
                        rigid.name,
                        self.script.sources.location(rigid.bound_at)
                    ))
                }
                _ => None,
            })
            .collect()
    }
}

/// "first", "second", ... as FDR counts arguments.
pub fn nth(n: usize) -> String {
    match n {
        1 => "first".into(),
        2 => "second".into(),
        3 => "third".into(),
        4 => "fourth".into(),
        5 => "fifth".into(),
        6 => "sixth".into(),
        7 => "seventh".into(),
        8 => "eighth".into(),
        9 => "ninth".into(),
        n => format!("{n}th"),
    }
}

/// Where a running function's variables are in [`Checker::bindings`]:
/// its captured variables, then its slots. Each is monomorphic, but for
/// a `let` constant with a type annotation, which is generalised.
#[derive(Debug, Clone, Copy)]
pub struct Frame {
    pub func: FuncId,
    pub captures: u32,
    pub slots: u32,
}
