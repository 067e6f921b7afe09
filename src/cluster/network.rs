//! The connections between a cluster's processes, made here and handed
//! to timely: timely's own connecting retries for ever and prints to
//! standard output, where a cluster must fail within a bounded time with
//! an error naming the process, and must refuse a peer that loaded
//! another script.
//!
//! As in timely, process `i` listens on the `i`th address of the host
//! file, connects to every process before it and accepts every process
//! after it. On each connection the two sides first exchange a
//! [`Hello`]: what each is (its index, the cluster's shape) and what it
//! loaded (symcsp's version, a hash of the script's text, a hash of the
//! options). Any difference is an error on both sides, naming what
//! differs.
//!
//! Each socket is then wrapped in a [`Watched`] stream, which records a
//! connection that closes or fails while the search runs: timely's
//! network threads panic on it (quietly: [`quiet_network_panics`]), and
//! the workers, stepping with a time-out, see the record and stop with
//! an error naming the process.

use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Once};
use std::time::{Duration, Instant};

use super::{ClusterError, Topology};

/// What a process tells each peer about itself before the search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hello {
    pub version: String,
    pub process: u64,
    pub processes: u64,
    pub workers: u64,
    /// A hash of every file of the script, in order.
    pub script: u64,
    /// A hash of the job's options (the process, symmetry, budgets...).
    pub options: u64,
}

/// The start of every hello: not a timely peer, not another program.
const MAGIC: &[u8; 8] = b"symcsp\x01\x00";

impl Hello {
    fn write(&self, out: &mut impl Write) -> io::Result<()> {
        let mut bytes = MAGIC.to_vec();
        let version = self.version.as_bytes();
        bytes.extend((version.len() as u64).to_be_bytes());
        bytes.extend(version);
        for n in [
            self.process,
            self.processes,
            self.workers,
            self.script,
            self.options,
        ] {
            bytes.extend(n.to_be_bytes());
        }
        out.write_all(&bytes)?;
        out.flush()
    }

    fn read(input: &mut impl Read) -> io::Result<Hello> {
        let mut magic = [0u8; 8];
        input.read_exact(&mut magic)?;
        if &magic != MAGIC {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "the peer is not a symcsp process of this protocol",
            ));
        }
        let mut word = || -> io::Result<u64> {
            let mut bytes = [0u8; 8];
            input.read_exact(&mut bytes)?;
            Ok(u64::from_be_bytes(bytes))
        };
        let length = word()?;
        if length > 256 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "the peer's version is garbled",
            ));
        }
        let mut version = vec![0u8; length as usize];
        input.read_exact(&mut version)?;
        let mut word = || -> io::Result<u64> {
            let mut bytes = [0u8; 8];
            input.read_exact(&mut bytes)?;
            Ok(u64::from_be_bytes(bytes))
        };
        Ok(Hello {
            version: String::from_utf8_lossy(&version).into_owned(),
            process: word()?,
            processes: word()?,
            workers: word()?,
            script: word()?,
            options: word()?,
        })
    }

    /// Why a peer that said `theirs` (expected to be process `index`)
    /// cannot join a cluster with this process, if it cannot.
    fn mismatch(&self, theirs: &Hello, index: usize) -> Option<String> {
        if theirs.version != self.version {
            return Some(format!(
                "it runs symcsp {}, this process runs {}",
                theirs.version, self.version
            ));
        }
        if theirs.process != index as u64 {
            return Some(format!(
                "it says it is process {} (two processes given the same --process?)",
                theirs.process
            ));
        }
        if (theirs.processes, theirs.workers) != (self.processes, self.workers) {
            return Some(format!(
                "it was started with --processes {} --workers {}, this process with \
                 --processes {} --workers {}",
                theirs.processes, theirs.workers, self.processes, self.workers
            ));
        }
        if theirs.script != self.script {
            return Some(
                "it loaded a different script (each process must load the same files)".to_string(),
            );
        }
        if theirs.options != self.options {
            return Some(
                "it was given different options, or planned the search otherwise (the \
                 process, --symmetry, --strategy and the budgets must be the same on every \
                 process, and so what the search is reduced by)"
                    .to_string(),
            );
        }
        None
    }
}

/// A connection lost while the search runs: the first one recorded.
#[derive(Debug, Default)]
pub struct Losses {
    /// Set when the search has ended: a peer closing then is its end too.
    finished: AtomicBool,
    first: Mutex<Option<(usize, String)>>,
}

impl Losses {
    fn record(&self, process: usize, what: String) {
        if self.finished.load(Ordering::Relaxed) {
            return;
        }
        let mut first = self.first.lock().unwrap_or_else(|e| e.into_inner());
        first.get_or_insert((process, what));
    }

    /// The first connection lost: the process and what happened.
    pub fn first(&self) -> Option<(usize, String)> {
        self.first.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    pub fn finish(&self) {
        self.finished.store(true, Ordering::Relaxed);
    }
}

/// A socket to process `peer` that records its failure in `losses`.
pub struct Watched {
    stream: TcpStream,
    peer: usize,
    losses: Arc<Losses>,
}

impl Read for Watched {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let read = self.stream.read(buf);
        match &read {
            Ok(0) if !buf.is_empty() => self
                .losses
                .record(self.peer, "its connection closed".to_string()),
            Err(e) => self
                .losses
                .record(self.peer, format!("reading failed: {e}")),
            _ => {}
        }
        read
    }
}

impl Write for Watched {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let written = self.stream.write(buf);
        if let Err(e) = &written {
            self.losses
                .record(self.peer, format!("writing to it failed: {e}"));
        }
        written
    }

    fn flush(&mut self) -> io::Result<()> {
        self.stream.flush()
    }
}

impl timely::communication::allocator::zero_copy::stream::Stream for Watched {
    fn try_clone(&self) -> io::Result<Self> {
        Ok(Watched {
            stream: self.stream.try_clone()?,
            peer: self.peer,
            losses: self.losses.clone(),
        })
    }

    fn set_nonblocking(&self, nonblocking: bool) -> io::Result<()> {
        self.stream.set_nonblocking(nonblocking)
    }

    fn shutdown(&self, how: Shutdown) -> io::Result<()> {
        self.stream.shutdown(how)
    }
}

/// Connects this process to every other one of `topology` within
/// `wait`, checking each peer's hello against `hello`: the sockets in
/// process order (none for this process), or an error naming the
/// process at fault.
pub fn connect(
    topology: &Topology,
    hello: &Hello,
    wait: Duration,
    losses: &Arc<Losses>,
) -> Result<Vec<Option<Watched>>, ClusterError> {
    let deadline = Instant::now() + wait;
    let me = topology.process;
    let address = &topology.hosts[me];
    let listener = TcpListener::bind(address.as_str()).map_err(|e| ClusterError::Listen {
        process: me,
        address: address.clone(),
        cause: e.to_string(),
    })?;
    listener
        .set_nonblocking(true)
        .map_err(|e| ClusterError::Io(e.to_string()))?;
    let mut sockets: Vec<Option<TcpStream>> = (0..topology.processes()).map(|_| None).collect();
    for (peer, socket) in sockets.iter_mut().enumerate().take(me) {
        let mut stream = connect_to(topology, peer, deadline)?;
        let theirs = greet(&mut stream, hello, true, deadline)
            .map_err(|cause| ClusterError::peer(topology, peer, cause))?;
        if let Some(why) = hello.mismatch(&theirs, peer) {
            return Err(ClusterError::Refused {
                process: peer,
                address: topology.hosts[peer].clone(),
                why,
            });
        }
        *socket = Some(stream);
    }
    while let Some(waiting) = (me + 1..topology.processes()).find(|&p| sockets[p].is_none()) {
        match listener.accept() {
            Ok((mut stream, _)) => {
                stream
                    .set_nonblocking(false)
                    .map_err(|e| ClusterError::Io(e.to_string()))?;
                // A stray connection that says nothing is dropped, soon:
                // the real peers are still to come.
                let soon = deadline.min(Instant::now() + Duration::from_secs(2));
                let Ok(theirs) = greet(&mut stream, hello, false, soon) else {
                    continue;
                };
                let peer = theirs.process as usize;
                if peer <= me || peer >= topology.processes() || sockets[peer].is_some() {
                    continue;
                }
                if let Some(why) = hello.mismatch(&theirs, peer) {
                    return Err(ClusterError::Refused {
                        process: peer,
                        address: topology.hosts[peer].clone(),
                        why,
                    });
                }
                sockets[peer] = Some(stream);
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                if Instant::now() >= deadline {
                    return Err(ClusterError::NoContact {
                        process: waiting,
                        address: topology.hosts[waiting].clone(),
                        seconds: wait.as_secs_f64(),
                        cause: "it did not connect to this process".to_string(),
                    });
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(e) => return Err(ClusterError::Io(e.to_string())),
        }
    }
    Ok(sockets
        .into_iter()
        .enumerate()
        .map(|(peer, socket)| {
            socket.map(|stream| {
                let _ = stream.set_nodelay(true);
                let _ = stream.set_read_timeout(None);
                let _ = stream.set_write_timeout(None);
                Watched {
                    stream,
                    peer,
                    losses: losses.clone(),
                }
            })
        })
        .collect())
}

/// Connects to process `peer`, trying again until `deadline`.
fn connect_to(
    topology: &Topology,
    peer: usize,
    deadline: Instant,
) -> Result<TcpStream, ClusterError> {
    let address = &topology.hosts[peer];
    let started = Instant::now();
    let targets: Vec<SocketAddr> = address
        .to_socket_addrs()
        .map_err(|e| ClusterError::NoContact {
            process: peer,
            address: address.clone(),
            seconds: 0.0,
            cause: format!("its address does not resolve: {e}"),
        })?
        .collect();
    let mut last = String::from("no address to try");
    loop {
        for target in &targets {
            let left = deadline.saturating_duration_since(Instant::now());
            let attempt = left
                .min(Duration::from_secs(2))
                .max(Duration::from_millis(10));
            match TcpStream::connect_timeout(target, attempt) {
                Ok(stream) => return Ok(stream),
                Err(e) => last = e.to_string(),
            }
        }
        if Instant::now() >= deadline {
            return Err(ClusterError::NoContact {
                process: peer,
                address: address.clone(),
                seconds: started.elapsed().as_secs_f64(),
                cause: last,
            });
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Exchanges hellos on `stream` (the connecting side speaks first).
fn greet(
    stream: &mut TcpStream,
    hello: &Hello,
    first: bool,
    deadline: Instant,
) -> io::Result<Hello> {
    let left = deadline
        .saturating_duration_since(Instant::now())
        .max(Duration::from_millis(100));
    stream.set_read_timeout(Some(left))?;
    stream.set_write_timeout(Some(left))?;
    if first {
        hello.write(stream)?;
        Hello::read(stream)
    } else {
        let theirs = Hello::read(stream)?;
        hello.write(stream)?;
        Ok(theirs)
    }
}

/// The thread that joins timely's workers and network threads after a
/// worker's error ([`super::drain`]).
pub const DRAIN_THREAD: &str = "symcsp:drain";

/// The losses of the cluster running in this process, for the panic
/// hook (one cluster runs at a time in a process).
static RUNNING: Mutex<Option<Arc<Losses>>> = Mutex::new(None);

/// Makes timely's network threads panic quietly: their panic (a peer
/// gone) is recorded as a loss, and the workers report it as an error
/// naming the process, instead of a backtrace on standard error.
pub fn quiet_network_panics(losses: &Arc<Losses>) {
    *RUNNING.lock().unwrap_or_else(|e| e.into_inner()) = Some(losses.clone());
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let thread = std::thread::current();
            let name = thread.name().unwrap_or("");
            if let Some(peer) = name
                .strip_prefix("timely:recv-")
                .or_else(|| name.strip_prefix("timely:send-"))
                .and_then(|n| n.parse::<usize>().ok())
            {
                if let Some(losses) = &*RUNNING.lock().unwrap_or_else(|e| e.into_inner()) {
                    let message = info
                        .payload()
                        .downcast_ref::<String>()
                        .cloned()
                        .or_else(|| info.payload().downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_default();
                    losses.record(peer, message);
                }
                return;
            }
            // Timely's own threads, and the joining of them after a
            // worker's error (its guard re-panics where a peer left
            // first): the check's answer is decided, and says why.
            if name.starts_with("timely:") || name == DRAIN_THREAD {
                return;
            }
            previous(info);
        }));
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hello() -> Hello {
        Hello {
            version: "0.1.0".to_string(),
            process: 0,
            processes: 3,
            workers: 2,
            script: 11,
            options: 22,
        }
    }

    #[test]
    fn a_hello_reads_back_as_written() {
        let mut bytes = Vec::new();
        hello().write(&mut bytes).expect("written");
        assert_eq!(Hello::read(&mut &bytes[..]).expect("read"), hello());
        let mut garbled = bytes.clone();
        garbled[0] ^= 1;
        assert!(Hello::read(&mut &garbled[..]).is_err(), "not a symcsp peer");
        assert!(
            Hello::read(&mut &bytes[..bytes.len() - 1]).is_err(),
            "cut short"
        );
    }

    #[test]
    fn a_peer_that_differs_is_refused_saying_how() {
        let mine = hello();
        let peer = |change: fn(&mut Hello)| {
            let mut theirs = Hello {
                process: 1,
                ..hello()
            };
            change(&mut theirs);
            mine.mismatch(&theirs, 1)
        };
        assert_eq!(peer(|_| {}), None);
        let refused = |change, words: &str| {
            let why = peer(change).expect("refused");
            assert!(why.contains(words), "{why}");
        };
        refused(|h| h.version = "0.2.0".to_string(), "runs symcsp 0.2.0");
        refused(|h| h.process = 2, "says it is process 2");
        refused(|h| h.workers = 4, "--workers 4");
        refused(|h| h.script = 12, "a different script");
        refused(|h| h.options = 23, "different options");
    }
}
