//! Process states as FDR-style process text: a control state as its call
//! (`Node(N3, B, N1)`) or its expression with the bound values, operator
//! terms with CSPM's operators, event sets in FDR's set syntax.

use crate::eval::Value;

use super::{EventId, EventRelation, EventSet, ProcId, Processes, SetId, TAU, TICK, Term};

/// Sets with more events than this print abbreviated.
const SET_SHOWN: usize = 6;

impl Processes<'_> {
    /// A state as process text.
    pub fn show_state(&self, id: ProcId) -> String {
        let mut out = String::new();
        self.write_state(&mut out, id, false);
        out
    }

    fn write_state(&self, out: &mut String, id: ProcId, nested: bool) {
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
        let binary = |out: &mut String, a: ProcId, op: &str, b: ProcId| {
            open(out);
            self.write_state(out, a, true);
            out.push_str(op);
            self.write_state(out, b, true);
            close(out);
        };
        let many = |out: &mut String, ps: &[ProcId], op: &str| {
            open(out);
            for (i, &p) in ps.iter().enumerate() {
                if i > 0 {
                    out.push_str(op);
                }
                self.write_state(out, p, true);
            }
            close(out);
        };
        match self.term(id) {
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
                out.push_str(&self.set_text(*s));
                out.push(')');
            }
            Term::Chaos(s) => {
                out.push_str("CHAOS(");
                out.push_str(&self.set_text(*s));
                out.push(')');
            }
            Term::ChaosOffer(s) => {
                out.push_str("[] x : ");
                out.push_str(&self.set_text(*s));
                out.push_str(" @ x -> CHAOS(");
                out.push_str(&self.set_text(*s));
                out.push(')');
            }
            Term::Chosen { prefix, choice } => {
                self.write_state(out, *prefix, nested);
                let shown: Vec<String> = choice.iter().map(|v| self.eval.show(v)).collect();
                out.push_str(&format!(" {{$ {}}}", shown.join(", ")));
            }
            Term::ExternalChoice(ps) => many(out, ps, " [] "),
            Term::SequentialComposition(a, b) => binary(out, *a, " ; ", *b),
            Term::Interrupt(a, b) => binary(out, *a, " /\\ ", *b),
            Term::SlidingChoice(a, b) => binary(out, *a, " [> ", *b),
            Term::Exception(a, s, b) => {
                let op = format!(" [| {} |> ", self.set_text(*s));
                binary(out, *a, &op, *b)
            }
            Term::SyncExternalChoice(s, ps) => {
                let op = format!(" [+ {} +] ", self.set_text(*s));
                many(out, ps, &op)
            }
            Term::SyncInterrupt(a, s, b) => {
                let op = format!(" /+ {} +\\ ", self.set_text(*s));
                binary(out, *a, &op, *b)
            }
            Term::Hide(p, s) => {
                open(out);
                self.write_state(out, *p, true);
                out.push_str(" \\ ");
                out.push_str(&self.set_text(*s));
                close(out);
            }
            Term::Rename(p, r) => {
                open(out);
                self.write_state(out, *p, true);
                out.push_str(&format!(" [[{}]]", self.relation_text(*r, " <- ")));
                close(out);
            }
            Term::Parallel(s, ps) => {
                let op = if self.set(*s).is_empty() {
                    " ||| ".to_string()
                } else {
                    format!(" [| {} |] ", self.set_text(*s))
                };
                many(out, ps, &op)
            }
            Term::AlphaParallel(pairs) => {
                open(out);
                out.push_str("|| ");
                for (i, &(a, p)) in pairs.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    out.push('[');
                    out.push_str(&self.set_text(a));
                    out.push_str("] ");
                    self.write_state(out, p, true);
                }
                close(out);
            }
            Term::Linked(a, r, b) => {
                let op = format!(" [{}] ", self.relation_text(*r, " <-> "));
                binary(out, *a, &op, *b)
            }
            Term::Loop(p) => {
                out.push_str("loop(");
                self.write_state(out, *p, false);
                out.push(')');
            }
        }
    }

    fn set_text(&self, s: SetId) -> String {
        self.show_events(self.set(s))
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

    fn relation_text(&self, r: super::RelationId, arrow: &str) -> String {
        self.show_relation(self.relation(r), arrow)
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
