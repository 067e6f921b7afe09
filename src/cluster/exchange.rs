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
    Tally { to: u32, tally: Tally },
}

impl Message {
    fn to(&self) -> u32 {
        match self {
            Message::Batch { to, .. } | Message::Tally { to, .. } => *to,
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

/// How long a worker parks between looks at the lost connections.
const PARK: Duration = Duration::from_millis(20);

/// Serves rounds for the local worker `local` until its search thread
/// hangs up: the body of a timely worker.
pub fn serve(
    worker: &mut timely::worker::Worker,
    local: usize,
    endpoints: &Endpoints,
    losses: &Arc<Losses>,
    deadline: Option<Instant>,
) {
    let taken = endpoints.lock().unwrap_or_else(|e| e.into_inner())[local].take();
    let Some((requests, replies)) = taken else {
        return;
    };
    let inbox: Rc<RefCell<BTreeMap<u64, Vec<Message>>>> = Rc::default();
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
    let mut round = 0u64;
    while let Ok(out) = requests.recv() {
        for message in out {
            input.send(message);
        }
        round += 1;
        input.advance_to(round);
        let mut lost_at: Option<Instant> = None;
        while probe.less_than(&round) {
            worker.step_or_park(Some(PARK));
            // Past the time-out every live worker stops within a round;
            // one that has not answered long after has stopped answering
            // (a process stopped, or cut off without a reset).
            if deadline.is_some_and(|d| Instant::now() > d + STALLED) {
                let _ = replies.send(Err(ClusterError::Stalled {
                    seconds: STALLED.as_secs(),
                }));
                worker.drop_dataflow(dataflow);
                return;
            }
            if let Some((process, what)) = losses.first() {
                let since = *lost_at.get_or_insert_with(Instant::now);
                if since.elapsed() > GRACE {
                    let _ = replies.send(Err(ClusterError::Lost { process, what }));
                    // Nothing more will arrive: leave without waiting
                    // for the dataflow to drain.
                    worker.drop_dataflow(dataflow);
                    return;
                }
            }
        }
        let received = inbox.borrow_mut().remove(&(round - 1)).unwrap_or_default();
        if replies.send(Ok(received)).is_err() {
            break;
        }
    }
}
