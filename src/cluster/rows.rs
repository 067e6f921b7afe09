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
//! use a code defined in the same batch.

use serde::{Deserialize, Serialize};

use crate::eval::value::bytes::{DecodeError, DecodeResult, Reader, Writer};
use crate::lts::machine::Machine;
use crate::process::Processes;

use super::stable_hash;

/// What one worker sends another in a round.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Batch {
    pub from: u32,
    /// Definitions: per component state, its table, then its encoding
    /// (with its length); its code is the next of that table.
    pub defines: Vec<u8>,
    /// Rows: whether it was reached by ✓ (a byte), then one code per
    /// component.
    pub rows: Vec<u8>,
    pub count: u64,
}

impl Batch {
    pub fn bytes(&self) -> usize {
        self.defines.len() + self.rows.len()
    }
}

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
    /// Per table, per local number: the state's encoding and its hash.
    known: PerState<(Box<[u8]>, u64)>,
    /// Per peer: the codes given there.
    sent: Vec<Codes>,
    /// Per peer, per table: the local number of each code it defined.
    received: Vec<Vec<Vec<u32>>>,
}

impl RowCodec {
    pub fn new(peers: usize) -> RowCodec {
        RowCodec {
            known: Vec::new(),
            sent: (0..peers).map(|_| Default::default()).collect(),
            received: vec![Vec::new(); peers],
        }
    }

    /// The encoding and fingerprint of a component state, or why it has
    /// none.
    fn known(
        &mut self,
        machine: &Machine,
        procs: &Processes,
        slot: usize,
        local: u32,
    ) -> Result<&(Box<[u8]>, u64), String> {
        let table = machine.table_of(slot);
        // Met before, almost always: then read without growing the table.
        let met = matches!(
            self.known
                .get(table)
                .and_then(|states| states.get(local as usize)),
            Some(Some(_))
        );
        if !met {
            let mut bytes = Vec::new();
            procs.encode_state(machine.process_state(slot, local), &mut bytes)?;
            let fingerprint = stable_hash(&[&bytes]);
            *slot_of(&mut self.known, table, local) = Some((bytes.into_boxed_slice(), fingerprint));
        }
        Ok(self.known[table][local as usize]
            .as_ref()
            .expect("met or just made"))
    }

    /// The worker (of `peers`) that owns `row`: from its content only.
    pub fn owner(
        &mut self,
        machine: &Machine,
        procs: &Processes,
        row: &[u32],
        peers: usize,
    ) -> Result<u32, String> {
        let mut hash = 0u64;
        for (slot, &local) in row.iter().enumerate() {
            let fingerprint = self.known(machine, procs, slot, local)?.1;
            hash = (hash.rotate_left(5) ^ fingerprint).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
        Ok(((hash >> 32) % peers as u64) as u32)
    }

    /// Appends `row` to `batch`, for worker `to`, defining what `to` has
    /// not been sent yet.
    pub fn push(
        &mut self,
        machine: &Machine,
        procs: &Processes,
        (row, ticked): (&[u32], bool),
        to: usize,
        batch: &mut Batch,
    ) -> Result<(), String> {
        batch.rows.push(u8::from(ticked));
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
                    let (bytes, _) = self.known(machine, procs, slot, local)?;
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
        batch.count += 1;
        Ok(())
    }

    /// Reads the definitions of `batch`: its sender's new codes.
    pub fn define(
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
    /// this worker's numbering, with whether it was reached by ✓.
    pub fn rows<E: From<DecodeError>>(
        &self,
        machine: &Machine,
        procs: &Processes,
        batch: &Batch,
        mut each: impl FnMut(&[u32], bool) -> Result<(), E>,
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
            let ticked = reader.tag().map_err(malformed)? != 0;
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
            each(&row, ticked)?;
        }
        Ok(())
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
            // Two batches: the second uses codes the first defined.
            let (first, second) = sent.split_at(sent.len() / 2);
            let batches: Vec<Batch> = [first, second]
                .iter()
                .map(|part| {
                    let mut batch = Batch {
                        from: 0,
                        ..Batch::default()
                    };
                    for row in part.iter().rev() {
                        codec
                            .push(&sender, &here, (row, false), 1, &mut batch)
                            .expect("encodable");
                    }
                    batch
                })
                .collect();
            assert!(batches[1].defines.len() < batches[0].defines.len());
            let mut reader = RowCodec::new(2);
            let mut received = Vec::new();
            for batch in &batches {
                reader
                    .define(&mut receiver, &mut there, batch)
                    .expect("defined");
                reader
                    .rows(&receiver, &there, batch, |row, _| {
                        received.push(row.to_vec());
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
            // Owners are read off content: the receiver agrees.
            for (row, back) in first.iter().rev().zip(&received) {
                assert_eq!(
                    codec.owner(&sender, &here, row, 7).expect("encodable"),
                    reader.owner(&receiver, &there, back, 7).expect("encodable")
                );
            }
            // A row whose code was never defined, or cut short, is an error.
            let mut undefined = Batch {
                from: 1,
                rows: vec![0, 5, 5, 5],
                count: 1,
                ..Batch::default()
            };
            let never = |_: &[u32], _| Ok::<(), DecodeError>(());
            assert!(reader.rows(&receiver, &there, &undefined, never).is_err());
            undefined.rows.truncate(2);
            assert!(reader.rows(&receiver, &there, &undefined, never).is_err());
            let stranger = Batch {
                from: 9,
                ..Batch::default()
            };
            assert!(reader.define(&mut receiver, &mut there, &stranger).is_err());
        });
    }
}
