//! System states as bytes: a row of component-local numbers written as
//! each component's process state encoded ([`Processes::encode_state`]),
//! each with its length, so that a row means the same system state to
//! every worker, whatever it numbered its component states. Each worker
//! remembers the encoding of every component state it has written and
//! the local number of every encoding it has read, so a component state
//! is encoded and decoded once per worker, not once per row.

use rustc_hash::FxHashMap;

use crate::eval::value::bytes::{DecodeError, DecodeResult, Reader, Writer};
use crate::lts::machine::Machine;
use crate::process::Processes;

/// What one worker knows of the encodings of its machine's tables.
#[derive(Debug, Default)]
pub struct RowCodec {
    /// Per table, per local number: its state's encoding, once written.
    written: Vec<Vec<Option<Box<[u8]>>>>,
    /// Per table: the local number of each encoding read.
    read: Vec<FxHashMap<Box<[u8]>, u32>>,
}

impl RowCodec {
    /// Appends the encoding of `row` to `out`.
    pub fn encode(&mut self, machine: &Machine, procs: &Processes, row: &[u32], out: &mut Vec<u8>) {
        for (slot, &local) in row.iter().enumerate() {
            let table = machine.table_of(slot);
            if self.written.len() <= table {
                self.written.resize_with(table + 1, Vec::new);
            }
            let known = &mut self.written[table];
            if known.len() <= local as usize {
                known.resize(local as usize + 1, None);
            }
            let bytes = known[local as usize].get_or_insert_with(|| {
                let mut bytes = Vec::new();
                procs.encode_state(machine.process_state(slot, local), &mut bytes);
                bytes.into_boxed_slice()
            });
            Writer { out }.count(bytes.len());
            out.extend_from_slice(bytes);
        }
    }

    /// The row `bytes` encode, in this worker's numbering, into `row`
    /// (cleared first): its component states are added to the machine's
    /// tables as needed.
    pub fn decode(
        &mut self,
        machine: &mut Machine,
        procs: &mut Processes,
        bytes: &[u8],
        row: &mut Vec<u32>,
    ) -> DecodeResult<()> {
        row.clear();
        let mut at = 0;
        for slot in 0..machine.components() {
            let mut reader = Reader::new(procs.script(), &bytes[at..]);
            let length = reader.count()?;
            let start = at + (bytes.len() - at) - reader.remaining();
            let part = &bytes[start..start + length];
            at = start + length;
            let table = machine.table_of(slot);
            if self.read.len() <= table {
                self.read.resize_with(table + 1, FxHashMap::default);
            }
            let local = match self.read[table].get(part) {
                Some(&local) => local,
                None => {
                    let state = procs.decode_state(part)?;
                    let local = machine.local_of(slot, state);
                    self.read[table].insert(part.into(), local);
                    local
                }
            };
            row.push(local);
        }
        if at != bytes.len() {
            return Err(DecodeError(format!(
                "a row of {} components with {} bytes left over",
                machine.components(),
                bytes.len() - at
            )));
        }
        Ok(())
    }
}
