//! The engine thread's state and its answers: the loaded script, the
//! animated process with its symmetry, the stores of states met, and the
//! stepping of both walks (the raw system's and the reduced system's,
//! related by a permutation σ at every position).
//!
//! This file holds the world and the parts its jobs share: the walk's
//! stores and the borrowing of them together (`WalkParts`). The jobs are in
//! the child modules: answering each request (`requests`), opening,
//! following and reloading walks (`opening`), one step of both walks
//! (`stepping`), fired, random and replayed walks (`walks`), following a
//! trace (`trace`), a state as the panes show it (`shown`), the
//! partial order marks (`partial_order`) and the
//! symmetry view's explanations and comparisons (`explain`).

use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender};

use rustc_hash::{FxHashMap, FxHashSet};

use crate::lts::store::StateStore;
use crate::process::EventId;
use crate::script::Script;
use crate::symmetry::Permutation;
use crate::symmetry::strategy::Strategy;

use super::super::model::{Animation, Source, Stepper};
use super::{Control, NONE, Names, Reply, Request};

mod explain;
mod opening;
mod partial_order;
mod requests;
mod shown;
mod stepping;
mod trace;
mod walks;

/// How many steps of a long request pass between looks at the cancel
/// flag and updates of the progress counters.
const POLL_EVERY: usize = 256;

pub(super) fn serve(requests: Receiver<Request>, replies: Sender<Reply>, control: Arc<Control>) {
    let mut world = World::new(control);
    while let Ok(request) = requests.recv() {
        // A cancel was for the request before.
        world.control.start(0);
        let reply = world.handle(request);
        if replies.send(reply).is_err() {
            return;
        }
    }
}

/// Permutations met on the path, numbered.
#[derive(Default)]
struct Permutations {
    list: Vec<Permutation>,
    ids: FxHashMap<Permutation, u32>,
    named: usize,
}

impl Permutations {
    fn id(&mut self, p: &Permutation) -> u32 {
        if let Some(&id) = self.ids.get(p) {
            return id;
        }
        let id = self.list.len() as u32;
        self.list.push(p.clone());
        self.ids.insert(p.clone(), id);
        id
    }
}

/// Everything about the animated process that outlives one request.
struct WalkState {
    animation: Animation,
    process: String,
    raw: StateStore,
    reduced: StateStore,
    permutations: Permutations,
    named: FxHashSet<u32>,
}

struct World {
    control: Arc<Control>,
    source: Option<Source>,
    symmetry: Option<String>,
    /// How the symmetry view and the reduced walk find representatives.
    strategy: Strategy,
    walk: Option<WalkState>,
    /// The walk left when another process or counterexample was opened,
    /// kept so that the user's trace is not lost (the interface decides
    /// which walk is worth keeping).
    earlier: Option<WalkState>,
}

impl World {
    fn new(control: Arc<Control>) -> World {
        World {
            control,
            source: None,
            symmetry: None,
            strategy: Strategy::Fdr,
            walk: None,
            earlier: None,
        }
    }
}

/// The pieces of a walk a step works on, borrowed together.
struct WalkParts<'a, 's> {
    script: &'a Script,
    stepper: &'a mut Stepper<'s>,
    raw: &'a mut StateStore,
    reduced: &'a mut StateStore,
    permutations: &'a mut Permutations,
    names: NameLog<'a>,
}

/// The names of the ids sent so far, and those to send with the reply.
struct NameLog<'a> {
    named: &'a mut FxHashSet<u32>,
    new: Names,
}

impl WalkState {
    fn render(&self, e: crate::eval::EvalError) -> String {
        self.animation
            .with_dependent(|script, _| e.to_diagnostic().render(&script.sources))
    }

    fn event_text(&self, e: EventId) -> String {
        self.animation
            .with_dependent(|_, s| s.animator.processes().show_event(e))
    }

    /// Runs `f` with the walk's parts borrowed together, and collects
    /// the names it used.
    fn with<R>(&mut self, f: impl FnOnce(&mut WalkParts) -> R) -> (R, Names) {
        let WalkState {
            animation,
            raw,
            reduced,
            permutations,
            named,
            ..
        } = self;
        animation.with_dependent_mut(|script, stepper| {
            let mut ctx = WalkParts {
                script,
                stepper,
                raw,
                reduced,
                permutations,
                names: NameLog {
                    named,
                    new: Names::default(),
                },
            };
            let out = f(&mut ctx);
            ctx.name_permutations();
            (out, ctx.names.new)
        })
    }
}

impl WalkParts<'_, '_> {
    /// An evaluation's failure in words: a stop (Esc, the memory budget)
    /// plainly, a mistake in the script as its diagnostic.
    fn render(&self, e: crate::eval::EvalError) -> String {
        match e.stop_reason() {
            Some(stop) => stop.ended(),
            None => e.to_diagnostic().render(&self.script.sources),
        }
    }

    fn row(&self, id: u32, reduced: bool) -> Vec<u32> {
        let mut out = Vec::new();
        if reduced {
            self.reduced.read(id, &mut out);
        } else {
            self.raw.read(id, &mut out);
        }
        out
    }

    fn note_event(&mut self, e: Option<EventId>) -> u32 {
        let Some(e) = e else {
            return NONE;
        };
        if self.names.named.insert(e) {
            let text = self.stepper.animator.processes().show_event(e);
            self.names.new.events.push((e, Arc::from(text)));
        }
        e
    }

    fn name_permutations(&mut self) {
        let Ok(lens) = &self.stepper.lens else {
            return;
        };
        while self.permutations.named < self.permutations.list.len() {
            let id = self.permutations.named;
            let text = self.permutations.list[id].moves_text(&lens.symmetry, self.script);
            self.names
                .new
                .permutations
                .push((id as u32, Arc::from(text)));
            self.permutations.named += 1;
        }
    }
}
