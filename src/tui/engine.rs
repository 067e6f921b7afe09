//! The animator's engine: a thread that owns everything evaluated — the
//! script's listing, the animated process, its symmetry and every state
//! met — so that the user interface never waits on evaluation. The
//! interface sends a [`Request`] and goes on drawing; the engine answers
//! with a [`Reply`] holding what the panes show, in words. Long requests
//! (random runs, replays, reloads) report progress in shared counters and
//! stop early when the cancel flag is raised, keeping what they did.
//!
//! States live here, numbered in two stores (the raw states met, and
//! their representatives); the interface holds only the numbers (a
//! [`Position`]) and the path between them.

mod world;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::time::Duration;

use crate::budget::{Budget, Live, Meter};
use crate::check::counterexample::Counterexample;
use crate::explain::drawing;
use crate::lts::animator::{EventKind, Participant};
use crate::lts::machine::{OutlineRow, Preserve};
use crate::symmetry::rep;
use crate::symmetry::strategy::Strategy;

use super::model::{Listing, Source, SymmetryAbout};
use super::session::{SavedMark, SavedStep};

/// "No such number": a position without a representative, a step
/// without a hidden event.
pub const NONE: u32 = u32::MAX;

/// A place on the animator's path: the raw state and, where the process
/// is symmetric, the state of the reduced walk beside it with the
/// permutation σ mapping the raw state onto it (`reduced = σ(raw)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position {
    pub raw: u32,
    pub reduced: u32,
    /// An id of [`Names::permutations`].
    pub sigma: u32,
}

impl Position {
    pub fn has_reduced(&self) -> bool {
        self.reduced != NONE
    }

    /// The state shown in a mode (`reduced`: the reduced walk's).
    pub fn state(&self, reduced: bool) -> u32 {
        if reduced && self.has_reduced() {
            self.reduced
        } else {
            self.raw
        }
    }
}

/// One step of the path, in both walks: the raw system's move and the
/// matching move of the reduced system (`NONE` without symmetry). Events
/// are ids of [`Names::events`]; `permutation` is the permutation the
/// representative algorithm applied to the reduced move's target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    pub kind: EventKind,
    pub event: u32,
    pub hidden: u32,
    /// The move's place in its state's list of moves.
    pub choice: u32,
    pub reduced_event: u32,
    pub reduced_hidden: u32,
    pub reduced_choice: u32,
    pub permutation: u32,
}

impl Step {
    /// The event, its hidden event and its place in the list, as the
    /// walk in `reduced` mode sees the step.
    pub fn seen(&self, reduced: bool) -> (u32, u32, u32) {
        if reduced && self.reduced_event != NONE {
            (self.reduced_event, self.reduced_hidden, self.reduced_choice)
        } else {
            (self.event, self.hidden, self.choice)
        }
    }
}

/// What the interface wants to see of a state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Want {
    /// Show the reduced walk's state (and step through its moves).
    pub reduced: bool,
    /// Explain the state's representative (the symmetry view is open).
    pub symmetry: bool,
    /// The width the state's graph is drawn for.
    pub width: u16,
    /// Mark the moves a search reduced by partial order, keeping this,
    /// follows (the `p` key).
    pub partial_order: Option<Preserve>,
}

/// A walk's process and path, as the interface holds them, to be
/// replayed on a reloaded script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WalkPath {
    pub process: String,
    /// The initial position and every step (undone ones included),
    /// replayed as a session would replay them.
    pub path: (Position, Vec<(Step, Position)>),
    pub position: usize,
    /// The walk's marked state, found again by its path.
    pub mark: Option<Mark>,
}

/// The state marked for comparison: where it is, whether it was the
/// reduced walk's state there, and the path from the initial state that
/// reaches it — kept apart from the walk's path, which may leave it —
/// by which a reloaded script, a session or a walk opened again finds
/// it (positions are numbers into stores that those start afresh).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mark {
    pub at: Position,
    pub reduced: bool,
    pub steps: Vec<(Step, Position)>,
}

/// Steps to replay from the initial state, and where to stop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replay {
    pub steps: Vec<SavedStep>,
    pub position: usize,
    /// A marked state to find again by its path.
    pub mark: Option<SavedMark>,
}

/// What a process opened with [`Request::Animate`] follows.
#[derive(Debug)]
pub enum Follow {
    /// A check's counterexample.
    Counterexample(Box<Counterexample>),
    /// A trace the user typed (visible events separated by commas).
    Trace(String),
}

#[derive(Debug)]
pub enum Request {
    /// Load the script, list it and animate `process` (else its default
    /// process), replaying a saved path or following `trace` (`--after`).
    Open {
        source: Source,
        process: Option<String>,
        symmetry: Option<String>,
        strategy: Strategy,
        replay: Option<Replay>,
        trace: Option<String>,
    },
    /// Animate another process of the same script; with a counterexample
    /// or a trace, follow it. With `keep`, the walk it replaces becomes
    /// the earlier walk (else it is dropped, and the earlier walk stays).
    /// `mark`, the replaced walk's, is found again on the new walk by its
    /// path (the same process, opened again to follow a trace).
    Animate {
        process: String,
        follow: Option<Follow>,
        want: Want,
        keep: bool,
        mark: Option<Mark>,
    },
    /// Read the script again (or read `from`, instead of the script
    /// loaded) and replace everything, replaying the walk's path, and the
    /// earlier walk's, as far as they fit; if it does not load, keep
    /// everything.
    Reload {
        from: Option<Source>,
        walk: WalkPath,
        earlier: Option<WalkPath>,
        want: Want,
        /// The representative strategy to reopen with (the `y` key cycles
        /// it).
        strategy: Strategy,
    },
    /// Swap the walk animated with the earlier one, and describe the
    /// earlier one's state at `at` (reached by `into`).
    Swap {
        at: Position,
        into: Option<(Position, Step)>,
        want: Want,
    },
    /// Describe a state; `into` is the step that led to it (for the
    /// components it changed).
    Show {
        at: Position,
        into: Option<(Position, Step)>,
        want: Want,
    },
    /// Take move `choice` of the state at `at` (of the reduced walk's
    /// state with `want.reduced`).
    Fire {
        at: Position,
        choice: usize,
        want: Want,
    },
    /// Take up to `steps` random moves from `at`.
    Random {
        at: Position,
        steps: usize,
        seed: u64,
        want: Want,
    },
    /// Save the session: the path from `initial` (every step, undone
    /// ones included) and the position on it, of the walk shown or of
    /// the `earlier` one.
    Save {
        path: std::path::PathBuf,
        earlier: bool,
        initial: Position,
        steps: Vec<(Step, Position)>,
        position: usize,
        mark: Option<Mark>,
    },
    /// Step 3 by hand on the state at `at` (the reduced walk's with
    /// `want.reduced`): its `k`-th split splits off `choices[k]`.
    Choose {
        at: Position,
        choices: Vec<usize>,
        want: Want,
    },
    /// Write the algorithm's stages on the state at `at` (step 3 by hand
    /// with `choices`) as Markdown to `path`, atomically; `trace` is the
    /// walk's steps to it (τ steps with the event each hides) and
    /// `command` the `symcsp rep` command line that prints the same, for
    /// the heading.
    Export {
        at: Position,
        choices: Vec<usize>,
        want: Want,
        trace: Vec<String>,
        command: String,
        path: std::path::PathBuf,
    },
    /// Why do these two states have different representatives?
    /// Each state with the walk it was seen in (`true`: the reduced
    /// walk's state at that position).
    Compare {
        marked: (Position, bool),
        here: (Position, bool),
    },
}

/// A move of the state shown, in words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShownMove {
    pub label: String,
    pub kind: EventKind,
    /// The event a τ hides (or the one renamed).
    pub hidden: Option<String>,
    pub participants: Vec<Participant>,
    /// For a move that reads the same as another (same event, same
    /// hidden event): the components it changes, after it, which tell
    /// the two apart.
    pub after: Vec<(usize, String)>,
}

impl ShownMove {
    pub fn slots(&self) -> impl Iterator<Item = usize> + '_ {
        self.participants.iter().map(|p| p.slot)
    }
}

/// Components by number, runs of three or more as a range: `#1, #3–#5`.
pub fn components(slots: &[usize]) -> String {
    let mut sorted = slots.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut parts = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let mut j = i;
        while j + 1 < sorted.len() && sorted[j + 1] == sorted[j] + 1 {
            j += 1;
        }
        if j >= i + 2 {
            parts.push(format!("#{}–#{}", sorted[i] + 1, sorted[j] + 1));
        } else {
            parts.extend((i..=j).map(|k| format!("#{}", sorted[k] + 1)));
        }
        i = j + 1;
    }
    parts.join(", ")
}

/// A state as the panes show it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shown {
    pub at: Position,
    /// Whether this is the reduced walk's state.
    pub reduced: bool,
    pub components: Vec<String>,
    /// The components the step into this state changed.
    pub changed: Vec<usize>,
    pub moves: Vec<ShownMove>,
    /// Why the moves could not be computed.
    pub problem: Option<String>,
    /// They failed with an error (not stopped by a budget or Esc).
    pub failed: bool,
    /// The state's representative, explained (when asked for).
    pub symmetry: Option<Box<StateSymmetry>>,
    /// What a search reduced by partial order does here (when asked for).
    pub partial_order: Option<PartialOrderView>,
    /// Distinct raw states met since the process was opened.
    pub seen: usize,
}

/// What a search reduced by partial order does at the state shown: the
/// moves of its stubborn set, and why the others are left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartialOrderView {
    /// The reduction asked for.
    pub preserve: Preserve,
    /// What the reduction keeps, or why it cannot reduce the process.
    pub kept: String,
    /// Whether it reduces the process at all.
    pub applies: bool,
    /// Per move of [`Shown::moves`]: whether the reduced search follows it.
    pub followed: Vec<bool>,
    /// The stubborn set's components, when it leaves moves out.
    pub set: Vec<usize>,
    /// Why, a sentence each: how each component joined the set, or why
    /// every move is followed.
    pub why: Vec<String>,
}

impl PartialOrderView {
    /// Whether the reduced search follows move `i`.
    pub fn follows(&self, i: usize) -> bool {
        self.followed.get(i).copied().unwrap_or(true)
    }

    /// How many moves it follows.
    pub fn followed_count(&self) -> usize {
        self.followed.iter().filter(|&&f| f).count()
    }
}

/// One state's representative, explained: everything the symmetry view
/// shows, read off the symmetry layer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateSymmetry {
    /// The state's components and the representative's, as text.
    pub state: Vec<String>,
    pub representative: Vec<String>,
    /// α: component `i` of the state goes to component `alpha[i]`.
    pub alpha: Vec<usize>,
    /// Per type the permutation moves: the type and its pairs.
    pub permutation: Vec<(String, Vec<(String, String)>)>,
    /// The values the permutation moves (to mark them in both columns).
    pub moved: Vec<String>,
    /// Every step of the algorithm (components numbered from 0).
    pub trace: rep::Trace,
    /// Per step of `trace`: what it did, in words — for a round of step
    /// 2 what each n-value entry counts (per cell) and why each cell
    /// split; for step 3 whether the cell was fully symmetric.
    pub words: Vec<StepWords>,
    /// The state as the multigraph of Section 7.1, drawn (components
    /// marked with their final cell).
    pub graph: Vec<drawing::Line>,
    /// Per type: its name and its ordering, with how many of the ordering
    /// appeared in the state.
    pub orderings: Vec<(String, Vec<String>, usize)>,
    /// Whether every symmetric set still has unique identities
    /// (Definition 46) in this state.
    pub unique_identities: bool,
    /// Whether the algorithm read every distinguished value the state
    /// holds (none in a set, a map or a function).
    pub values_read: bool,
    /// Proposition 50 held: this representative is its class's only one.
    pub unique_guaranteed: bool,
    /// The representative another strategy gives, beside the algorithm's
    /// (`None` under the algorithm's own, FDR's).
    pub strategy: Option<StrategyView>,
}

/// One strategy's representative of a state, as text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StrategyView {
    /// `exact`, and what it does in a line.
    pub name: &'static str,
    pub summary: &'static str,
    pub representative: Vec<String>,
    /// The values the permutation moves, by type, on one line.
    pub moves: String,
    /// Whether the algorithm gives the same representative.
    pub same_as_algorithm: bool,
}

/// One step of the algorithm in words.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct StepWords {
    /// For a round of step 2: per cell before it, what each entry of its
    /// components' n-values counts (`me→c1.me`), grouped by variable as
    /// the n-values are.
    pub columns: Vec<(usize, Vec<Vec<String>>)>,
    /// What split and why, one sentence each.
    pub sentences: Vec<String>,
}

/// Step 3 by hand on one state, in words: the stages the choices give,
/// and what they gave beside the algorithm's own run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chosen {
    pub at: Position,
    pub reduced: bool,
    /// The member each step-3 split split off, as asked.
    pub choices: Vec<usize>,
    /// The state explained with the choices made.
    pub symmetry: StateSymmetry,
    /// A line per split: what it split off, and the algorithm's choice.
    pub splits: Vec<String>,
    /// The two representatives and the permutation between them, or
    /// that they are the same.
    pub outcome: Vec<String>,
    /// The choices gave another representative.
    pub differs: bool,
}

/// Names for the ids the interface keeps on its path, sent as they are
/// first used.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Names {
    pub events: Vec<(u32, Arc<str>)>,
    /// The permutations' texts (`NodeID: N0 ↦ N2, …`; empty for the
    /// identity).
    pub permutations: Vec<(u32, Arc<str>)>,
}

/// A process just opened: its fixed parts and its first state.
#[derive(Debug)]
pub struct Animated {
    pub process: String,
    pub outline: Vec<OutlineRow>,
    pub initial: Position,
    pub symmetry: SymmetryAbout,
    /// Whether the reduced walk exists (the process is symmetric).
    pub reducible: bool,
    /// The steps replayed or followed, and the state the walk is at.
    pub walked: Walked,
    /// For a followed counterexample: how many of its steps were taken.
    pub followed: Option<usize>,
    /// The mark asked to be found again: found, or why not.
    pub mark: Option<Result<Mark, String>>,
}

/// Steps taken, and the state reached (or, for a replay, the state at
/// the saved position).
#[derive(Debug)]
pub struct Walked {
    pub steps: Vec<(Step, Position)>,
    /// The position on the path that `shown` describes.
    pub position: usize,
    /// Why fewer steps were taken than asked (cancelled, no move left, a
    /// saved step that no longer fits).
    pub stopped: Option<String>,
    pub shown: Box<Shown>,
    pub names: Names,
}

/// A script loaded: its listing, and the animated process (or why it
/// failed to animate).
pub struct Opened {
    pub source: Source,
    pub listing: Listing,
    pub animated: Result<Box<Animated>, String>,
    /// On a reload, the earlier walk replayed on the new script (none if
    /// there was none, or its process no longer opens).
    pub earlier: Option<Box<Animated>>,
}

/// What [`Request::Compare`] found: the answer of the symmetry layer's
/// comparison, in words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compared {
    /// The marked state's and this state's components.
    pub marked: Vec<String>,
    pub here: Vec<String>,
    /// Same; not symmetric; symmetric but not unique; undecided.
    pub headline: String,
    /// Why, in sentences.
    pub sentences: Vec<String>,
    /// A permutation mapping the marked state onto this one, per type
    /// it moves (`NodeID: N0 ↦ N2, …`), when one was found.
    pub permutation: Vec<String>,
    /// With that permutation, α: the marked state's component `i` is
    /// this state's `alpha[i]` (empty when none was found).
    pub alpha: Vec<usize>,
    /// The two states' partitions side by side before the step where
    /// the evidence is or where the traces part.
    pub parting: Option<Parting>,
    /// For evidence from step 2: the cell it names, before the round,
    /// with both states' n-values (as `symcsp why` shows it).
    pub n_values: Vec<String>,
    /// The two representatives slot by slot, `*` where they differ.
    pub representatives: Vec<String>,
    /// When the algorithm's representatives differ: whether the exact
    /// canonical form puts the two states in one symmetry class.
    pub exact: Option<String>,
}

/// Two states' partitions at one step of the algorithm.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parting {
    /// Where the partitions are, in words (`before step 3's split 1`).
    pub step: String,
    pub marked: Vec<Vec<usize>>,
    pub here: Vec<Vec<usize>>,
    /// The cell where step 3's choice decided the representative, when
    /// that is the answer.
    pub split: Option<usize>,
    /// The components the evidence names, in each state (their cells
    /// are where the states differ).
    pub evidence: (Vec<usize>, Vec<usize>),
}

pub enum Reply {
    Opened(Box<Opened>),
    /// The script did not load at startup: nothing to show but why.
    OpenFailed {
        source: Source,
        problem: String,
    },
    Animated(Box<Animated>),
    Reloaded(Box<Opened>),
    Walked(Walked),
    Shown(Box<Shown>),
    Compared(Box<Compared>),
    /// Step 3 made by hand.
    Chosen(Box<Chosen>),
    /// The stages were written (to this path), or why not.
    Exported(Result<std::path::PathBuf, String>),
    /// The session was written (to this path), or why not.
    Saved(Result<std::path::PathBuf, String>),
    /// The request could not be carried out; everything stays as it was.
    Refused(String),
}

/// Progress of a long request, and its cancel flag — the one every
/// evaluation of the engine polls too (through its [`Meter`]), so Esc
/// reaches a long computation of one state's moves as well.
#[derive(Debug, Default)]
pub struct Control {
    live: Arc<Live>,
    done: AtomicU64,
    total: AtomicU64,
}

impl Control {
    pub fn cancel(&self) {
        self.live.cancel();
    }

    pub fn cancelled(&self) -> bool {
        self.live.cancelled()
    }

    /// The meter the engine's evaluation polls: this cancel flag, and
    /// the default memory budget (a safe fraction of the machine's).
    pub fn meter(&self) -> Meter {
        Budget {
            live: Some(self.live.clone()),
            ..Budget::default()
        }
        .meter()
    }

    /// The budget of a search the engine runs (following a trace): this
    /// cancel flag, the default memory budget, and one thread (the
    /// interface and a running check keep the other cores).
    pub fn search_budget(&self) -> Budget {
        Budget {
            live: Some(self.live.clone()),
            threads: 1,
            ..Budget::default()
        }
    }

    /// `(done, total)` of the running request's work.
    pub fn progress(&self) -> (u64, u64) {
        (
            self.done.load(Ordering::Relaxed),
            self.total.load(Ordering::Relaxed),
        )
    }

    fn start(&self, total: u64) {
        self.live.cancel.store(false, Ordering::Relaxed);
        self.done.store(0, Ordering::Relaxed);
        self.total.store(total, Ordering::Relaxed);
    }

    fn advance(&self, done: u64) {
        self.done.store(done, Ordering::Relaxed);
    }
}

/// The engine thread has gone (it panicked): no reply will come.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EngineStopped;

/// The interface's end: at most one request is out at a time.
pub struct Engine {
    requests: Sender<Request>,
    replies: Receiver<Reply>,
    pub control: Arc<Control>,
}

impl Engine {
    /// Starts the engine thread (with a large stack: evaluation recurses).
    pub fn start() -> Engine {
        let (requests, incoming) = channel::<Request>();
        let (outgoing, replies) = channel::<Reply>();
        let control = Arc::new(Control::default());
        let shared = control.clone();
        std::thread::Builder::new()
            .name("symcsp-animator".into())
            .stack_size(crate::stack::LARGE_STACK)
            .spawn(move || world::serve(incoming, outgoing, shared))
            .expect("the system can start a thread");
        Engine {
            requests,
            replies,
            control,
        }
    }

    pub fn send(&self, request: Request) {
        // The engine lives as long as this end: a send cannot fail
        // unless it panicked, and then the reply never comes and the
        // interface says the engine stopped.
        let _ = self.requests.send(request);
    }

    /// The reply, if it has come; `Err` when the engine is gone.
    pub fn try_reply(&self) -> Result<Option<Reply>, EngineStopped> {
        match self.replies.try_recv() {
            Ok(reply) => Ok(Some(reply)),
            Err(std::sync::mpsc::TryRecvError::Empty) => Ok(None),
            Err(std::sync::mpsc::TryRecvError::Disconnected) => Err(EngineStopped),
        }
    }

    /// Waits up to `timeout` for the reply.
    pub fn wait_reply(&self, timeout: Duration) -> Result<Option<Reply>, EngineStopped> {
        match self.replies.recv_timeout(timeout) {
            Ok(reply) => Ok(Some(reply)),
            Err(RecvTimeoutError::Timeout) => Ok(None),
            Err(RecvTimeoutError::Disconnected) => Err(EngineStopped),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::components;

    #[test]
    fn runs_of_components_read_as_ranges() {
        assert_eq!(components(&[]), "");
        assert_eq!(components(&[0]), "#1");
        assert_eq!(components(&[4, 2, 3, 0]), "#1, #3–#5");
        assert_eq!(components(&[0, 1]), "#1, #2");
        assert_eq!(components(&[6, 5, 5, 7, 9]), "#6–#8, #10");
    }
}
