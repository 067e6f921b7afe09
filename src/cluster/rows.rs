//! System states between workers. A component state crosses once, as
//! its encoding ([`Processes::encode_state`]): the first time a worker
//! sends it to another, it *defines* it under the next code of that
//! pair of workers and that table; from then on a row is one small code
//! per component. So a row costs a few bytes however large its states'
//! terms, and each component state is encoded and decoded once per pair
//! of workers, not once per row.
//!
//! A state's owner is read off its content, not its codes: each
//! component state's encoding is hashed once (its *fingerprint*), and a
//! row's owner is the fingerprints combined, the same in every process.
//!
//! One [`Batch`] carries a round's definitions and rows from one worker
//! to another; the receiver reads the definitions first, so a row may
//! use a code defined in the same batch. In a check, each row carries
//! its [`Link`] too: the specification's node, and the state and event
//! it was reached from, for the owner's parent pointers and τ-graph.
//!
//! Workers of one process that share a machine send a row as its
//! numbers instead ([`Batch::push_numbers`]); only a check's nodes
//! cross as codes, each specification being its worker's own.

use serde::{Deserialize, Serialize};

use rustc_hash::FxHashMap;

use crate::check::spec::Specification;
use crate::eval::EvalResult;
use crate::eval::value::bytes::{DecodeError, DecodeResult, Reader, Writer};
use crate::lts::machine::Machine;
use crate::process::{ProcId, Processes};

use super::stable_hash;

/// What one worker sends another in a round.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Batch {
    pub from: u32,
    /// Definitions: per component state, its table, then its encoding
    /// (with its length); its code is the next of that table.
    #[serde(with = "serde_bytes")]
    pub defines: Vec<u8>,
    /// In a check, the specification's nodes the rows use that the
    /// receiver has not been sent before: each its encoding
    /// ([`Specification::write_node`]) with its length; its code is the
    /// next.
    #[serde(with = "serde_bytes")]
    pub nodes: Vec<u8>,
    /// Rows: whether it was reached by ✓ and by τ (a byte of flags),
    /// one code per component, then its link in a check (the node's
    /// code, the parent's number plus one, the event).
    #[serde(with = "serde_bytes")]
    pub rows: Vec<u8>,
    /// Rows between workers that share one machine, as its numbers: a
    /// word of flags (reached by ✓), then one number per component.
    pub numbers: Vec<u32>,
    pub count: u64,
}

impl Batch {
    pub fn bytes(&self) -> usize {
        self.defines.len() + self.nodes.len() + self.rows.len() + 4 * self.numbers.len()
    }

    /// Appends `row` as the machine's numbers, for a worker that shares
    /// the machine: a word of flags, the components, then in a check the
    /// link — its node as the code the sender gave it
    /// ([`RowCodec::node_code`]), the parent's number plus one, the event.
    pub fn push_numbers(&mut self, row: &[u32], arrived: Arrived) {
        self.numbers.push(u32::from(flags(arrived)));
        self.numbers.extend_from_slice(row);
        if let Some(link) = arrived.link {
            self.numbers
                .extend([link.node, link.parent.map_or(0, |p| p + 1), link.event]);
        }
        self.count += 1;
    }
}

/// A component state's fingerprint: the hash of its encoding, the same
/// in every process.
pub fn fingerprint(procs: &Processes, state: ProcId) -> u64 {
    let mut bytes = Vec::new();
    procs.encode_state(state, &mut bytes);
    fingerprint_of(&bytes)
}

fn fingerprint_of(encoding: &[u8]) -> u64 {
    // A hash that happens to be the marker is moved off it.
    stable_hash(&[encoding]).max(1)
}

/// A row's key (its fingerprints combined, from 0) with one more
/// component's fingerprint.
#[inline]
pub fn key_with(key: u64, fingerprint: u64) -> u64 {
    (key.rotate_left(5) ^ fingerprint).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95)
}

/// The worker (of `peers`) that owns the row whose key is `key`.
#[inline]
pub fn owner_of(key: u64, peers: usize) -> u32 {
    ((key >> 32) % peers as u64) as u32
}

/// The byte of flags a row crosses with: how it was reached, and whether
/// a link follows it.
fn flags(arrived: Arrived) -> u8 {
    let by_tau = arrived.link.is_some_and(|l| l.tau);
    u8::from(arrived.ticked) * TICKED
        + u8::from(by_tau) * BY_TAU
        + u8::from(arrived.link.is_some()) * LINKED
}

/// How a row was reached.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Arrived {
    /// By ✓ (its state is then terminated, not deadlocked).
    pub ticked: bool,
    /// In a check: the link back to the state it was reached from.
    pub link: Option<Link>,
}

/// In a check: a row's specification node and the move that reached it,
/// from the sender's state `parent` (none for the initial state).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Link {
    pub node: u32,
    pub parent: Option<u32>,
    /// One of the events of the moves from the parent to the row.
    pub event: u32,
    /// Whether one of those moves is τ (an edge of the τ-graph).
    pub tau: bool,
}

/// The fingerprint of a component state not met yet.
const UNKNOWN: u64 = 0;

const TICKED: u8 = 1;
const BY_TAU: u8 = 2;
const LINKED: u8 = 4;

/// Per table, per local number: something about that component state.
type PerState<T> = Vec<Vec<Option<T>>>;

fn slot_of<T>(per: &mut PerState<T>, table: usize, local: u32) -> &mut Option<T> {
    if per.len() <= table {
        per.resize_with(table + 1, Vec::new);
    }
    let states = &mut per[table];
    if states.len() <= local as usize {
        states.resize_with(local as usize + 1, || None);
    }
    &mut states[local as usize]
}

/// The codes one worker gave another: per table, each component state's
/// code by local number, and how many codes each table has used.
type Codes = (PerState<u32>, Vec<u32>);

/// One worker's codes, sent and received, and its states' fingerprints.
#[derive(Debug, Default)]
pub struct RowCodec {
    /// Per table, per local number: the state's encoding.
    known: PerState<Box<[u8]>>,
    /// Per table, per local number: the hash of its encoding, or
    /// [`UNKNOWN`] (read for every component of every row sent, so kept
    /// flat).
    fingerprints: Vec<Vec<u64>>,
    /// Per peer: the codes given there.
    sent: Vec<Codes>,
    /// Per peer, per table: the local number of each code it defined.
    received: Vec<Vec<Vec<u32>>>,
    /// Per peer: the codes of the nodes given there, and the nodes (in
    /// this worker's numbering) of the codes it gave.
    nodes_sent: Vec<FxHashMap<u32, u32>>,
    nodes_received: Vec<Vec<u32>>,
}

impl RowCodec {
    pub fn new(peers: usize) -> RowCodec {
        RowCodec {
            known: Vec::new(),
            fingerprints: Vec::new(),
            sent: (0..peers).map(|_| Default::default()).collect(),
            received: vec![Vec::new(); peers],
            nodes_sent: vec![FxHashMap::default(); peers],
            nodes_received: vec![Vec::new(); peers],
        }
    }

    /// The encoding of a component state, made (with its fingerprint)
    /// if new.
    fn known(&mut self, machine: &Machine, procs: &Processes, slot: usize, local: u32) -> &[u8] {
        let table = machine.table_of(slot);
        if self.fingerprint(table, local) == UNKNOWN {
            let mut bytes = Vec::new();
            procs.encode_state(machine.process_state(slot, local), &mut bytes);
            let fingerprint = fingerprint_of(&bytes);
            let fingerprints = &mut self.fingerprints;
            if fingerprints.len() <= table {
                fingerprints.resize_with(table + 1, Vec::new);
            }
            let states = &mut fingerprints[table];
            if states.len() <= local as usize {
                states.resize(local as usize + 1, UNKNOWN);
            }
            states[local as usize] = fingerprint;
            *slot_of(&mut self.known, table, local) = Some(bytes.into_boxed_slice());
        }
        self.known[table][local as usize]
            .as_deref()
            .expect("met or just made")
    }

    /// The fingerprint of a component state, or [`UNKNOWN`].
    #[inline]
    fn fingerprint(&self, table: usize, local: u32) -> u64 {
        self.fingerprints
            .get(table)
            .and_then(|states| states.get(local as usize))
            .copied()
            .unwrap_or(UNKNOWN)
    }

    /// The worker (of `peers`) that owns `row`: from its content only.
    pub fn owner(
        &mut self,
        machine: &Machine,
        procs: &Processes,
        row: &[u32],
        peers: usize,
    ) -> u32 {
        let mut key = 0u64;
        for (slot, &local) in row.iter().enumerate() {
            let mut fingerprint = self.fingerprint(machine.table_of(slot), local);
            if fingerprint == UNKNOWN {
                self.known(machine, procs, slot, local);
                fingerprint = self.fingerprint(machine.table_of(slot), local);
            }
            key = key_with(key, fingerprint);
        }
        owner_of(key, peers)
    }

    /// The code this worker gave node `node` when it sent it to worker
    /// `to`, if it has.
    pub fn given_node(&self, to: usize, node: u32) -> Option<u32> {
        self.nodes_sent[to].get(&node).copied()
    }

    /// Gives node `node` the next code for worker `to`, defining it in
    /// `batch` by `spec` ([`Specification::write_node`]).
    pub fn node_code(
        &mut self,
        (procs, spec): (&mut Processes, &mut dyn Specification),
        node: u32,
        to: usize,
        batch: &mut Batch,
    ) -> Result<u32, String> {
        let mut bytes = Vec::new();
        spec.write_node(procs, node, &mut bytes)?;
        let w = &mut Writer {
            out: &mut batch.nodes,
        };
        w.count(bytes.len());
        w.out.extend_from_slice(&bytes);
        let codes = &mut self.nodes_sent[to];
        let code = codes.len() as u32;
        codes.insert(node, code);
        Ok(code)
    }

    /// Appends `row` to `batch`, for worker `to`, defining what `to` has
    /// not been sent yet (its link's node by `spec`).
    pub fn push(
        &mut self,
        (machine, procs, spec): (&Machine, &mut Processes, Option<&mut dyn Specification>),
        (row, arrived): (&[u32], Arrived),
        to: usize,
        batch: &mut Batch,
    ) -> Result<(), String> {
        batch.rows.push(flags(arrived));
        for (slot, &local) in row.iter().enumerate() {
            let table = machine.table_of(slot);
            let given = self.sent[to]
                .0
                .get(table)
                .and_then(|codes| codes.get(local as usize))
                .copied()
                .flatten();
            let code = match given {
                Some(code) => code,
                None => {
                    let bytes = self.known(machine, procs, slot, local);
                    let w = &mut Writer {
                        out: &mut batch.defines,
                    };
                    w.u32(table as u32);
                    w.count(bytes.len());
                    w.out.extend_from_slice(bytes);
                    let (codes, used) = &mut self.sent[to];
                    if used.len() <= table {
                        used.resize(table + 1, 0);
                    }
                    let code = used[table];
                    used[table] += 1;
                    *slot_of(codes, table, local) = Some(code);
                    code
                }
            };
            Writer {
                out: &mut batch.rows,
            }
            .u32(code);
        }
        if let Some(link) = arrived.link {
            let code = match self.given_node(to, link.node) {
                Some(code) => code,
                None => {
                    let spec = spec.ok_or("a linked row without its specification")?;
                    self.node_code((procs, spec), link.node, to, batch)?
                }
            };
            let w = &mut Writer {
                out: &mut batch.rows,
            };
            w.u32(code);
            w.u32(link.parent.map_or(0, |p| p + 1));
            w.u32(link.event);
        }
        batch.count += 1;
        Ok(())
    }

    /// Reads the definitions of `batch`: its sender's new codes, of
    /// component states and (by `spec`) of nodes. `Ok(Err)` when they
    /// are malformed.
    pub fn define(
        &mut self,
        (machine, procs, spec): (&mut Machine, &mut Processes, Option<&mut dyn Specification>),
        batch: &Batch,
    ) -> EvalResult<DecodeResult<()>> {
        let from = batch.from as usize;
        if let Err(malformed) = self.define_states(machine, procs, batch) {
            return Ok(Err(malformed));
        }
        let Some(received) = self.nodes_received.get_mut(from) else {
            return Ok(Err(DecodeError(format!("a batch from worker {from}"))));
        };
        let mut spec = spec;
        let mut at = 0;
        while at < batch.nodes.len() {
            let Some(spec) = spec.as_deref_mut() else {
                return Ok(Err(DecodeError("a node without a specification".into())));
            };
            let mut reader = Reader::new(procs.script(), &batch.nodes[at..]);
            let length = match reader.count() {
                Ok(length) => length,
                Err(e) => return Ok(Err(e)),
            };
            let start = batch.nodes.len() - reader.remaining();
            let Some(bytes) = batch.nodes.get(start..start + length) else {
                return Ok(Err(DecodeError("a node's definition is cut short".into())));
            };
            at = start + length;
            match spec.read_node(procs, bytes)? {
                Ok(node) => received.push(node),
                Err(malformed) => return Ok(Err(DecodeError(malformed))),
            }
        }
        Ok(Ok(()))
    }

    fn define_states(
        &mut self,
        machine: &mut Machine,
        procs: &mut Processes,
        batch: &Batch,
    ) -> DecodeResult<()> {
        let from = batch.from as usize;
        let Some(tables) = self.received.get_mut(from) else {
            return Err(DecodeError(format!("a batch from worker {from}")));
        };
        let mut at = 0;
        while at < batch.defines.len() {
            let mut reader = Reader::new(procs.script(), &batch.defines[at..]);
            let table = reader.u32()? as usize;
            let length = reader.count()?;
            let start = batch.defines.len() - reader.remaining();
            let state = procs.decode_state(&batch.defines[start..start + length])?;
            at = start + length;
            let Some(slot) = (0..machine.components()).find(|&s| machine.table_of(s) == table)
            else {
                return Err(DecodeError(format!("a definition for table {table}")));
            };
            if tables.len() <= table {
                tables.resize_with(table + 1, Vec::new);
            }
            tables[table].push(machine.local_of(slot, state));
        }
        Ok(())
    }

    /// Reads the rows of `batch` (after its definitions): each row in
    /// this worker's numbering, with how it was reached.
    pub fn rows<E: From<DecodeError>>(
        &self,
        machine: &Machine,
        procs: &Processes,
        batch: &Batch,
        mut each: impl FnMut(&[u32], Arrived) -> Result<(), E>,
    ) -> Result<(), E> {
        let malformed = E::from;
        let Some(tables) = self.received.get(batch.from as usize) else {
            return Err(malformed(DecodeError(format!(
                "a batch from worker {}",
                batch.from
            ))));
        };
        let mut reader = Reader::new(procs.script(), &batch.rows);
        let mut row = Vec::with_capacity(machine.components());
        while !reader.is_done() {
            let flags = reader.tag().map_err(malformed)?;
            row.clear();
            for slot in 0..machine.components() {
                let code = reader.u32().map_err(malformed)?;
                let local = tables
                    .get(machine.table_of(slot))
                    .and_then(|codes| codes.get(code as usize));
                match local {
                    Some(&local) => row.push(local),
                    None => {
                        return Err(malformed(DecodeError(format!(
                            "code {code} of component {slot} was never defined"
                        ))));
                    }
                }
            }
            let link = if flags & LINKED != 0 {
                let mut words = [0; 3];
                for word in &mut words {
                    *word = reader.u32().map_err(malformed)?;
                }
                Some(self.link(batch.from, flags, words).map_err(malformed)?)
            } else {
                None
            };
            let arrived = Arrived {
                ticked: flags & TICKED != 0,
                link,
            };
            each(&row, arrived)?;
        }
        Ok(())
    }

    /// Reads the rows of `batch` sent as numbers ([`Batch::push_numbers`],
    /// after its definitions), each of `components` components, with how
    /// it was reached: its link's node in this worker's numbering.
    pub fn numbered_rows<E: From<DecodeError>>(
        &self,
        batch: &Batch,
        components: usize,
        mut each: impl FnMut(&[u32], Arrived) -> Result<(), E>,
    ) -> Result<(), E> {
        let cut = || {
            E::from(DecodeError(
                "a row sent as numbers is cut short".to_string(),
            ))
        };
        let mut rest = &batch.numbers[..];
        while let Some((&flags, after)) = rest.split_first() {
            let flags = u8::try_from(flags)
                .map_err(|_| E::from(DecodeError(format!("a row's flags {flags}"))))?;
            let (row, after) = after.split_at_checked(components).ok_or_else(cut)?;
            rest = after;
            let link = if flags & LINKED != 0 {
                let (&words, after) = rest.split_first_chunk::<3>().ok_or_else(cut)?;
                rest = after;
                Some(self.link(batch.from, flags, words)?)
            } else {
                None
            };
            let arrived = Arrived {
                ticked: flags & TICKED != 0,
                link,
            };
            each(row, arrived)?;
        }
        Ok(())
    }

    /// A link as it crossed from worker `from` (its node's code, the
    /// parent's number plus one, the event), in this worker's numbering.
    fn link(&self, from: u32, flags: u8, [code, parent, event]: [u32; 3]) -> DecodeResult<Link> {
        let node = self
            .nodes_received
            .get(from as usize)
            .and_then(|nodes| nodes.get(code as usize))
            .copied()
            .ok_or_else(|| DecodeError(format!("node {code} was never defined")))?;
        Ok(Link {
            node,
            parent: parent.checked_sub(1),
            event,
            tau: flags & BY_TAU != 0,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::script::Script;

    const SCRIPT: &str = "
channel c : {0..3}
channel d
Cell(n) = c!n -> Cell((n + 1) % 4) [] d -> SKIP
System = Cell(0) ||| Cell(2) ||| (d -> STOP)
";

    /// Every row `machine` reaches, breadth first.
    fn rows(machine: &mut Machine, procs: &mut Processes) -> Vec<Vec<u32>> {
        let mut found = vec![machine.initial().to_vec()];
        let mut moves = crate::lts::machine::Moves::default();
        let mut next = Vec::new();
        let mut k = 0;
        while k < found.len() {
            let row = found[k].clone();
            machine.moves(procs, &row, &mut moves).expect("moves");
            for m in moves.list.clone() {
                moves.apply(&m, &row, &mut next);
                if !found.contains(&next) {
                    found.push(next.clone());
                }
            }
            k += 1;
        }
        found
    }

    #[test]
    fn rows_sent_as_codes_are_the_same_states_to_the_receiver() {
        let mut script = Script::load_str("rows.csp", SCRIPT).expect("loads");
        let func = script.add_expr("<process>", "System").expect("resolves");
        crate::stack::with_large_stack(|| {
            let (mut here, root) = Processes::with_root(&script, func).expect("a process");
            let mut sender = Machine::new(&mut here, root).expect("a machine");
            let (mut there, root) = Processes::with_root(&script, func).expect("a process");
            let mut receiver = Machine::new(&mut there, root).expect("a machine");
            let sent = rows(&mut sender, &mut here);
            assert!(sent.len() > 20, "{} rows", sent.len());
            let mut codec = RowCodec::new(2);
            let mut sent_arrivals = Vec::new();
            // Nodes of a fixed specification cross as their numbers.
            let mut spec = crate::check::spec::DeadlockFree;
            // Two batches: the second uses codes the first defined.
            let (first, second) = sent.split_at(sent.len() / 2);
            let batches: Vec<Batch> = [first, second]
                .iter()
                .map(|part| {
                    let mut batch = Batch {
                        from: 0,
                        ..Batch::default()
                    };
                    for (k, row) in part.iter().rev().enumerate() {
                        let arrived = Arrived {
                            ticked: k % 3 == 0,
                            link: (k % 2 == 0).then_some(Link {
                                node: (k % 4 == 0) as u32,
                                parent: (k > 0).then_some(k as u32 * 7),
                                event: 3,
                                tau: k % 4 == 0,
                            }),
                        };
                        codec
                            .push(
                                (&sender, &mut here, Some(&mut spec)),
                                (row, arrived),
                                1,
                                &mut batch,
                            )
                            .expect("encodable");
                        sent_arrivals.push(arrived);
                    }
                    batch
                })
                .collect();
            assert!(batches[1].defines.len() < batches[0].defines.len());
            let mut reader = RowCodec::new(2);
            let mut received = Vec::new();
            let mut arrivals = Vec::new();
            for batch in &batches {
                reader
                    .define((&mut receiver, &mut there, Some(&mut spec)), batch)
                    .expect("evaluates")
                    .expect("defined");
                reader
                    .rows(&receiver, &there, batch, |row, arrived| {
                        received.push(row.to_vec());
                        arrivals.push(arrived);
                        Ok::<(), DecodeError>(())
                    })
                    .expect("read");
            }
            let shown = |machine: &Machine, procs: &Processes, row: &[u32]| {
                (0..row.len())
                    .map(|slot| procs.show_state(machine.process_state(slot, row[slot])))
                    .collect::<Vec<_>>()
            };
            let expected: Vec<_> = first
                .iter()
                .rev()
                .chain(second.iter().rev())
                .map(|row| shown(&sender, &here, row))
                .collect();
            let got: Vec<_> = received
                .iter()
                .map(|row| shown(&receiver, &there, row))
                .collect();
            assert_eq!(got, expected);
            // How each was reached (✓, τ, the link) crosses as sent.
            assert_eq!(arrivals, sent_arrivals);
            // Owners are read off content: the receiver agrees.
            for (row, back) in first.iter().rev().zip(&received) {
                assert_eq!(
                    codec.owner(&sender, &here, row, 7),
                    reader.owner(&receiver, &there, back, 7)
                );
            }
            // A row whose code was never defined, or cut short, is an error.
            let mut undefined = Batch {
                from: 1,
                rows: vec![0, 5, 5, 5],
                count: 1,
                ..Batch::default()
            };
            let never = |_: &[u32], _: Arrived| Ok::<(), DecodeError>(());
            assert!(reader.rows(&receiver, &there, &undefined, never).is_err());
            undefined.rows.truncate(2);
            assert!(reader.rows(&receiver, &there, &undefined, never).is_err());
            let stranger = Batch {
                from: 9,
                ..Batch::default()
            };
            let defined = reader.define((&mut receiver, &mut there, None), &stranger);
            assert!(defined.expect("evaluates").is_err());
        });
    }

    #[test]
    fn rows_sent_as_numbers_arrive_as_they_left_and_a_cut_batch_is_refused() {
        let mut script = Script::load_str("rows.csp", SCRIPT).expect("loads");
        let func = script.add_expr("<process>", "System").expect("resolves");
        crate::stack::with_large_stack(|| {
            let (mut procs, root) = Processes::with_root(&script, func).expect("a process");
            let mut machine = Machine::new(&mut procs, root).expect("a machine");
            let mut spec = crate::check::spec::DeadlockFree;
            let (mut sender, mut receiver) = (RowCodec::new(2), RowCodec::new(2));
            let mut batch = Batch {
                from: 0,
                ..Batch::default()
            };
            let linked = |node, parent, tau| {
                Some(Link {
                    node,
                    parent,
                    event: 5,
                    tau,
                })
            };
            let sent = [
                (
                    vec![3, 0, 7],
                    Arrived {
                        ticked: true,
                        link: None,
                    },
                ),
                (
                    vec![1, 1, 2],
                    Arrived {
                        ticked: false,
                        link: linked(1, Some(7), true),
                    },
                ),
                (
                    vec![0, 4, 2],
                    Arrived {
                        ticked: true,
                        link: linked(1, None, false),
                    },
                ),
                (
                    vec![2, 2, 2],
                    Arrived {
                        ticked: false,
                        link: linked(0, Some(0), false),
                    },
                ),
            ];
            for (row, arrived) in &sent {
                let mut arrived = *arrived;
                if let Some(link) = &mut arrived.link {
                    // A node is defined the first time it crosses.
                    link.node = match sender.given_node(1, link.node) {
                        Some(code) => code,
                        None => sender
                            .node_code((&mut procs, &mut spec), link.node, 1, &mut batch)
                            .expect("written"),
                    };
                }
                batch.push_numbers(row, arrived);
            }
            assert_eq!(batch.count, 4);
            // Flags, three components, and three words of link for three.
            assert_eq!(batch.numbers.len(), 4 * 4 + 3 * 3);
            receiver
                .define((&mut machine, &mut procs, Some(&mut spec)), &batch)
                .expect("evaluates")
                .expect("defined");
            let mut read = Vec::new();
            receiver
                .numbered_rows(&batch, 3, |row, arrived| {
                    read.push((row.to_vec(), arrived));
                    Ok::<(), DecodeError>(())
                })
                .expect("rows of three");
            assert_eq!(read, sent);
            let never = |_: &[u32], _: Arrived| Ok::<(), DecodeError>(());
            // Rows of another width, a row cut short, a node never defined.
            assert!(receiver.numbered_rows(&batch, 4, never).is_err());
            let mut cut = batch.clone();
            cut.numbers.pop();
            assert!(receiver.numbered_rows(&cut, 3, never).is_err());
            let mut undefined = batch.clone();
            undefined.numbers[4 + 4] = 9;
            assert!(receiver.numbered_rows(&undefined, 3, never).is_err());
        });
    }
}
