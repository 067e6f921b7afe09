//! The operational semantics: the transitions of every kind of state,
//! computed once per state and remembered.
//!
//! FDR's conventions: τ never resolves an external choice, ✓ does;
//! every ✓ leads to Ω; in a parallel composition an operand's ✓ becomes
//! a τ to Ω and the composition terminates (✓) once every operand is Ω;
//! the ✓ of the left side of `;` is a τ into the right side.

use std::sync::Arc;

use crate::eval::{EvalError, EvalResult, Proc};
use crate::syntax::Span;

use super::operator::{self, Branch, Operator};
use super::{EventId, ProcId, Processes, RelationId, SetId, TAU, TICK, Term, Transition};

/// The move by `event` to `target`.
fn step(event: EventId, target: ProcId) -> Transition {
    Transition { event, target }
}

impl Processes<'_> {
    /// The transitions of a state, sorted by event then target, without
    /// duplicates.
    pub fn transitions(&mut self, id: ProcId) -> EvalResult<Arc<[Transition]>> {
        if let Some(known) = &self.memo[id.index()] {
            return Ok(known.clone());
        }
        if self.computing[id.index()] {
            return Err(EvalError::new(
                self.span_of(id),
                format!(
                    "{} is defined by unguarded recursion: its first steps depend on themselves",
                    self.show_state(id)
                ),
            )
            .with_note(
                "put an event before the recursive call (`P = a -> P`, not `P = P [] a -> P`)",
            ));
        }
        self.computing[id.index()] = true;
        let result = stacker::maybe_grow(256 * 1024, 16 * 1024 * 1024, || self.compute(id));
        self.computing[id.index()] = false;
        let mut list = result?;
        list.sort_unstable();
        list.dedup();
        let list: Arc<[Transition]> = list.into();
        self.memo[id.index()] = Some(list.clone());
        Ok(list)
    }

    /// Where a state comes from in the script, for error messages.
    /// The events `relation` relates `e` to, in order (a copy, so the
    /// caller may intern states while using it).
    fn image(&self, relation: RelationId, e: EventId) -> Vec<EventId> {
        self.relation(relation)
            .image(e)
            .iter()
            .map(|&(_, b)| b)
            .collect()
    }

    /// An event's rank under `prioritise(P, <A1, ..., An>)`: the index of
    /// the first set holding it (τ and ✓ rank with `A1`, first), or none
    /// for an event of no set, which is never held back and holds nothing
    /// back.
    fn priority_rank(&self, levels: &[SetId], e: EventId) -> Option<usize> {
        if e == TAU || e == TICK {
            return Some(0);
        }
        levels.iter().position(|&s| self.set(s).contains(e))
    }

    fn span_of(&self, id: ProcId) -> Span {
        match self.term(id) {
            Term::Node(p) => match &**p {
                Proc::Node { func, .. } => self.script().function(*func).span,
                Proc::Builtin { .. } => Span::default(),
            },
            _ => Span::default(),
        }
    }

    /// The transitions of a state, from its term (uncached: see
    /// [`Processes::transitions`]).
    fn compute(&mut self, id: ProcId) -> EvalResult<Vec<Transition>> {
        let omega = self.omega;
        let mut out = Vec::new();
        match self.term(id).clone() {
            Term::Stop | Term::Omega | Term::Done(_) => {}
            Term::Skip => out.push(step(TICK, omega)),
            Term::Div => out.push(step(TAU, id)),
            Term::Run(set) => {
                out.extend(self.set(set).iter().map(|e| step(e, id)));
            }
            Term::Chaos(set) => {
                let stop = self.intern(Term::Stop);
                let offer = self.intern(Term::ChaosOffer(set));
                out.extend([step(TAU, stop), step(TAU, offer)]);
            }
            Term::ChaosOffer(set) => {
                let chaos = self.intern(Term::Chaos(set));
                out.extend(self.set(set).iter().map(|e| step(e, chaos)));
            }
            Term::Node(proc) => return self.node_transitions(&proc),
            Term::Chosen { prefix, choice } => {
                let Term::Node(proc) = self.term(prefix).clone() else {
                    unreachable!("a chosen prefix is a control state")
                };
                return self.prefix_transitions(&proc, &choice);
            }
            Term::ExternalChoice(ps) => self.external_choice_transitions(&ps, &mut out)?,
            Term::SequentialComposition(p, q) => {
                for t in self.transitions(p)?.iter() {
                    if t.event == TICK {
                        out.push(step(TAU, q));
                    } else {
                        let next = self.intern(Term::SequentialComposition(t.target, q));
                        out.push(step(t.event, next));
                    }
                }
            }
            Term::Chase(p) => match self.chased(p)? {
                Some(stable) => {
                    for t in self.transitions(stable)?.iter() {
                        match t.event {
                            TICK => out.push(*t),
                            e => {
                                let next = self.chase_from(t.target)?;
                                out.push(step(e, next));
                            }
                        }
                    }
                }
                None => out.push(step(TAU, self.intern(Term::Div))),
            },
            Term::Compressed {
                compression,
                of,
                at,
            } => {
                return self.compressed_transitions(compression, of, &at);
            }
            // `loop(P)` is `P ; loop(P)`, step for step.
            Term::Loop(p) => {
                let unrolled = self.intern(Term::SequentialComposition(p, id));
                return Ok(self.transitions(unrolled)?.to_vec());
            }
            Term::Interrupt(p, q) => self.interrupt_transitions(p, q, &mut out)?,
            Term::SlidingChoice(p, q) => {
                out.push(step(TAU, q));
                for t in self.transitions(p)?.iter() {
                    match t.event {
                        TAU => out.push(step(TAU, self.intern(Term::SlidingChoice(t.target, q)))),
                        _ => out.push(*t),
                    }
                }
            }
            Term::Exception(p, set, q) => self.exception_transitions(p, set, q, &mut out)?,
            Term::SyncExternalChoice(set, ps) => {
                self.sync_choice_transitions(set, &ps, &mut out)?;
            }
            Term::SyncInterrupt(p, set, q) => {
                self.sync_interrupt_transitions(p, set, q, &mut out)?
            }
            Term::Hide(p, set) => self.hide_transitions(p, set, &mut out)?,
            Term::Prioritise(p, levels) => self.prioritise_transitions(p, &levels, &mut out)?,
            Term::PrioritiseOrder(p, relation) => {
                self.priority_order_transitions(p, relation, &mut out)?
            }
            Term::Buffer {
                capacity,
                links,
                queue,
            } => self.buffer_transitions(capacity, links, &queue, &mut out),
            Term::Rename(p, relation) => self.rename_transitions(p, relation, &mut out)?,
            Term::Parallel(set, ps) => {
                let alphabets: Vec<Option<SetId>> = vec![None; ps.len()];
                self.parallel_transitions(&ps, &alphabets, Some(set), &mut out, |ps| {
                    Term::Parallel(set, ps.into())
                })?;
            }
            Term::AlphaParallel(pairs) => {
                let ps: Vec<ProcId> = pairs.iter().map(|&(_, p)| p).collect();
                let alphabets: Vec<Option<SetId>> = pairs.iter().map(|&(a, _)| Some(a)).collect();
                self.parallel_transitions(&ps, &alphabets, None, &mut out, |ps| {
                    Term::AlphaParallel(pairs.iter().zip(ps).map(|(&(a, _), p)| (a, p)).collect())
                })?;
            }
            Term::Linked(p, relation, q) => self.linked_transitions(p, relation, q, &mut out)?,
        }
        Ok(out)
    }

    /// `[]`: an operand's τ keeps the choice open; any other event resolves it.
    fn external_choice_transitions(
        &mut self,
        ps: &[ProcId],
        out: &mut Vec<Transition>,
    ) -> EvalResult<()> {
        for (i, &p) in ps.iter().enumerate() {
            for t in self.transitions(p)?.iter() {
                if t.event == TAU {
                    let mut next = ps.to_vec();
                    next[i] = t.target;
                    out.push(step(TAU, self.intern(Term::ExternalChoice(next.into()))));
                } else {
                    out.push(*t);
                }
            }
        }
        Ok(())
    }

    /// `P /\ Q`: P runs until it terminates or Q does anything visible.
    fn interrupt_transitions(
        &mut self,
        p: ProcId,
        q: ProcId,
        out: &mut Vec<Transition>,
    ) -> EvalResult<()> {
        for t in self.transitions(p)?.iter() {
            match t.event {
                TICK => out.push(*t),
                e => out.push(step(e, self.intern(Term::Interrupt(t.target, q)))),
            }
        }
        for t in self.transitions(q)?.iter() {
            match t.event {
                TAU => out.push(step(TAU, self.intern(Term::Interrupt(p, t.target)))),
                _ => out.push(*t),
            }
        }
        Ok(())
    }

    /// `P [| A |> Q`: an event of `A` hands control to Q.
    fn exception_transitions(
        &mut self,
        p: ProcId,
        set: SetId,
        q: ProcId,
        out: &mut Vec<Transition>,
    ) -> EvalResult<()> {
        for t in self.transitions(p)?.iter() {
            if t.event == TICK {
                out.push(*t);
            } else if self.set(set).contains(t.event) {
                out.push(step(t.event, q));
            } else {
                out.push(step(
                    t.event,
                    self.intern(Term::Exception(t.target, set, q)),
                ));
            }
        }
        Ok(())
    }

    /// `P /+ A +\ Q`: events of `A` are shared by both sides; any other
    /// event of Q interrupts P.
    fn sync_interrupt_transitions(
        &mut self,
        p: ProcId,
        set: SetId,
        q: ProcId,
        out: &mut Vec<Transition>,
    ) -> EvalResult<()> {
        let (tp, tq) = (self.transitions(p)?, self.transitions(q)?);
        for t in tp.iter() {
            if t.event == TICK {
                out.push(*t);
            } else if self.set(set).contains(t.event) {
                for u in tq.iter().filter(|u| u.event == t.event) {
                    let next = self.intern(Term::SyncInterrupt(t.target, set, u.target));
                    out.push(step(t.event, next));
                }
            } else {
                out.push(step(
                    t.event,
                    self.intern(Term::SyncInterrupt(t.target, set, q)),
                ));
            }
        }
        for u in tq.iter() {
            if u.event == TAU {
                out.push(step(
                    TAU,
                    self.intern(Term::SyncInterrupt(p, set, u.target)),
                ));
            } else if !self.set(set).contains(u.event) {
                out.push(*u);
            }
        }
        Ok(())
    }

    /// `P \ A`: events of `A` become τ.
    fn hide_transitions(
        &mut self,
        p: ProcId,
        set: SetId,
        out: &mut Vec<Transition>,
    ) -> EvalResult<()> {
        for t in self.transitions(p)?.iter() {
            match t.event {
                TICK => out.push(*t),
                e => {
                    let event = if self.set(set).contains(e) { TAU } else { e };
                    out.push(step(event, self.hide(t.target, set)));
                }
            }
        }
        Ok(())
    }

    /// `prioritise(P, <A1, ..., An>)`: an event waits while a more urgent
    /// one is offered.
    fn prioritise_transitions(
        &mut self,
        p: ProcId,
        levels: &Arc<[SetId]>,
        out: &mut Vec<Transition>,
    ) -> EvalResult<()> {
        let inner = self.transitions(p)?;
        let ranks: Vec<Option<usize>> = inner
            .iter()
            .map(|t| self.priority_rank(levels, t.event))
            .collect();
        // The most urgent rank offered: events of a later set wait.
        let best = ranks.iter().flatten().min().copied();
        for (t, rank) in inner.iter().zip(ranks) {
            if rank.is_some_and(|r| Some(r) > best) {
                continue;
            }
            match t.event {
                TICK => out.push(*t),
                e => out.push(step(
                    e,
                    self.intern(Term::Prioritise(t.target, levels.clone())),
                )),
            }
        }
        Ok(())
    }

    /// `P [[R]]`: each event becomes its images under R (itself if it has none).
    fn rename_transitions(
        &mut self,
        p: ProcId,
        relation: RelationId,
        out: &mut Vec<Transition>,
    ) -> EvalResult<()> {
        for t in self.transitions(p)?.iter() {
            match t.event {
                TICK => out.push(*t),
                TAU => out.push(step(TAU, self.intern(Term::Rename(t.target, relation)))),
                e => {
                    let next = self.intern(Term::Rename(t.target, relation));
                    let image = self.image(relation, e);
                    if image.is_empty() {
                        out.push(step(e, next));
                    }
                    out.extend(image.into_iter().map(|b| step(b, next)));
                }
            }
        }
        Ok(())
    }

    /// `P [R> Q`: related events of P and Q meet as τ; both sides' ✓ are
    /// τ, and the whole terminates once both are Ω.
    fn linked_transitions(
        &mut self,
        p: ProcId,
        relation: RelationId,
        q: ProcId,
        out: &mut Vec<Transition>,
    ) -> EvalResult<()> {
        let omega = self.omega;
        let (tp, tq) = (self.transitions(p)?, self.transitions(q)?);
        if p == omega && q == omega {
            out.push(step(TICK, omega));
        }
        for t in tp.iter() {
            match t.event {
                TAU | TICK => {
                    let next = self.intern(Term::Linked(t.target, relation, q));
                    out.push(step(TAU, next));
                }
                e if self.relation(relation).in_domain(e) => {
                    let image = self.image(relation, e);
                    for b in image {
                        for u in tq.iter().filter(|u| u.event == b) {
                            let next = self.intern(Term::Linked(t.target, relation, u.target));
                            out.push(step(TAU, next));
                        }
                    }
                }
                e => {
                    let next = self.intern(Term::Linked(t.target, relation, q));
                    out.push(step(e, next));
                }
            }
        }
        for u in tq.iter() {
            match u.event {
                TAU | TICK => {
                    let next = self.intern(Term::Linked(p, relation, u.target));
                    out.push(step(TAU, next));
                }
                e if self.relation(relation).in_range(e) => {}
                e => {
                    let next = self.intern(Term::Linked(p, relation, u.target));
                    out.push(step(e, next));
                }
            }
        }
        Ok(())
    }

    /// A parallel composition of any arity. An event an operand may not
    /// perform (outside its alphabet) is blocked; a synchronised event
    /// (in `sync`, or in several alphabets) needs every operand that
    /// may perform it; others interleave.
    fn parallel_transitions(
        &mut self,
        ps: &[ProcId],
        alphabets: &[Option<SetId>],
        sync: Option<SetId>,
        out: &mut Vec<Transition>,
        rebuild: impl Fn(Vec<ProcId>) -> Term,
    ) -> EvalResult<()> {
        let omega = self.omega;
        if ps.iter().all(|&p| p == omega) {
            out.push(Transition {
                event: TICK,
                target: omega,
            });
            return Ok(());
        }
        let lists = ps
            .iter()
            .map(|&p| self.transitions(p))
            .collect::<EvalResult<Vec<_>>>()?;
        let may = |this: &Self, i: usize, e: EventId| {
            alphabets[i].is_none_or(|a| this.set(a).contains(e))
        };
        let synchronised = |this: &Self, e: EventId| {
            sync.is_some_and(|s| this.set(s).contains(e))
                || alphabets
                    .iter()
                    .filter(|a| a.is_some_and(|a| this.set(a).contains(e)))
                    .count()
                    > 1
        };
        for (i, list) in lists.iter().enumerate() {
            for t in list.iter() {
                let event = match t.event {
                    TAU | TICK => TAU,
                    e if !may(self, i, e) => continue,
                    e if synchronised(self, e) => {
                        // Built once, from the first operand that takes part.
                        if (0..i).any(|j| may(self, j, e)) {
                            continue;
                        }
                        let mut choices: Vec<Vec<ProcId>> = Vec::new();
                        for (j, other) in lists.iter().enumerate() {
                            if j != i && !may(self, j, e) {
                                choices.push(vec![ps[j]]);
                                continue;
                            }
                            let targets: Vec<ProcId> = other
                                .iter()
                                .filter(|u| u.event == e)
                                .map(|u| u.target)
                                .collect();
                            choices.push(targets);
                        }
                        // Only the first transition of operand i on `e`
                        // builds the product (it covers all of them).
                        if list.iter().find(|u| u.event == e) != Some(t) {
                            continue;
                        }
                        for combination in product(&choices) {
                            let next = self.intern(rebuild(combination));
                            out.push(Transition {
                                event: e,
                                target: next,
                            });
                        }
                        continue;
                    }
                    e => e,
                };
                let mut next = ps.to_vec();
                next[i] = t.target;
                let next = self.intern(rebuild(next));
                out.push(Transition {
                    event,
                    target: next,
                });
            }
        }
        Ok(())
    }

    /// `[+ A +]`: events of `A` are taken by every operand together and
    /// keep the choice open; any other event resolves it.
    fn sync_choice_transitions(
        &mut self,
        set: SetId,
        ps: &Arc<[ProcId]>,
        out: &mut Vec<Transition>,
    ) -> EvalResult<()> {
        let lists = ps
            .iter()
            .map(|&p| self.transitions(p))
            .collect::<EvalResult<Vec<_>>>()?;
        for (i, list) in lists.iter().enumerate() {
            for t in list.iter() {
                if t.event == TAU {
                    let mut next = ps.to_vec();
                    next[i] = t.target;
                    let next = self.intern(Term::SyncExternalChoice(set, next.into()));
                    out.push(Transition {
                        event: TAU,
                        target: next,
                    });
                } else if !self.set(set).contains(t.event) {
                    out.push(*t);
                }
            }
        }
        let shared: Vec<EventId> = {
            let mut es: Vec<EventId> = lists[0]
                .iter()
                .map(|t| t.event)
                .filter(|&e| self.set(set).contains(e))
                .collect();
            es.dedup();
            es
        };
        for e in shared {
            let choices: Vec<Vec<ProcId>> = lists
                .iter()
                .map(|l| {
                    l.iter()
                        .filter(|t| t.event == e)
                        .map(|t| t.target)
                        .collect()
                })
                .collect();
            for combination in product(&choices) {
                let next = self.intern(Term::SyncExternalChoice(set, combination.into()));
                out.push(Transition {
                    event: e,
                    target: next,
                });
            }
        }
        Ok(())
    }

    /// Transitions of a control state: its operator unfolded.
    fn node_transitions(&mut self, proc: &Arc<Proc>) -> EvalResult<Vec<Transition>> {
        let Proc::Node { func, vars } = &**proc else {
            unreachable!("built-in processes are interned as their own terms")
        };
        let body = self.script().function(*func).clauses[0].body;
        let span = self.script().expr(body).span;
        let op = operator::unfold(&self.eval, *func, vars)?;
        match op {
            // The branches just walked: a prefix is unfolded once.
            Operator::Prefix {
                branches,
                nondeterministic,
            } => self.branch_transitions(proc, (branches, nondeterministic), None),
            Operator::InternalChoice(ps) => {
                let mut out = Vec::with_capacity(ps.len());
                for p in &ps {
                    out.push(Transition {
                        event: TAU,
                        target: self.state(p, span)?,
                    });
                }
                Ok(out)
            }
            op => {
                let same = self.build(op, span)?;
                Ok(self.transitions(same)?.to_vec())
            }
        }
    }

    /// A prefix's transitions, once the choice of its nondeterministic
    /// fields' values is made: the events that agree with `choice`.
    fn prefix_transitions(
        &mut self,
        proc: &Arc<Proc>,
        choice: &Arc<[crate::eval::Value]>,
    ) -> EvalResult<Vec<Transition>> {
        let Proc::Node { func, vars } = &**proc else {
            unreachable!("a prefix is a control state")
        };
        let Operator::Prefix {
            branches,
            nondeterministic,
        } = operator::unfold(&self.eval, *func, vars)?
        else {
            unreachable!("a prefix unfolds to a prefix")
        };
        self.branch_transitions(proc, (branches, nondeterministic), Some(choice))
    }

    /// The transitions of prefix `proc` unfolded into `branches`. With
    /// nondeterministic fields and no `choice` yet, a τ to each choice of
    /// their values; with a `choice`, the events that agree with it.
    fn branch_transitions(
        &mut self,
        proc: &Arc<Proc>,
        (branches, nondeterministic): (Vec<Branch>, bool),
        choice: Option<&Arc<[crate::eval::Value]>>,
    ) -> EvalResult<Vec<Transition>> {
        let Proc::Node { func, .. } = &**proc else {
            unreachable!("a prefix is a control state")
        };
        let span = self.script().function(*func).span;
        let mut out = Vec::with_capacity(branches.len());
        if nondeterministic && choice.is_none() {
            let prefix = self.intern(Term::Node(proc.clone()));
            let mut choices: Vec<&[crate::eval::Value]> =
                branches.iter().map(|b| b.choice.as_slice()).collect();
            choices.sort();
            choices.dedup();
            for c in choices {
                let chosen = self.intern(Term::Chosen {
                    prefix,
                    choice: c.into(),
                });
                out.push(Transition {
                    event: TAU,
                    target: chosen,
                });
            }
            return Ok(out);
        }
        for branch in branches {
            if choice.is_some_and(|c| **c != *branch.choice) {
                continue;
            }
            let event = self.events.id(&branch.event).ok_or_else(|| {
                EvalError::new(
                    span,
                    format!(
                        "{} is not an event of any channel",
                        self.eval.show(&branch.event)
                    ),
                )
            })?;
            let target = self.state(&branch.next, span)?;
            out.push(Transition { event, target });
        }
        Ok(out)
    }
}

/// Every way to pick one element from each list.
fn product(choices: &[Vec<ProcId>]) -> Vec<Vec<ProcId>> {
    let mut out = vec![Vec::with_capacity(choices.len())];
    for options in choices {
        let mut grown = Vec::with_capacity(out.len() * options.len());
        for prefix in &out {
            for &o in options {
                let mut p = prefix.clone();
                p.push(o);
                grown.push(p);
            }
        }
        out = grown;
    }
    out
}
