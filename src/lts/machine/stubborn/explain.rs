//! A state's stubborn set, explained rather than applied: which moves
//! a reduced search follows there, the set's components with why each
//! joined it, or why every move is followed. The animator shows it; the
//! search uses the same closure ([`Stubborn::smallest`]), so what is
//! explained is what a reduced search does.

use crate::eval::EvalResult;
use crate::process::{EventId, Processes};

use super::super::{Machine, Moves};
use super::{Preserve, Scratch, Stop, Stubborn};

/// A partial order reduction of a machine, held apart from it, so that
/// its searches stay whole while its states' sets are explained.
#[derive(Debug)]
pub struct PartialOrder(pub(in crate::lts::machine) Box<Stubborn>);

/// What a reduced search does at one state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StubbornSet {
    /// The state has one move or none: there is nothing to leave out.
    Trivial,
    /// A set smaller than every move: per move (in the order of the
    /// [`Moves`] explained) whether the search follows it, and the set's
    /// components in the order they joined.
    Reduced {
        followed: Vec<bool>,
        members: Vec<Member>,
    },
    /// Every move is followed: why the set from each component tried was
    /// given up (in the order tried).
    Whole(Vec<GivenUp>),
}

/// A component of a stubborn set and why it joined.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Member {
    pub slot: usize,
    pub joined: Joined,
}

/// Why a component joined a stubborn set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Joined {
    /// The set was started from it.
    Seed,
    /// It takes part in enabled move `m` (an index of the [`Moves`]) of
    /// member `with`.
    Shares { with: usize, m: usize },
    /// Member `of` offers `event`, which cannot happen until this
    /// component offers its part, `own`.
    Waits {
        of: usize,
        event: EventId,
        own: EventId,
    },
}

/// A set started from component `seed` that holds every move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GivenUp {
    pub seed: usize,
    pub why: Widened,
}

/// Why a set was widened to every move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Widened {
    /// It holds visible move `m`, and traces are kept.
    Visible { m: usize },
    /// It holds move `m`, which may close a cycle, and traces are kept.
    Cycle { m: usize },
    /// Its component `slot` has terminated.
    Terminated { slot: usize },
    /// Its component `slot` is in a state outside its own state space.
    Outside { slot: usize },
    /// None of its components' moves is enabled.
    Blocked,
    /// Closed, it holds every enabled move.
    Everything,
}

impl Machine {
    /// The partial order reduction that keeps what `preserve` says, held
    /// apart from the machine (whose searches stay whole), or why it
    /// cannot reduce it. Explores each component's own state space,
    /// evaluating CSPM within the meter of `procs`.
    pub fn partial_order_for(
        &mut self,
        procs: &mut Processes,
        preserve: Preserve,
    ) -> EvalResult<Result<PartialOrder, String>> {
        Ok(self
            .stubborn_sets(procs, preserve)?
            .map(|stubborn| PartialOrder(Box::new(stubborn))))
    }
}

impl PartialOrder {
    /// What it keeps, asked to keep `asked`, in words.
    pub fn kept(&self, asked: Preserve) -> &'static str {
        match (asked, self.0.preserve) {
            (Preserve::Divergences, Preserve::Deadlocks) => {
                "deadlocks kept; no move can be a τ, so nothing diverges"
            }
            (_, kept) => kept.describe(),
        }
    }

    /// What a search reduced by it does at `state`, whose every move
    /// `moves` holds (computed by `machine`, without a reduction).
    pub fn explain(&self, machine: &Machine, state: &[u32], moves: &Moves) -> StubbornSet {
        let stubborn = &self.0;
        let all = moves.list.len();
        if all <= 1 {
            return StubbornSet::Trivial;
        }
        let mut s = Scratch::default();
        if let Some(seed) = stubborn.smallest(machine, state, moves, &mut s) {
            // Closed again, unbounded, from the same seed: the same set,
            // with why each component joined.
            let size = stubborn.close::<true>(machine, state, moves, seed, all, &mut s);
            debug_assert_eq!(size.ok(), Some(s.best.len()));
            let mut followed = vec![false; all];
            for &m in &s.best {
                followed[m as usize] = true;
            }
            let members = s
                .set
                .iter()
                .zip(&s.cause)
                .map(|(&slot, &joined)| Member {
                    slot: slot as usize,
                    joined,
                })
                .collect();
            return StubbornSet::Reduced { followed, members };
        }
        // The seeds in the order `smallest` tried them (its index of the
        // moves' components is still in `s`).
        let mut given_up = Vec::new();
        s.tried.clear();
        s.tried.resize(state.len(), false);
        for m in 0..all {
            let seed = s.move_slots[s.move_start[m] as usize];
            if std::mem::replace(&mut s.tried[seed as usize], true) {
                continue;
            }
            // Bounded as the search bounds it, so that the reason is the
            // search's own: a set reaching every move is given up there.
            let why = match stubborn.close::<true>(machine, state, moves, seed, all, &mut s) {
                Ok(_) | Err(Stop::Bound) => Widened::Everything,
                Err(Stop::Visible(m)) => Widened::Visible { m: m as usize },
                Err(Stop::Sticky(m)) => Widened::Cycle { m: m as usize },
                Err(Stop::Terminated(slot)) => Widened::Terminated {
                    slot: slot as usize,
                },
                Err(Stop::Outside(slot)) => Widened::Outside {
                    slot: slot as usize,
                },
                Err(Stop::Blocked) => Widened::Blocked,
            };
            given_up.push(GivenUp {
                seed: seed as usize,
                why,
            });
        }
        StubbornSet::Whole(given_up)
    }
}
