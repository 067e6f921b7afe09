//! Stepping a process by hand: the enabled events of a system state with
//! the components that take part in each (and the event each performs
//! itself, so a τ shows what was hidden), component states as process
//! text, the operator tree for grouping them, and replaying a recorded
//! path (a check's counterexample) move by move. Everything the animator
//! shows comes from here; it keeps no history (the user interface owns
//! the trace).

use crate::eval::EvalResult;
use crate::process::{EventId, ProcId, Processes, StateKey, TAU, TICK};
use crate::script::Script;
use crate::script::ir::FuncId;

use super::machine::{Machine, Moves, OutlineRow, PartialOrder, Preserve, StubbornSet, Widened};

/// Original states listed beside a compressed component's state.
const MEMBERS_SHOWN: usize = 3;

/// How an enabled event is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum EventKind {
    Visible,
    /// An internal step (hidden, or a component's ✓ inside a parallel).
    Tau,
    /// Successful termination of the whole process.
    Tick,
}

/// A component taking part in a move, with its own event (before hiding
/// and renaming).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Participant {
    pub slot: usize,
    pub own_event: String,
}

/// One move the current state can make.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Enabled {
    pub event: EventId,
    /// The event as FDR prints it (`τ`, `✓`, `push.T0.A`).
    pub label: String,
    pub kind: EventKind,
    pub participants: Vec<Participant>,
    /// What the components performed when the system shows another event
    /// (the event a τ hides, or the one renamed).
    pub hidden: Option<String>,
    /// The system state after the move.
    pub target: Vec<u32>,
}

impl Enabled {
    /// The slots of the components that take part.
    pub fn slots(&self) -> impl Iterator<Item = usize> + '_ {
        self.participants.iter().map(|p| p.slot)
    }
}

/// A component's part in a recorded step: its own event (before hiding
/// and renaming) and the state it moved into, as a key, so that a path
/// recorded with other [`Processes`] (a check's, on its worker thread)
/// can be replayed here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ComponentMove {
    pub slot: usize,
    pub event: EventId,
    pub state: StateKey,
}

/// One step of a recorded path, as [`Animator::follow`] replays it.
#[derive(Debug, Clone, Copy)]
pub struct PathStep<'a> {
    /// The system's event (τ included).
    pub event: EventId,
    /// The components that took part, in increasing slot order.
    pub moved: &'a [ComponentMove],
}

/// Why a recorded path could not be followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FollowError {
    /// The step (from 0) that has no matching move.
    pub step: usize,
    /// The step's event.
    pub event: EventId,
}

/// A process compiled for stepping.
pub struct Animator<'s> {
    procs: Processes<'s>,
    machine: Machine,
    moves: Moves,
    /// The moves of the last state computed, in the order [`Self::enabled`]
    /// lists them (indices into `moves.list`).
    order: Vec<usize>,
    after: Vec<u32>,
    /// The partial order reductions whose stubborn sets are explained,
    /// each with what it was asked to keep, or why it cannot reduce this
    /// process; each made on first use ([`Self::stubborn_set`]).
    partial_order: Vec<(Preserve, Result<PartialOrder, String>)>,
}

/// One move of the last state whose moves were computed
/// ([`Animator::compute_moves`]): what a step records, without printing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Taken {
    pub event: EventId,
    /// What the components performed, when the system shows another
    /// event (the event a τ hides, or the one renamed).
    pub hidden: Option<EventId>,
}

impl<'s> Animator<'s> {
    /// Animates the constant `func` of `script` (a definition or an
    /// expression added with [`Script::add_expr`]). Evaluation recurses:
    /// call it on a large stack ([`crate::stack`]).
    pub fn load(script: &'s Script, func: FuncId) -> EvalResult<Animator<'s>> {
        let (procs, root) = Processes::with_root(script, func)?;
        Animator::new(procs, root)
    }

    pub fn new(mut procs: Processes<'s>, root: ProcId) -> EvalResult<Animator<'s>> {
        let machine = Machine::new(&mut procs, root)?;
        Ok(Animator {
            procs,
            machine,
            moves: Moves::default(),
            order: Vec::new(),
            after: Vec::new(),
            partial_order: Vec::new(),
        })
    }

    pub fn processes(&self) -> &Processes<'s> {
        &self.procs
    }

    pub fn initial(&self) -> Vec<u32> {
        self.machine.initial().to_vec()
    }

    pub fn components(&self) -> usize {
        self.machine.components()
    }

    /// The process state of component `slot` in local state `local`.
    pub fn component_state(&self, slot: usize, local: u32) -> ProcId {
        self.machine.process_state(slot, local)
    }

    /// Component `slot` in local state `local`, as process text; a
    /// compressed state says which of its process's states it stands
    /// for.
    pub fn show_component(&self, slot: usize, local: u32) -> String {
        let state = self.component_state(slot, local);
        let text = self.procs.show_state(state);
        match self.procs.stands_for(state) {
            Some((members, of)) => {
                let shown: Vec<String> = members
                    .iter()
                    .take(MEMBERS_SHOWN)
                    .map(|&m| self.procs.show_state(m))
                    .collect();
                let more = members.len().saturating_sub(MEMBERS_SHOWN);
                let more = if more > 0 {
                    format!(", … {more} more")
                } else {
                    String::new()
                };
                format!(
                    "{text}  — stands for {} of its process's {of} states: {}{more}",
                    members.len(),
                    shown.join("; ")
                )
            }
            None => text,
        }
    }

    /// The operator tree over the components.
    pub fn outline(&self) -> Vec<OutlineRow> {
        self.machine.outline(&self.procs)
    }

    /// The script's processes and the supercombinator, for the layers
    /// that work on its states (the symmetry layer permutes them).
    pub fn parts_mut(&mut self) -> (&mut Machine, &mut Processes<'s>) {
        (&mut self.machine, &mut self.procs)
    }

    pub fn machine(&self) -> &Machine {
        &self.machine
    }

    /// Lends the machine by value to `f` with the processes — a search
    /// ([`Machine`] is moved into it) run on the states this animator
    /// numbers, so that the rows it finds are rows here — and takes back
    /// the machine `f` returns.
    pub fn lend_machine<R>(
        &mut self,
        f: impl FnOnce(&mut Processes<'s>, Machine) -> (Machine, R),
    ) -> R {
        // Held while lent: the smallest machine there is.
        let omega = self.procs.omega();
        let stand_in = Machine::single(&mut self.procs, omega);
        let machine = std::mem::replace(&mut self.machine, stand_in);
        let (machine, out) = f(&mut self.procs, machine);
        self.machine = machine;
        out
    }

    /// Computes the moves of `state` and orders them as [`Self::enabled`]
    /// lists them (visible events in the order of their values, `e.2`
    /// before `e.10` as FDR lists them, then τ, then ✓; moves with the
    /// same event keep the order the semantics gives them, so a list is
    /// the same every time). Returns how many there are; [`Self::take`]
    /// then reads one without printing anything.
    pub fn compute_moves(&mut self, state: &[u32]) -> EvalResult<usize> {
        self.machine
            .moves(&mut self.procs, state, &mut self.moves)?;
        listed_order(&self.moves, &mut self.order);
        Ok(self.order.len())
    }

    /// Move `k` of the state last given to [`Self::compute_moves`]: its
    /// event (and the event it hides), its target in `target`.
    pub fn take(&self, state: &[u32], k: usize, target: &mut Vec<u32>) -> Taken {
        let m = &self.moves.list[self.order[k]];
        self.moves.apply(m, state, target);
        let taking_part = self.machine.participants(self.moves.changes(m));
        Taken {
            event: m.event,
            hidden: Machine::hidden_event(&taking_part, m.event),
        }
    }

    /// The components move `k` of the last computed state changes.
    pub fn changed_by(&self, k: usize) -> Vec<usize> {
        let m = &self.moves.list[self.order[k]];
        let mut slots: Vec<usize> = self
            .machine
            .participants(self.moves.changes(m))
            .into_iter()
            .map(|(slot, _)| slot)
            .collect();
        slots.sort_unstable();
        slots
    }

    /// The moves of `state`, in the order of [`Self::compute_moves`], each
    /// with its components and their own events in words.
    pub fn enabled(&mut self, state: &[u32]) -> EvalResult<Vec<Enabled>> {
        self.compute_moves(state)?;
        let mut list = Vec::with_capacity(self.order.len());
        for &i in &self.order {
            let m = &self.moves.list[i];
            self.moves.apply(m, state, &mut self.after);
            let taking_part = self.machine.participants(self.moves.changes(m));
            let hidden = Machine::hidden_event(&taking_part, m.event);
            let mut participants: Vec<Participant> = taking_part
                .into_iter()
                .map(|(slot, own)| Participant {
                    slot,
                    own_event: self.procs.show_event(own),
                })
                .collect();
            participants.sort_by_key(|p| p.slot);
            list.push(Enabled {
                event: m.event,
                label: self.procs.show_event(m.event),
                kind: kind_of(m.event),
                participants,
                hidden: hidden.map(|e| self.procs.show_event(e)),
                target: self.after.clone(),
            });
        }
        Ok(list)
    }

    /// What a search reduced by partial order, keeping `preserve`, does
    /// at `state`: the reduction's note (what it keeps) and the state's
    /// stubborn set, its moves numbered as [`Self::enabled`] lists them;
    /// or why the reduction cannot apply to this process. The reduction
    /// is made once for each `preserve` (exploring each component's own
    /// state space); the animator's moves stay whole.
    pub fn stubborn_set(
        &mut self,
        state: &[u32],
        preserve: Preserve,
    ) -> EvalResult<Result<(&'static str, StubbornSet), String>> {
        self.compute_moves(state)?;
        let at = match self.partial_order.iter().position(|(p, _)| *p == preserve) {
            Some(at) => at,
            None => {
                let made = self.machine.partial_order_for(&mut self.procs, preserve)?;
                self.partial_order.push((preserve, made));
                self.partial_order.len() - 1
            }
        };
        let reduction = match &self.partial_order[at].1 {
            Ok(reduction) => reduction,
            Err(why) => return Ok(Err(why.clone())),
        };
        let set = reduction.explain(&self.machine, state, &self.moves);
        let mut listed = vec![0; self.order.len()];
        for (k, &m) in self.order.iter().enumerate() {
            listed[m] = k;
        }
        let set = match set {
            StubbornSet::Trivial => StubbornSet::Trivial,
            StubbornSet::Reduced {
                followed,
                mut members,
            } => {
                for member in &mut members {
                    if let super::machine::Joined::Shares { m, .. } = &mut member.joined {
                        *m = listed[*m];
                    }
                }
                StubbornSet::Reduced {
                    followed: self.order.iter().map(|&m| followed[m]).collect(),
                    members,
                }
            }
            StubbornSet::Whole(mut given_up) => {
                for g in &mut given_up {
                    if let Widened::Visible { m } | Widened::Cycle { m } = &mut g.why {
                        *m = listed[*m];
                    }
                }
                StubbornSet::Whole(given_up)
            }
        };
        Ok(Ok((reduction.kept(preserve), set)))
    }

    /// The moves that replay a recorded path from the initial state: at
    /// each step the move with the recorded event and the same
    /// components and, where several remain, the one whose components
    /// move into the recorded states (imported into this animator's
    /// [`Processes`], which numbers states its own way); each with its
    /// place in the state's [`Self::enabled`] list.
    pub fn follow<'a>(
        &mut self,
        path: impl IntoIterator<Item = PathStep<'a>>,
    ) -> Result<Vec<(usize, Enabled)>, FollowError> {
        let mut state = self.initial();
        let mut taken = Vec::new();
        for (k, step) in path.into_iter().enumerate() {
            let stuck = FollowError {
                step: k,
                event: step.event,
            };
            let enabled = self.enabled(&state).map_err(|_| stuck)?;
            let slots = || step.moved.iter().map(|m| m.slot);
            let mut candidates: Vec<(usize, Enabled)> = enabled
                .into_iter()
                .enumerate()
                .filter(|(_, e)| e.event == step.event && e.slots().eq(slots()))
                .collect();
            if candidates.len() > 1 {
                let recorded: Vec<(usize, ProcId)> = step
                    .moved
                    .iter()
                    .map(|m| (m.slot, self.procs.import(&m.state)))
                    .collect();
                candidates.retain(|(_, e)| {
                    recorded
                        .iter()
                        .all(|&(slot, id)| self.component_state(slot, e.target[slot]) == id)
                });
            }
            let chosen = candidates.into_iter().next().ok_or(stuck)?;
            state.clone_from(&chosen.1.target);
            taken.push(chosen);
        }
        Ok(taken)
    }
}

/// The order the animator lists `moves` in, into `order` (indices into
/// `moves.list`): visible events by value, then τ, then ✓, moves with
/// one event in the semantics' order ([`Animator::compute_moves`]).
fn listed_order(moves: &Moves, order: &mut Vec<usize>) {
    let list = &moves.list;
    order.clear();
    order.extend(0..list.len());
    order.sort_by_key(|&i| (kind_of(list[i].event), list[i].event));
}

/// Why a path of move numbers could not be walked ([`walk_numbered`]).
#[derive(Debug)]
pub enum NumberedError {
    /// Step `step` (from 0) asked for move `number` (from 1) of a state
    /// with `offered` moves.
    NoSuchMove {
        step: usize,
        number: usize,
        offered: usize,
    },
    Eval(crate::eval::EvalError),
}

/// Walks `path` from `machine`'s initial state: at each state the move
/// of that number (from 1) as the animator lists them (τ included), so
/// that the path a user took in the animator, recorded by its numbers,
/// leads `symcsp rep` to the same state. The state reached, and each
/// step's event with the event it hides, if any.
pub fn walk_numbered(
    machine: &mut Machine,
    procs: &mut Processes,
    path: &[usize],
) -> Result<(Vec<u32>, Vec<Taken>), NumberedError> {
    let mut state = machine.initial().to_vec();
    let (mut moves, mut order, mut next) = (Moves::default(), Vec::new(), Vec::new());
    let mut taken = Vec::with_capacity(path.len());
    for (step, &number) in path.iter().enumerate() {
        machine
            .moves(procs, &state, &mut moves)
            .map_err(NumberedError::Eval)?;
        listed_order(&moves, &mut order);
        let Some(&i) = number.checked_sub(1).and_then(|k| order.get(k)) else {
            return Err(NumberedError::NoSuchMove {
                step,
                number,
                offered: order.len(),
            });
        };
        let m = &moves.list[i];
        moves.apply(m, &state, &mut next);
        let taking_part = machine.participants(moves.changes(m));
        taken.push(Taken {
            event: m.event,
            hidden: Machine::hidden_event(&taking_part, m.event),
        });
        std::mem::swap(&mut state, &mut next);
    }
    Ok((state, taken))
}

/// A step as a path shows it: its event, and after a τ the event the τ
/// hides (`τ ‹push.T0.A›`). One spelling for the Trace pane's records,
/// the animator's exports, `rep --path` and counterexamples, so that a
/// path written by one reads the same in another.
pub fn step_text(event: &str, hidden: Option<&str>) -> String {
    match hidden {
        Some(hidden) => format!("{event} ‹{hidden}›"),
        None => event.to_string(),
    }
}

/// How an event is shown: τ and ✓ apart from visible events (and listed
/// after them).
pub fn kind_of(event: EventId) -> EventKind {
    match event {
        TAU => EventKind::Tau,
        TICK => EventKind::Tick,
        _ => EventKind::Visible,
    }
}
