//! Process states as FDR-style process text: a control state as its call
//! (`Node(N3, B, N1)`) or its expression with the bound values, operator
//! terms with CSPM's operators, event sets in FDR's set syntax. States
//! print the same whether they are interned ids or portable keys.

use std::sync::Arc;

use crate::eval::{Proc, Value};
use crate::syntax::strength::{
    ATOM, GREEDY, Operator, Spelling, level, needs_brackets, spelling, symbol,
};

use super::key::{KeyTerm, StateKey};
use super::{
    Compression, EventId, EventRelation, EventSet, Place, ProcId, Processes, TAU, TICK, Term,
};

thread_local! {
    /// Set while a compressed state's original process is printed.
    static INSIDE_COMPRESSED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// The level a state's operator asks of its operands: every operand
/// but an atom is bracketed, tighter than the table's rule needs, since a
/// state is long and read without the binding strengths at hand
/// (`(a -> P) [] (b -> Q)`).
const OPERAND: u8 = ATOM;

/// Writes what `write` writes, in brackets where the table's rule wants
/// them for a term of level `level` in a place taking `min`.
fn bracketed_if(out: &mut String, level: u8, min: u8, write: impl FnOnce(&mut String)) {
    let bracketed = needs_brackets(level, min);
    if bracketed {
        out.push('(');
    }
    write(out);
    if bracketed {
        out.push(')');
    }
}

/// A state of a CSPM operator as written: its operands in order, what
/// stands between two of them and what follows the last.
struct Operation<'t, O> {
    op: Operator,
    operands: Vec<&'t O>,
    joint: String,
    after: String,
}

impl<'t, O> Operation<'t, O> {
    /// Operands joined by the operator's symbol, spaced: `P [] Q`.
    fn plain(op: Operator, operands: impl IntoIterator<Item = &'t O>) -> Self {
        Self::joined(op, operands, format!(" {} ", symbol(op)))
    }

    /// Operands joined by the operator written around `argument`:
    /// `P [| {a} |] Q`.
    fn around(op: Operator, operands: impl IntoIterator<Item = &'t O>, argument: &str) -> Self {
        Self::joined(
            op,
            operands,
            format!(" {} ", spelling(op).enclose(argument)),
        )
    }

    fn joined(op: Operator, operands: impl IntoIterator<Item = &'t O>, joint: String) -> Self {
        Operation {
            op,
            operands: operands.into_iter().collect(),
            joint,
            after: String::new(),
        }
    }

    /// The same, with `after` following the last operand.
    fn then(self, after: String) -> Self {
        Operation { after, ..self }
    }
}

/// Sets with more events than this print abbreviated.
const SET_SHOWN: usize = 6;

/// Events shown at each end of a long trace.
const TRACE_ENDS: usize = 8;

/// A trace as CSPM writes it (`<a, b.1>`); a long one shows its ends and
/// its length, for a headline or a note.
pub fn trace_text(events: &[String]) -> String {
    if events.len() <= 3 * TRACE_ENDS {
        return format!("<{}>", events.join(", "));
    }
    let (head, tail) = (&events[..TRACE_ENDS], &events[events.len() - TRACE_ENDS..]);
    format!(
        "<{}, …, {}> ({} events)",
        head.join(", "),
        tail.join(", "),
        events.len()
    )
}

/// Where a printed term finds its operands, event sets and relations:
/// interned in a [`Processes`] (ids), or held by the term itself (keys).
trait Parts {
    type Operand;
    type Set;
    type Relation;
    fn term<'a>(
        &'a self,
        operand: &'a Self::Operand,
    ) -> &'a Term<Self::Operand, Self::Set, Self::Relation>;
    fn set<'a>(&'a self, set: &'a Self::Set) -> &'a EventSet;
    fn relation<'a>(&'a self, relation: &'a Self::Relation) -> &'a EventRelation;
}

impl Parts for Processes<'_> {
    type Operand = ProcId;
    type Set = super::SetId;
    type Relation = super::RelationId;

    fn term(&self, &id: &ProcId) -> &Term {
        Processes::term(self, id)
    }

    fn set(&self, &set: &super::SetId) -> &EventSet {
        Processes::set(self, set)
    }

    fn relation(&self, &relation: &super::RelationId) -> &EventRelation {
        Processes::relation(self, relation)
    }
}

/// The parts of a [`StateKey`], which holds them all.
struct Held;

impl Parts for Held {
    type Operand = StateKey;
    type Set = EventSet;
    type Relation = EventRelation;

    fn term<'a>(&'a self, key: &'a StateKey) -> &'a KeyTerm {
        key.term()
    }

    fn set<'a>(&'a self, set: &'a EventSet) -> &'a EventSet {
        set
    }

    fn relation<'a>(&'a self, relation: &'a EventRelation) -> &'a EventRelation {
        relation
    }
}

impl Processes<'_> {
    /// A state as process text.
    pub fn show_state(&self, id: ProcId) -> String {
        let mut out = String::new();
        self.write_state(self, &mut out, &id, GREEDY);
        out
    }

    /// A state given by its key as process text, as
    /// [`Self::show_state`] prints the state in the `Processes` it came
    /// from.
    pub fn show_key(&self, key: &StateKey) -> String {
        let mut out = String::new();
        self.write_state(&Held, &mut out, key, GREEDY);
        out
    }

    /// Writes `state` in a place taking level `min` or tighter (the
    /// table's bracketing rule): [`GREEDY`] at the top and inside a
    /// call's brackets, [`OPERAND`] as an operand of an operator.
    fn write_state<P: Parts>(&self, parts: &P, out: &mut String, state: &P::Operand, min: u8) {
        let set_text = |s: &P::Set| self.show_events(parts.set(s));
        let relation_text = |r: &P::Relation, op: Operator| {
            self.show_relation(parts.relation(r), &spelling(op).spaced_joins())
        };
        let write = |out: &mut String, operation: Operation<'_, P::Operand>| {
            self.write_operation(parts, out, operation, min)
        };
        match parts.term(state) {
            Term::Node(p) => self.write_node(out, p, min),
            Term::Stop => out.push_str("STOP"),
            Term::Skip => out.push_str("SKIP"),
            Term::Div => out.push_str("DIV"),
            Term::Omega | Term::Done(_) => out.push('Ω'),
            Term::Run(s) => out.push_str(&format!("RUN({})", set_text(s))),
            Term::Chaos(s) => out.push_str(&format!("CHAOS({})", set_text(s))),
            Term::ChaosOffer(s) => {
                let set = set_text(s);
                let (choice, then) = (symbol(Operator::ExtChoice), symbol(Operator::Then));
                let text = format!("{choice} x : {set} @ x {then} CHAOS({set})");
                bracketed_if(out, GREEDY, min, |out| out.push_str(&text));
            }
            Term::Chosen { prefix, choice } => {
                self.write_state(parts, out, prefix, min);
                let shown: Vec<String> = choice.iter().map(|v| self.eval.show(v)).collect();
                out.push_str(&format!(" {{$ {}}}", shown.join(", ")));
            }
            Term::Loop(p) => self.write_call(parts, out, "loop", p, ""),
            Term::Chase(p) => self.write_call(parts, out, "chase", p, ""),
            Term::Prioritise(p, levels) => {
                let sets: Vec<String> = levels.iter().map(set_text).collect();
                let levels = format!(", <{}>", sets.join(", "));
                self.write_call(parts, out, "prioritise", p, &levels);
            }
            Term::PrioritiseOrder(p, r) => {
                let order = format!(", {{{}}}", self.show_pairs(parts.relation(r)));
                self.write_call(parts, out, "prioritisepo", p, &order);
            }
            Term::Buffer {
                capacity,
                links,
                queue,
            } => {
                let call = format!(
                    "BUFFER({capacity}, {{{}}})",
                    self.show_pairs(parts.relation(links))
                );
                if queue.is_empty() {
                    out.push_str(&call);
                } else {
                    let owed: Vec<String> = queue.iter().map(|&e| self.show_event(e)).collect();
                    let text = format!("{call} holding <{}>", owed.join(", "));
                    bracketed_if(out, GREEDY, min, |out| out.push_str(&text));
                }
            }
            Term::Compressed {
                compression,
                of,
                at,
            } => self.write_compressed(parts, out, *compression, (of, at), min),
            Term::AlphaParallel(pairs) => self.write_alphabetised(parts, out, pairs, min),
            Term::ExternalChoice(ps) => {
                write(out, Operation::plain(Operator::ExtChoice, ps.iter()))
            }
            Term::SequentialComposition(a, b) => {
                write(out, Operation::plain(Operator::Seq, [a, b]))
            }
            Term::Interrupt(a, b) => write(out, Operation::plain(Operator::Interrupt, [a, b])),
            Term::SlidingChoice(a, b) => write(out, Operation::plain(Operator::Sliding, [a, b])),
            Term::Exception(a, s, b) => write(
                out,
                Operation::around(Operator::Exception, [a, b], &set_text(s)),
            ),
            Term::SyncExternalChoice(s, ps) => write(
                out,
                Operation::around(Operator::SyncChoice, ps.iter(), &set_text(s)),
            ),
            Term::SyncInterrupt(a, s, b) => write(
                out,
                Operation::around(Operator::SyncInterrupt, [a, b], &set_text(s)),
            ),
            Term::Parallel(s, ps) if parts.set(s).is_empty() => {
                write(out, Operation::plain(Operator::Interleave, ps.iter()))
            }
            Term::Parallel(s, ps) => write(
                out,
                Operation::around(Operator::GenPar, ps.iter(), &set_text(s)),
            ),
            Term::Linked(a, r, b) => {
                let op = Operator::LinkedPar;
                let Spelling { symbol, close, .. } = spelling(op);
                let joint = format!(" {symbol}{}{close} ", relation_text(r, op));
                write(out, Operation::joined(op, [a, b], joint))
            }
            Term::Hide(p, s) => {
                let hidden = format!(" {} {}", symbol(Operator::Hide), set_text(s));
                write(
                    out,
                    Operation::joined(Operator::Hide, [p], String::new()).then(hidden),
                )
            }
            Term::Rename(p, r) => {
                let op = Operator::Rename;
                let Spelling { symbol, close, .. } = spelling(op);
                let renamed = format!(" {symbol}{}{close}", relation_text(r, op));
                write(out, Operation::joined(op, [p], String::new()).then(renamed))
            }
        }
    }

    /// A control state as its call or its expression, bracketed as an
    /// operand unless it is a plain call (`Node(N3, B, N1)`).
    fn write_node(&self, out: &mut String, p: &Arc<Proc>, min: u8) {
        let text = self.eval.show(&Value::Proc(p.clone()));
        let call = match &**p {
            Proc::Node { func, .. } => {
                let function = self.script().function(*func);
                function.call_form.is_some() || function.shown_call.is_some()
            }
            Proc::Builtin { .. } => false,
        } || text
            .chars()
            .all(|c| c.is_alphanumeric() || "_'.(), ".contains(c));
        let level = if call { ATOM } else { GREEDY };
        bracketed_if(out, level, min, |out| out.push_str(&text));
    }

    /// `name(state…)`, the state at the top of the brackets.
    fn write_call<P: Parts>(
        &self,
        parts: &P,
        out: &mut String,
        name: &str,
        state: &P::Operand,
        rest: &str,
    ) {
        out.push_str(name);
        out.push('(');
        self.write_state(parts, out, state, GREEDY);
        out.push_str(rest);
        out.push(')');
    }

    /// Writes an operator's state, bracketed by the table's rule.
    fn write_operation<P: Parts>(
        &self,
        parts: &P,
        out: &mut String,
        operation: Operation<'_, P::Operand>,
        min: u8,
    ) {
        bracketed_if(out, level(operation.op), min, |out| {
            for (i, p) in operation.operands.iter().enumerate() {
                if i > 0 {
                    out.push_str(&operation.joint);
                }
                self.write_state(parts, out, p, OPERAND);
            }
            out.push_str(&operation.after);
        });
    }

    /// The alphabetised parallel of several processes, written as FDR's
    /// replicated form: `|| [A] P, [B] Q`.
    fn write_alphabetised<P: Parts>(
        &self,
        parts: &P,
        out: &mut String,
        pairs: &[(P::Set, P::Operand)],
        min: u8,
    ) {
        let Spelling {
            symbol,
            joins,
            close,
        } = spelling(Operator::BracketPar);
        bracketed_if(out, GREEDY, min, |out| {
            out.push_str(joins);
            out.push(' ');
            for (i, (a, p)) in pairs.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(symbol);
                out.push_str(&self.show_events(parts.set(a)));
                out.push_str(close);
                out.push(' ');
                self.write_state(parts, out, p, OPERAND);
            }
        });
    }

    /// A compressed state: `normal(P)⟨3⟩` or, inside another term,
    /// `normal(…)⟨3⟩`: a hierarchy of them (each level linking two copies
    /// of the one below) would otherwise print twice as long per level.
    fn write_compressed<P: Parts>(
        &self,
        parts: &P,
        out: &mut String,
        compression: Compression,
        (of, at): (&P::Operand, &Place<P::Operand>),
        min: u8,
    ) {
        out.push_str(compression.name());
        let operand = min > GREEDY;
        let outer = !operand && INSIDE_COMPRESSED.with(|inside| !inside.replace(true));
        if outer {
            out.push('(');
            self.write_state(parts, out, of, GREEDY);
            out.push(')');
        } else {
            out.push_str("(…)");
        }
        match at {
            Place::Member(w) if outer => {
                out.push_str("⟨≈ ");
                self.write_state(parts, out, w, GREEDY);
                out.push('⟩');
            }
            Place::Member(_) => out.push_str("⟨…⟩"),
            Place::Numbered(n) => out.push_str(&format!("⟨{n}⟩")),
        }
        if outer {
            INSIDE_COMPRESSED.with(|inside| inside.set(false));
        }
    }

    /// An event set in FDR's set syntax, abbreviated when long. Channels
    /// whose every event is in the set read as a production:
    /// `{| getNext, casNext |}`, or `union({| getNext |}, {done})` beside
    /// single events.
    pub fn show_events(&self, set: &EventSet) -> String {
        let mut whole = Vec::new();
        let mut single: Vec<EventId> = Vec::new();
        for (channel, range) in self.events.channels() {
            let present = set.count_in(range.clone());
            if present > 1 && present == range.len() {
                whole.push(self.eval.show(channel));
            } else if present > 0 {
                single.extend(range.clone().filter(|&e| set.contains(e)));
            }
        }
        // τ and ✓ are not in any channel.
        let reserved = [TAU, TICK].into_iter().filter(|&e| set.contains(e));
        let single: Vec<EventId> = reserved.chain(single).collect();
        let listed = self.list_events(&single);
        match (whole.is_empty(), single.is_empty()) {
            (true, _) => listed,
            (false, true) => format!("{{| {} |}}", whole.join(", ")),
            (false, false) => format!("union({{| {} |}}, {listed})", whole.join(", ")),
        }
    }

    /// Events listed one by one, abbreviated when long.
    fn list_events(&self, events: &[EventId]) -> String {
        let shown: Vec<String> = events
            .iter()
            .take(SET_SHOWN)
            .map(|&e| self.show_event(e))
            .collect();
        let mut out = format!("{{{}", shown.join(", "));
        if events.len() > SET_SHOWN {
            out.push_str(&format!(", … ({} events)", events.len()));
        }
        out.push('}');
        out
    }

    /// A renaming or linking relation as `a <- b` pairs, abbreviated when
    /// long.
    /// A relation as CSPM's set of pairs writes it: `(a, b), (c, d)`.
    fn show_pairs(&self, relation: &EventRelation) -> String {
        let mut shown: Vec<String> = relation
            .pairs()
            .iter()
            .take(SET_SHOWN)
            .map(|&(a, b)| format!("({}, {})", self.show_event(a), self.show_event(b)))
            .collect();
        if relation.pairs().len() > SET_SHOWN {
            shown.push(format!("… ({} pairs)", relation.pairs().len()));
        }
        shown.join(", ")
    }

    pub fn show_relation(&self, relation: &EventRelation, arrow: &str) -> String {
        let pairs = relation.pairs();
        let mut shown: Vec<String> = pairs
            .iter()
            .take(SET_SHOWN)
            .map(|&(a, b)| format!("{}{arrow}{}", self.show_event(a), self.show_event(b)))
            .collect();
        if pairs.len() > SET_SHOWN {
            shown.push(format!("… ({} pairs)", pairs.len()));
        }
        shown.join(", ")
    }
}
