//! One state's stubborn set: closing a set of moves from a component,
//! keeping the smallest, and filtering the state's moves to it.
//!
//! The set is closed over *claims*: a claim on a local transition of a
//! component (a step it can take in its current state) puts every move
//! made of that step into the set, enabled or not. A component *joins*
//! the set by having every step that leaves its current state claimed —
//! it is then frozen along every path of moves outside the set — while
//! its self-loops (steps that leave it as it is, such as a read of a
//! node) are claimed only where they conflict. So:
//! - an enabled move of the set: every component taking part joins, and
//!   where the move changes a component from `l` to `l'`, each self-loop
//!   of `l` that `l'` has not (a read of the field it writes) is claimed:
//!   the other self-loops of `l` commute with it (either order, the same
//!   state), and nothing outside the set can change a frozen component;
//! - a disabled move of the set (a claimed step whose partner does not
//!   offer its part): the partner joins, since it must change state
//!   before the move can happen (a necessary enabling set).
//!
//! A move left out then takes part with the set's components only by
//! self-loops that commute with every move of the set, and enables none
//! of the set's moves: Valmari's strong stubborn set conditions, with
//! the dependency of two moves that share a component decided by that
//! component's own state space (Godefroid's conditional independence).
//! The seed component claims all its steps, self-loops too.

use crate::process::{EventId, TAU, TICK};

use super::super::{Change, Machine, Move, Moves};
use super::{FAR, Joined, Preserve, Stubborn};

/// Why closing a set from a component gave it up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Stop {
    /// It would hold no fewer moves than the smallest found.
    Bound,
    /// It holds move `m`, visible, where traces are kept.
    Visible(u32),
    /// It holds move `m`, which may close a cycle, where traces are kept.
    Sticky(u32),
    /// Component `slot` of the set has terminated.
    Terminated(u32),
    /// Component `slot` is in a state its own state space does not hold.
    Outside(u32),
    /// No move of its components is enabled.
    Blocked,
}

/// What is left to close: a component that joined, whose steps out of
/// its state are to be claimed (and, for the seed, its self-loops too),
/// or a self-loop claimed.
#[derive(Debug, Clone, Copy)]
enum Work {
    Joined { slot: u32 },
    Loop { slot: u32, event: EventId },
}

/// Buffers for computing stubborn sets, reused from state to state.
#[derive(Debug, Default)]
pub(in crate::lts::machine) struct Scratch {
    /// Per move: its components, `move_slots[move_start[m]..move_start[m + 1]]`.
    pub(super) move_start: Vec<u32>,
    pub(super) move_slots: Vec<u32>,
    /// Per move and component, the component's change (an index of the
    /// moves' changes), beside `move_slots`.
    move_changes: Vec<u32>,
    /// Per slot: its moves, `slot_moves[slot_start[s]..slot_start[s + 1]]`,
    /// and its change in each, beside them in `slot_changes`.
    slot_start: Vec<u32>,
    slot_moves: Vec<u32>,
    slot_changes: Vec<u32>,
    /// Where each slot's next move goes while `slot_moves` is filled.
    fill: Vec<u32>,
    /// Per slot: whether it has joined the set being closed.
    in_set: Vec<bool>,
    /// The set's components in the order they joined, each with why.
    pub(super) set: Vec<u32>,
    pub(super) cause: Vec<Joined>,
    /// The self-loops claimed beyond the seed's: component and event.
    loops: Vec<(u32, EventId)>,
    work: Vec<Work>,
    /// Per move: whether the set being closed holds it.
    taken: Vec<bool>,
    taken_list: Vec<u32>,
    pub(super) best: Vec<u32>,
    pub(super) tried: Vec<bool>,
}

impl Stubborn {
    /// Keeps, of `moves` (every move of `state`, in the machine's order),
    /// those of the smallest stubborn set found, in the same order.
    pub(in crate::lts::machine) fn reduce(
        &self,
        machine: &Machine,
        state: &[u32],
        moves: &mut Moves,
    ) {
        if moves.list.len() <= 1 {
            return;
        }
        let mut s = std::mem::take(&mut moves.stubborn);
        if self.smallest(machine, state, moves, &mut s).is_some() {
            for &m in &s.taken_list {
                s.taken[m as usize] = false;
            }
            for &m in &s.best {
                s.taken[m as usize] = true;
            }
            let mut m = 0;
            moves.list.retain(|_| {
                m += 1;
                s.taken[m - 1]
            });
        }
        moves.stubborn = s;
    }

    /// The component from which the smallest set smaller than every move
    /// closes, its moves in `s.best`; `None` when every set found holds
    /// every move or is given up. Seeds are tried in the order of the
    /// moves' first components.
    pub(super) fn smallest(
        &self,
        machine: &Machine,
        state: &[u32],
        moves: &Moves,
        s: &mut Scratch,
    ) -> Option<u32> {
        self.index(state.len(), moves, s);
        let mut best = moves.list.len();
        let mut seed_of_best = None;
        s.tried.clear();
        s.tried.resize(state.len(), false);
        for m in 0..moves.list.len() {
            let seed = s.move_slots[s.move_start[m] as usize];
            if s.tried[seed as usize] {
                continue;
            }
            s.tried[seed as usize] = true;
            if let Ok(size) = self.close::<false>(machine, state, moves, seed, best, s) {
                best = size;
                seed_of_best = Some(seed);
                s.best.clear();
                s.best.extend_from_slice(&s.taken_list);
                if best == 1 {
                    break;
                }
            }
        }
        seed_of_best
    }

    /// Each move's components and each component's moves.
    fn index(&self, slots: usize, moves: &Moves, s: &mut Scratch) {
        s.move_start.clear();
        s.move_slots.clear();
        s.move_changes.clear();
        for m in &moves.list {
            s.move_start.push(s.move_slots.len() as u32);
            let from = s.move_slots.len();
            for (j, change) in moves.changes(m).iter().enumerate() {
                if !s.move_slots[from..].contains(&change.slot) {
                    s.move_slots.push(change.slot);
                    s.move_changes.push(m.start + j as u32);
                }
            }
        }
        s.move_start.push(s.move_slots.len() as u32);
        s.slot_start.clear();
        s.slot_start.resize(slots + 1, 0);
        for &slot in &s.move_slots {
            s.slot_start[slot as usize + 1] += 1;
        }
        for i in 0..slots {
            s.slot_start[i + 1] += s.slot_start[i];
        }
        s.slot_moves.clear();
        s.slot_moves.resize(s.move_slots.len(), 0);
        s.slot_changes.clear();
        s.slot_changes.resize(s.move_slots.len(), 0);
        s.fill.clear();
        s.fill.extend_from_slice(&s.slot_start[..slots]);
        for m in 0..moves.list.len() {
            for k in s.move_start[m]..s.move_start[m + 1] {
                let slot = s.move_slots[k as usize] as usize;
                let at = s.fill[slot] as usize;
                s.slot_moves[at] = m as u32;
                s.slot_changes[at] = s.move_changes[k as usize];
                s.fill[slot] += 1;
            }
        }
        s.in_set.clear();
        s.in_set.resize(slots, false);
        s.set.clear();
        s.taken.clear();
        s.taken.resize(moves.list.len(), false);
        s.taken_list.clear();
    }

    /// Closes the set from `seed`: the number of enabled moves it holds
    /// (listed in `s.taken_list`; its components in `s.set`, and with
    /// `WHY` why each joined in `s.cause`), or why it was given up: it
    /// would hold no fewer than `bound`, or must be widened to every
    /// move. The search asks without `WHY`, and pays nothing for the
    /// explanation.
    pub(super) fn close<const WHY: bool>(
        &self,
        machine: &Machine,
        state: &[u32],
        moves: &Moves,
        seed: u32,
        bound: usize,
        s: &mut Scratch,
    ) -> Result<usize, Stop> {
        for &slot in &s.set {
            s.in_set[slot as usize] = false;
        }
        s.set.clear();
        s.cause.clear();
        for &m in &s.taken_list {
            s.taken[m as usize] = false;
        }
        s.taken_list.clear();
        s.loops.clear();
        s.work.clear();
        let mut closing = Closing {
            stubborn: self,
            machine,
            state,
            moves,
            seed,
            bound,
            s,
        };
        closing.join::<WHY>(seed, Joined::Seed)?;
        while let Some(work) = closing.s.work.pop() {
            match work {
                Work::Joined { slot } => closing.claim_steps::<WHY>(slot)?,
                Work::Loop { slot, event } => {
                    let local = state[slot as usize];
                    closing.take_moves::<WHY>(slot, |c| c.event == event && c.to == local)?;
                    closing.partners_of::<WHY>(slot, event)?;
                }
            }
        }
        if closing.s.taken_list.is_empty() {
            // No move of these components is enabled: not a stubborn set
            // that lets the search go on.
            return Err(Stop::Blocked);
        }
        Ok(closing.s.taken_list.len())
    }

    /// The partners of component `slot` on its event `e`.
    #[inline]
    fn partners(&self, slot: usize, e: EventId) -> &[(u32, EventId)] {
        let table = &self.partners[slot];
        match table.binary_search_by_key(&e, |&(x, _, _)| x) {
            Ok(i) => {
                let (_, start, len) = table[i];
                &self.partner_list[start as usize..(start + len) as usize]
            }
            Err(_) => &[],
        }
    }

    /// Whether component `slot`'s own state space holds `local`.
    #[inline]
    fn knows(&self, slot: usize, local: u32) -> bool {
        self.reachable[slot]
            .get(local as usize / 64)
            .is_some_and(|w| w & (1 << (local % 64)) != 0)
    }

    /// Whether component `slot`'s local state `local` has a self-loop.
    #[inline]
    fn has_loops(&self, machine: &Machine, slot: usize, local: u32) -> bool {
        self.loops[machine.table_of[slot] as usize]
            .get(local as usize / 64)
            .is_none_or(|w| w & (1 << (local % 64)) != 0)
    }

    /// Whether a move may close a cycle: it takes some component it
    /// changes to a state no farther from the initial states than the
    /// one it leaves, or it changes none (a loop of the whole system).
    /// A move along which every component it changes gets farther can
    /// be on no cycle: a cycle brings each component back (under a
    /// symmetry, to a state as far), so some step of it does not.
    fn sticky(&self, machine: &Machine, state: &[u32], moves: &Moves, m: &Move) -> bool {
        let mut changes_one = false;
        for change in moves.changes(m) {
            let slot = change.slot as usize;
            if change.to == state[slot] {
                continue;
            }
            changes_one = true;
            let distance = &self.distance[machine.table_of[slot] as usize];
            let from = distance.get(state[slot] as usize).copied().unwrap_or(FAR);
            let to = distance.get(change.to as usize).copied().unwrap_or(FAR);
            if from == FAR || to == FAR || to <= from {
                return true;
            }
        }
        !changes_one
    }
}

/// Whether `transitions` (of local state `local`, sorted by event) hold
/// a step on `event` back to `local`.
fn has_loop(transitions: &[(EventId, u32)], event: EventId, local: u32) -> bool {
    let from = transitions.partition_point(|&(x, _)| x < event);
    transitions[from..]
        .iter()
        .take_while(|&&(x, _)| x == event)
        .any(|&(_, to)| to == local)
}

/// One set being closed at one state.
struct Closing<'a> {
    stubborn: &'a Stubborn,
    machine: &'a Machine,
    state: &'a [u32],
    moves: &'a Moves,
    seed: u32,
    bound: usize,
    s: &'a mut Scratch,
}

impl Closing<'_> {
    /// Component `slot` joins the set, for the reason `why`; its steps
    /// are claimed later.
    #[inline]
    fn join<const WHY: bool>(&mut self, slot: u32, why: Joined) -> Result<(), Stop> {
        let at = slot as usize;
        if self.s.in_set[at] {
            return Ok(());
        }
        let local = self.state[at];
        if self.machine.has_terminated(at, local) {
            return Err(Stop::Terminated(slot));
        }
        if !self.stubborn.knows(at, local) {
            return Err(Stop::Outside(slot));
        }
        self.s.in_set[at] = true;
        self.s.set.push(slot);
        if WHY {
            self.s.cause.push(why);
        }
        self.s.work.push(Work::Joined { slot });
        Ok(())
    }

    /// Claims the steps of component `slot` that leave its state (and,
    /// for the seed, every step): the enabled moves made of them join
    /// the set, and the partners that must move before the others can.
    #[inline]
    fn claim_steps<const WHY: bool>(&mut self, slot: u32) -> Result<(), Stop> {
        let (local, seed) = (self.state[slot as usize], slot == self.seed);
        self.take_moves::<WHY>(slot, |c| seed || c.to != local)?;
        let offered = self.machine.transitions(slot as usize, self.state);
        let mut last = None;
        for &(e, to) in offered {
            if (!seed && to == local) || last == Some(e) {
                continue;
            }
            last = Some(e);
            self.partners_of::<WHY>(slot, e)?;
        }
        Ok(())
    }

    /// Takes every enabled move in which component `slot` takes part by a
    /// step that `claimed` says is claimed.
    #[inline]
    fn take_moves<const WHY: bool>(
        &mut self,
        slot: u32,
        claimed: impl Fn(&Change) -> bool,
    ) -> Result<(), Stop> {
        let at = slot as usize;
        for k in self.s.slot_start[at]..self.s.slot_start[at + 1] {
            let m = self.s.slot_moves[k as usize] as usize;
            if !self.s.taken[m]
                && claimed(&self.moves.changes[self.s.slot_changes[k as usize] as usize])
            {
                self.take::<WHY>(slot, m)?;
            }
        }
        Ok(())
    }

    /// Enabled move `m`, taken through component `via`: every component
    /// taking part joins, and where it changes one, the self-loops it
    /// conflicts with are claimed.
    #[inline]
    fn take<const WHY: bool>(&mut self, via: u32, m: usize) -> Result<(), Stop> {
        self.s.taken[m] = true;
        self.s.taken_list.push(m as u32);
        if self.s.taken_list.len() >= self.bound {
            return Err(Stop::Bound);
        }
        let step = self.moves.list[m];
        if self.stubborn.preserve != Preserve::Deadlocks {
            if step.event != TAU && self.stubborn.ignored.binary_search(&step.event).is_err() {
                return Err(Stop::Visible(m as u32));
            }
            if self.stubborn.cycles
                && self
                    .stubborn
                    .sticky(self.machine, self.state, self.moves, &step)
            {
                return Err(Stop::Sticky(m as u32));
            }
        }
        for &change in self.moves.changes(&step) {
            let (at, local) = (change.slot as usize, self.state[change.slot as usize]);
            let reads = change.to == local;
            if reads && !self.stubborn.readers_frozen {
                // The wrong relation a test shows the need of: a reader's
                // writes left to happen after the read.
                continue;
            }
            self.join::<WHY>(
                change.slot,
                Joined::Shares {
                    with: via as usize,
                    m,
                },
            )?;
            if reads {
                continue;
            }
            // Each self-loop of the component's state that its state after
            // the move lacks: a move made of it does not commute with this
            // one (a read of what this move writes).
            if !self.stubborn.has_loops(self.machine, at, local) {
                continue;
            }
            let after = self.machine.transitions_at(at, change.to);
            for &(e, to) in self.machine.transitions(at, self.state) {
                if to == local && !after.is_some_and(|after| has_loop(after, e, change.to)) {
                    self.claim_loop(change.slot, e);
                }
            }
        }
        Ok(())
    }

    /// Claims component `slot`'s self-loop on `event`, once.
    fn claim_loop(&mut self, slot: u32, event: EventId) {
        if slot == self.seed || self.s.loops.contains(&(slot, event)) {
            return;
        }
        self.s.loops.push((slot, event));
        self.s.work.push(Work::Loop { slot, event });
    }

    /// For a claimed step of `slot` on event `e`: each partner that does
    /// not offer its part joins, since it must move first.
    #[inline]
    fn partners_of<const WHY: bool>(&mut self, slot: u32, e: EventId) -> Result<(), Stop> {
        if e == TAU || e == TICK {
            return Ok(());
        }
        for &(partner, own) in self.stubborn.partners(slot as usize, e) {
            if self.s.in_set[partner as usize] {
                continue;
            }
            let theirs = self.machine.transitions(partner as usize, self.state);
            let ready = theirs
                .get(theirs.partition_point(|&(x, _)| x < own))
                .is_some_and(|&(x, _)| x == own);
            if !ready {
                self.join::<WHY>(
                    partner,
                    Joined::Waits {
                        of: slot as usize,
                        event: e,
                        own,
                    },
                )?;
            }
        }
        Ok(())
    }
}
