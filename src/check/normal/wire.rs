//! A normal form's nodes as bytes for another process with the same
//! script (a cluster's workers on other machines): written as a trace
//! from the root or as sorted member states, read back into the
//! reader's own normal form whatever order it made its nodes in.

use crate::eval::EvalResult;
use crate::process::Processes;

use super::{NodeId, Normaliser};

/// How a node crossing between workers is written: as a trace from the
/// root, or as its member states.
const BY_TRACE: u8 = 1;
const BY_MEMBERS: u8 = 0;

impl Normaliser {
    /// `node` as bytes, so that another process with the same script
    /// reads back the same node ([`Normaliser::read_node`]) whatever
    /// order it made its nodes and states in: a trace that leads to it
    /// from the root (its [`Node::origin`]s followed back), a few bytes
    /// an event; or, for a node made otherwise (as an image, after a
    /// refusal, or read as members), its member states, each as its
    /// components' encodings, sorted — a node of a nondeterministic
    /// specification holds hundreds of states. A state kept as a key
    /// (under symmetry) has its term made for it.
    pub fn write_node(
        &mut self,
        procs: &mut Processes,
        node: NodeId,
        out: &mut Vec<u8>,
    ) -> Result<(), String> {
        use crate::eval::value::bytes::Writer;
        let mut trace = Vec::new();
        let mut at = node;
        while at != self.root {
            match self.nodes[at as usize].origin {
                Some((parent, event)) => {
                    trace.push(event);
                    at = parent;
                }
                None => break,
            }
        }
        if at == self.root {
            let w = &mut Writer { out };
            w.tag(BY_TRACE);
            w.count(trace.len());
            for &event in trace.iter().rev() {
                w.u32(event);
            }
            return Ok(());
        }
        self.crossing.keep_bounded();
        let states = self.nodes[node as usize].members.clone();
        for &state in states.iter() {
            if !self.crossing.written.contains_key(&state) {
                let bytes = self.encode_member(procs, state)?;
                self.crossing.written.insert(state, bytes.into());
            }
        }
        let mut members: Vec<&[u8]> = states
            .iter()
            .map(|state| &*self.crossing.written[state])
            .collect();
        members.sort_unstable();
        let w = &mut Writer { out };
        w.tag(BY_MEMBERS);
        w.count(members.len());
        for member in members {
            w.count(member.len());
            w.out.extend_from_slice(member);
        }
        Ok(())
    }

    /// Specification state `state` as bytes: its components' encodings.
    fn encode_member(&mut self, procs: &mut Processes, state: u32) -> Result<Vec<u8>, String> {
        use crate::eval::value::bytes::Writer;
        let mut row = Vec::new();
        match self.keyed.is_some() {
            true => row.push(
                self.keyed_local(procs, state)
                    .map_err(|e| e.message.clone())?,
            ),
            false => self.states.read(state, &mut row),
        }
        let mut bytes = Vec::new();
        let mut encoded = Vec::new();
        for (slot, &local) in row.iter().enumerate() {
            encoded.clear();
            procs.encode_state(self.machine.process_state(slot, local), &mut encoded);
            Writer { out: &mut bytes }.count(encoded.len());
            bytes.extend_from_slice(&encoded);
        }
        Ok(bytes)
    }

    /// The node whose members `bytes` (from [`Normaliser::write_node`])
    /// hold, in this normaliser's numbering: made if new. `Ok(Err)` when
    /// the bytes are not a node.
    pub fn read_node(
        &mut self,
        procs: &mut Processes,
        bytes: &[u8],
    ) -> EvalResult<Result<NodeId, String>> {
        let Some((&tag, rest)) = bytes.split_first() else {
            return Ok(Err("a normal form's node is cut short".to_string()));
        };
        match tag {
            BY_TRACE => self.node_after_trace(procs, rest),
            BY_MEMBERS => match self.members_of(procs, rest) {
                Ok(members) => self.node_of(procs, members, None).map(Ok),
                Err(malformed) => Ok(Err(malformed)),
            },
            tag => Ok(Err(format!("a normal form's node of kind {tag}"))),
        }
    }

    /// The node the trace `bytes` hold leads to from the root.
    fn node_after_trace(
        &mut self,
        procs: &mut Processes,
        bytes: &[u8],
    ) -> EvalResult<Result<NodeId, String>> {
        let mut reader = crate::eval::value::bytes::Reader::new(procs.script(), bytes);
        let mut node = self.root;
        let count = match reader.count() {
            Ok(count) => count,
            Err(e) => return Ok(Err(e.to_string())),
        };
        for _ in 0..count {
            let event = match reader.u32() {
                Ok(event) if (event as usize) < procs.events().id_count() => event,
                Ok(event) => return Ok(Err(format!("a node's trace holds event {event}"))),
                Err(e) => return Ok(Err(e.to_string())),
            };
            node = match self.after(procs, node, event)? {
                Some(next) => next,
                None => {
                    return Ok(Err(format!(
                        "a node's trace goes on with {}, which the specification does not \
                         allow there",
                        procs.show_event(event)
                    )));
                }
            };
        }
        if !reader.is_done() {
            return Ok(Err(
                "a normal form's node has more than its trace".to_string()
            ));
        }
        Ok(Ok(node))
    }

    /// The states (numbered here, made if new) whose encodings `bytes`
    /// hold, as [`Normaliser::write_node`] writes them.
    fn members_of(&mut self, procs: &mut Processes, bytes: &[u8]) -> Result<Vec<u32>, String> {
        use crate::eval::value::bytes::Reader;
        self.crossing.keep_bounded();
        let cut = || "a normal form's node is cut short".to_string();
        let mut reader = Reader::new(procs.script(), bytes);
        let count = reader.count().map_err(|e| e.to_string())?;
        let mut at = bytes.len() - reader.remaining();
        let width = self.machine.components();
        let mut members = Vec::with_capacity(count.min(bytes.len()));
        let mut row = Vec::with_capacity(width);
        for _ in 0..count {
            let mut reader = Reader::new(procs.script(), &bytes[at..]);
            let length = reader.count().map_err(|e| e.to_string())?;
            let start = bytes.len() - reader.remaining();
            let member = bytes.get(start..start + length).ok_or_else(cut)?;
            at = start + length;
            if let Some(&state) = self.crossing.read.get(member) {
                members.push(state);
                continue;
            }
            row.clear();
            let mut k = 0;
            for slot in 0..width {
                let mut reader = Reader::new(procs.script(), &member[k..]);
                let length = reader.count().map_err(|e| e.to_string())?;
                let begin = member.len() - reader.remaining();
                let state = member.get(begin..begin + length).ok_or_else(cut)?;
                let state = procs.decode_state(state).map_err(|e| e.to_string())?;
                row.push(self.machine.local_of(slot, state));
                k = begin + length;
            }
            if k != member.len() {
                return Err("a normal form's state has more than its components".into());
            }
            let state = match self.keyed.is_some() {
                true => self
                    .keyed_of_local(procs, row[0])
                    .map_err(|e| e.message.clone())?,
                false => self.states.insert(&row).0,
            };
            self.crossing.read.insert(member.into(), state);
            members.push(state);
        }
        if at != bytes.len() {
            return Err("a normal form's node has more than its members".into());
        }
        Ok(members)
    }
}
