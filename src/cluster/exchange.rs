//! The exchange between workers, on timely dataflow: one dataflow per
//! worker, an input that each round carries what the worker sends, an
//! exchange that delivers each message to the worker it names, and a
//! probe whose frontier passing the round says every worker's messages
//! of that round have arrived — the end of a breadth-first level.
//!
//! A timely worker thread only carries messages. The search of a
//! partition runs on a thread of its own ([`super::run`] gives it a large
//! stack, as evaluation needs, which timely's threads do not have) and
//! talks to its timely worker through [`Rounds`]: it hands over a
//! round's messages and gets back the messages addressed to it.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::mpsc::{Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use timely::container::CapacityContainerBuilder;
use timely::dataflow::channels::pact::Exchange as Route;
use timely::dataflow::operators::generic::operator::Operator;
use timely::dataflow::operators::{Input, Probe};
use timely::dataflow::{InputHandle, ProbeHandle};

use super::network::Losses;
use super::rows::Batch;
use super::{ClusterError, Tally};

/// What workers send each other.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Message {
    /// A round's states for the worker that owns them, with the
    /// component states they need defined.
    Batch { to: u32, batch: Batch },
    /// A worker's report on its last round, to every worker.
    Tally { to: u32, tally: Box<Tally> },
    /// Worker `from` is alive: sent every [`HEARTBEAT`] by its timely
    /// thread, however long its search works on a round.
    Alive { to: u32, from: u32 },
    /// In a check's search for divergences: states of the receiver one
    /// of whose τ-successors was found not to diverge.
    Removed { to: u32, ids: Vec<u32> },
    /// After a budget stopped a check's search: states of the receiver
    /// each of whose τ-edges the sender recorded (one id an edge).
    Edges { to: u32, ids: Vec<u32> },
}

impl Message {
    fn to(&self) -> u32 {
        match self {
            Message::Batch { to, .. }
            | Message::Tally { to, .. }
            | Message::Alive { to, .. }
            | Message::Removed { to, .. }
            | Message::Edges { to, .. } => *to,
        }
    }
}

/// A search thread's side of its timely worker.
pub struct Rounds {
    pub(super) requests: Sender<Vec<Message>>,
    pub(super) replies: Receiver<Result<Vec<Message>, ClusterError>>,
    pub(super) losses: Arc<Losses>,
}

impl Rounds {
    /// Sends `out` and waits for the end of the round: the messages
    /// every worker addressed to this one in it.
    pub fn round(&self, out: Vec<Message>) -> Result<Vec<Message>, ClusterError> {
        if self.requests.send(out).is_err() {
            return Err(self.stopped());
        }
        match self.replies.recv() {
            Ok(reply) => reply,
            Err(_) => Err(self.stopped()),
        }
    }

    /// Why the timely worker stopped serving: a connection it lost (its
    /// network thread panics first, and the worker on reading from it).
    fn stopped(&self) -> ClusterError {
        let started = Instant::now();
        while started.elapsed() < GRACE {
            if let Some((process, what)) = self.losses.first() {
                return ClusterError::Lost { process, what };
            }
            std::thread::sleep(PARK);
        }
        ClusterError::Io("the exchange stopped during a round".to_string())
    }
}

/// The timely worker's side: the other ends of each local worker's
/// [`Rounds`], taken by the worker of that index.
pub type Endpoints = Arc<
    Mutex<
        Vec<
            Option<(
                Receiver<Vec<Message>>,
                Sender<Result<Vec<Message>, ClusterError>>,
            )>,
        >,
    >,
>;

/// How long workers go on stepping after a connection was lost, in case
/// the peer had finished cleanly and its last messages are still to be
/// read.
const GRACE: Duration = Duration::from_secs(2);

/// How long after the time-out a round may still take before the
/// processes that have not answered are taken to have stopped.
const STALLED: Duration = Duration::from_secs(10);

/// How often a worker says it is alive.
const HEARTBEAT: Duration = Duration::from_secs(1);

/// How long a worker waiting for a round may go without hearing from
/// another before it takes that one's process to have stopped answering.
const SILENT: Duration = Duration::from_secs(15);

/// How long a worker parks between looks at the lost connections.
const PARK: Duration = Duration::from_millis(20);

/// Serves rounds for the local worker `local` until its search thread
/// hangs up: the body of a timely worker.
pub fn serve(
    worker: &mut timely::worker::Worker,
    local: usize,
    endpoints: &Endpoints,
    losses: &Arc<Losses>,
    (deadline, workers): (Option<Instant>, usize),
) {
    let taken = endpoints.lock().unwrap_or_else(|e| e.into_inner())[local].take();
    let Some((requests, replies)) = taken else {
        return;
    };
    let inbox: Rc<RefCell<BTreeMap<u64, Vec<Message>>>> = Rc::default();
    let peers = worker.peers();
    let me = worker.index() as u32;
    // When each worker was last heard from.
    let heard: Rc<RefCell<Vec<Instant>>> = Rc::new(RefCell::new(vec![Instant::now(); peers]));
    let mut input: InputHandle<u64, CapacityContainerBuilder<Vec<Message>>> = InputHandle::new();
    let probe = ProbeHandle::new();
    let delivered = inbox.clone();
    let dataflow = worker.next_dataflow_index();
    worker.dataflow::<u64, _, _>(|scope| {
        scope
            .input_from(&mut input)
            .unary::<CapacityContainerBuilder<Vec<()>>, _, _, _>(
                Route::new(|m: &Message| u64::from(m.to())),
                "Deliver",
                move |_, _| {
                    move |input, _output| {
                        input.for_each(|stamp, data| {
                            delivered
                                .borrow_mut()
                                .entry(stamp.least().copied().unwrap_or_default())
                                .or_default()
                                .append(data);
                        });
                    }
                },
            )
            .probe_with(&probe);
    });
    // Heartbeats go on a dataflow of their own: each is its own epoch,
    // so it leaves at once, and no round waits for them.
    let mut beats: InputHandle<u64, CapacityContainerBuilder<Vec<Message>>> = InputHandle::new();
    let hearing = heard.clone();
    let heartbeats = worker.next_dataflow_index();
    worker.dataflow::<u64, _, _>(|scope| {
        scope.input_from(&mut beats).sink(
            Route::new(|m: &Message| u64::from(m.to())),
            "Hear",
            move |(input, _frontier)| {
                input.for_each(|_, data| {
                    let mut heard = hearing.borrow_mut();
                    for message in data.drain(..) {
                        if let Message::Alive { from, .. } = message
                            && let Some(at) = heard.get_mut(from as usize)
                        {
                            *at = Instant::now();
                        }
                    }
                });
            },
        );
    });
    let mut said_alive = Instant::now();
    let mut alive = |beats: &mut InputHandle<u64, CapacityContainerBuilder<Vec<Message>>>| {
        if said_alive.elapsed() >= HEARTBEAT {
            for to in 0..peers as u32 {
                beats.send(Message::Alive { to, from: me });
            }
            let next = *beats.time() + 1;
            beats.advance_to(next);
            said_alive = Instant::now();
        }
    };
    let leave = |worker: &mut timely::worker::Worker| {
        worker.drop_dataflow(dataflow);
        worker.drop_dataflow(heartbeats);
    };
    let mut round = 0u64;
    loop {
        let out = match requests.recv_timeout(HEARTBEAT / 4) {
            Ok(out) => out,
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                // The search is working: say so, and keep messages moving.
                alive(&mut beats);
                worker.step_or_park(Some(Duration::ZERO));
                continue;
            }
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
        };
        for message in out {
            input.send(message);
        }
        round += 1;
        input.advance_to(round);
        let mut lost_at: Option<Instant> = None;
        let waiting = Instant::now();
        while probe.less_than(&round) {
            worker.step_or_park(Some(PARK));
            alive(&mut beats);
            let watch = Watch {
                heard: &heard.borrow(),
                waiting,
                deadline,
                workers,
            };
            if let Some(error) = watch.stuck(losses, &mut lost_at) {
                let _ = replies.send(Err(error));
                // Nothing more will arrive: leave without waiting for the
                // dataflows to drain.
                leave(worker);
                return;
            }
        }
        let received = inbox.borrow_mut().remove(&(round - 1)).unwrap_or_default();
        if replies.send(Ok(received)).is_err() {
            break;
        }
    }
}

/// What a worker waiting for a round looks at to tell a round that is
/// slow from one that will never end.
struct Watch<'h> {
    /// When each worker was last heard from.
    heard: &'h [Instant],
    /// When this round's wait began.
    waiting: Instant,
    deadline: Option<Instant>,
    /// Workers per process, to name a worker's process.
    workers: usize,
}

impl Watch<'_> {
    /// Why the round will never end, if it will not: a process not heard
    /// from for long (while this worker has waited that long too), a
    /// round still running long past the time-out (every live worker
    /// stops within a round of it), or a connection lost (after a grace,
    /// in case the peer had finished cleanly and its last messages are
    /// still to be read; `lost_at` keeps when it was first seen).
    fn stuck(&self, losses: &Losses, lost_at: &mut Option<Instant>) -> Option<ClusterError> {
        if self.waiting.elapsed() > SILENT
            && let Some(silent) = self.heard.iter().position(|at| at.elapsed() > SILENT)
        {
            return Some(ClusterError::Stalled {
                process: Some(silent / self.workers.max(1)),
                seconds: SILENT.as_secs(),
            });
        }
        if self.deadline.is_some_and(|d| Instant::now() > d + STALLED) {
            return Some(ClusterError::Stalled {
                process: None,
                seconds: STALLED.as_secs(),
            });
        }
        let (process, what) = losses.first()?;
        let since = *lost_at.get_or_insert_with(Instant::now);
        (since.elapsed() > GRACE).then_some(ClusterError::Lost { process, what })
    }
}
