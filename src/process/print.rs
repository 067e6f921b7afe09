//! Process states as FDR-style process text: a control state as its call
//! (`Node(N3, B, N1)`) or its expression with the bound values, operator
//! terms with CSPM's operators, event sets in FDR's set syntax. States
//! print the same whether they are interned ids or portable keys.

use crate::eval::Value;

use super::key::{KeyTerm, StateKey};
use super::{EventId, EventRelation, EventSet, Place, ProcId, Processes, TAU, TICK, Term};

thread_local! {
    /// Set while a compressed state's original process is printed.
    static INSIDE_COMPRESSED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
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
        self.write_state(self, &mut out, &id, false);
        out
    }

    /// A state given by its key as process text, as
    /// [`Self::show_state`] prints the state in the `Processes` it came
    /// from.
    pub fn show_key(&self, key: &StateKey) -> String {
        let mut out = String::new();
        self.write_state(&Held, &mut out, key, false);
        out
    }

    fn write_state<P: Parts>(&self, parts: &P, out: &mut String, state: &P::Operand, nested: bool) {
        let open = |out: &mut String| {
            if nested {
                out.push('(');
            }
        };
        let close = |out: &mut String| {
            if nested {
                out.push(')');
            }
        };
        let binary = |out: &mut String, a: &P::Operand, op: &str, b: &P::Operand| {
            open(out);
            self.write_state(parts, out, a, true);
            out.push_str(op);
            self.write_state(parts, out, b, true);
            close(out);
        };
        let many = |out: &mut String, ps: &[P::Operand], op: &str| {
            open(out);
            for (i, p) in ps.iter().enumerate() {
                if i > 0 {
                    out.push_str(op);
                }
                self.write_state(parts, out, p, true);
            }
            close(out);
        };
        let set_text = |s: &P::Set| self.show_events(parts.set(s));
        let relation_text =
            |r: &P::Relation, arrow: &str| self.show_relation(parts.relation(r), arrow);
        match parts.term(state) {
            Term::Node(p) => {
                let text = self.eval.show(&Value::Proc(p.clone()));
                let simple = text
                    .chars()
                    .all(|c| c.is_alphanumeric() || "_'.(), ".contains(c));
                if nested && !simple {
                    out.push('(');
                    out.push_str(&text);
                    out.push(')');
                } else {
                    out.push_str(&text);
                }
            }
            Term::Stop => out.push_str("STOP"),
            Term::Skip => out.push_str("SKIP"),
            Term::Div => out.push_str("DIV"),
            Term::Omega | Term::Done(_) => out.push('Ω'),
            Term::Run(s) => {
                out.push_str("RUN(");
                out.push_str(&set_text(s));
                out.push(')');
            }
            Term::Chaos(s) => {
                out.push_str("CHAOS(");
                out.push_str(&set_text(s));
                out.push(')');
            }
            Term::ChaosOffer(s) => {
                out.push_str("[] x : ");
                out.push_str(&set_text(s));
                out.push_str(" @ x -> CHAOS(");
                out.push_str(&set_text(s));
                out.push(')');
            }
            Term::Chosen { prefix, choice } => {
                self.write_state(parts, out, prefix, nested);
                let shown: Vec<String> = choice.iter().map(|v| self.eval.show(v)).collect();
                out.push_str(&format!(" {{$ {}}}", shown.join(", ")));
            }
            Term::ExternalChoice(ps) => many(out, ps, " [] "),
            Term::SequentialComposition(a, b) => binary(out, a, " ; ", b),
            Term::Interrupt(a, b) => binary(out, a, " /\\ ", b),
            Term::SlidingChoice(a, b) => binary(out, a, " [> ", b),
            Term::Exception(a, s, b) => {
                let op = format!(" [| {} |> ", set_text(s));
                binary(out, a, &op, b)
            }
            Term::SyncExternalChoice(s, ps) => {
                let op = format!(" [+ {} +] ", set_text(s));
                many(out, ps, &op)
            }
            Term::SyncInterrupt(a, s, b) => {
                let op = format!(" /+ {} +\\ ", set_text(s));
                binary(out, a, &op, b)
            }
            Term::Hide(p, s) => {
                open(out);
                self.write_state(parts, out, p, true);
                out.push_str(" \\ ");
                out.push_str(&set_text(s));
                close(out);
            }
            Term::Rename(p, r) => {
                open(out);
                self.write_state(parts, out, p, true);
                out.push_str(&format!(" [[{}]]", relation_text(r, " <- ")));
                close(out);
            }
            Term::Parallel(s, ps) => {
                let op = if parts.set(s).is_empty() {
                    " ||| ".to_string()
                } else {
                    format!(" [| {} |] ", set_text(s))
                };
                many(out, ps, &op)
            }
            Term::AlphaParallel(pairs) => {
                open(out);
                out.push_str("|| ");
                for (i, (a, p)) in pairs.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    out.push('[');
                    out.push_str(&set_text(a));
                    out.push_str("] ");
                    self.write_state(parts, out, p, true);
                }
                close(out);
            }
            Term::Linked(a, r, b) => {
                let op = format!(" [{}] ", relation_text(r, " <-> "));
                binary(out, a, &op, b)
            }
            Term::Loop(p) => {
                out.push_str("loop(");
                self.write_state(parts, out, p, false);
                out.push(')');
            }
            Term::Chase(p) => {
                out.push_str("chase(");
                self.write_state(parts, out, p, false);
                out.push(')');
            }
            Term::Compressed {
                compression,
                of,
                at,
            } => {
                out.push_str(compression.name());
                // A compressed state inside another term prints as
                // `normal(…)⟨3⟩`: a hierarchy of them (each level linking
                // two copies of the one below) would otherwise print
                // twice as long per level.
                let outer = !nested && INSIDE_COMPRESSED.with(|inside| !inside.replace(true));
                if outer {
                    out.push('(');
                    self.write_state(parts, out, of, false);
                    out.push(')');
                } else {
                    out.push_str("(…)");
                }
                match at {
                    Place::Member(w) if outer => {
                        out.push_str("⟨≈ ");
                        self.write_state(parts, out, w, false);
                        out.push('⟩');
                    }
                    Place::Member(_) => out.push_str("⟨…⟩"),
                    Place::Numbered(n) => out.push_str(&format!("⟨{n}⟩")),
                }
                if outer {
                    INSIDE_COMPRESSED.with(|inside| inside.set(false));
                }
            }
            Term::Prioritise(p, levels) => {
                out.push_str("prioritise(");
                self.write_state(parts, out, p, false);
                let sets: Vec<String> = levels.iter().map(set_text).collect();
                out.push_str(&format!(", <{}>)", sets.join(", ")));
            }
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
