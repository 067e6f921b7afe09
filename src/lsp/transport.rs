//! Standard input and output as the server's connection: messages framed
//! as the protocol says (`Content-Length` headers), read and written on
//! threads of their own. Unlike lsp-server's own stdio transport, a
//! message the server cannot read does not end the connection:
//! - bytes that are not UTF-8 are read as U+FFFD, so a document sent
//!   with them is loaded, and its diagnostics point at them;
//! - a body that is not a JSON-RPC message reaches the server as an
//!   [`UNREADABLE`] request (when it had an `id`: the client gets an
//!   error answer) or notification (the client is told in its log);
//! - a header without a readable `Content-Length` is reported the same
//!   way, and the next header found where its body would be (framing
//!   puts it right after that body);
//! - a body longer than [`MAX_BODY`] is reported and skipped the same way
//!   (never waited for: a wrong length would hold the server for ever).
//!
//! Then the next message is read.

use std::io::{self, BufRead};
use std::thread::JoinHandle;

use crossbeam_channel::Sender;
use lsp_server::{Connection, Message, Notification, Request, RequestId};
use serde_json::{Value, json};

/// The method the reader gives what it could not read; its parameters
/// say why (`reason`).
pub const UNREADABLE: &str = "$/symcsp/unreadable";

/// The largest message body read (a document of this size is far past
/// what an editor sends).
const MAX_BODY: usize = 1 << 30;

/// The header that gives a body's length, as matched (lower case).
const LENGTH_HEADER: &str = "content-length";

/// The threads behind [`stdio`].
pub struct Threads {
    reader: JoinHandle<()>,
    writer: JoinHandle<io::Result<()>>,
}

impl Threads {
    /// Waits for every message sent to be written (the connection's
    /// sender dropped first).
    pub fn join(self) -> io::Result<()> {
        let written = self
            .writer
            .join()
            .unwrap_or_else(|_| Err(io::Error::other("the writer failed")));
        // The reader ends at the client's exit or at the end of its
        // input; one still waiting on input is left to the process's end.
        if self.reader.is_finished() {
            let _ = self.reader.join();
        }
        written
    }
}

/// A connection on standard input and output.
pub fn stdio() -> (Connection, Threads) {
    let (sender, outgoing) = crossbeam_channel::unbounded::<Message>();
    let (incoming, receiver) = crossbeam_channel::unbounded::<Message>();
    let writer = std::thread::Builder::new()
        .name("symcsp-lsp-write".into())
        .spawn(move || {
            let stdout = io::stdout();
            let mut out = stdout.lock();
            outgoing.into_iter().try_for_each(|m| m.write(&mut out))
        })
        .expect("a thread to write messages on");
    let reader = std::thread::Builder::new()
        .name("symcsp-lsp-read".into())
        .spawn(move || read_all(&mut io::stdin().lock(), &incoming))
        .expect("a thread to read messages on");
    (Connection { sender, receiver }, Threads { reader, writer })
}

/// Reads messages from `input` until its end or the client's exit,
/// each to `server`.
pub fn read_all(input: &mut impl BufRead, server: &Sender<Message>) {
    read_all_within(input, server, MAX_BODY);
}

/// [`read_all`], bodies of at most `max_body` bytes read.
fn read_all_within(input: &mut impl BufRead, server: &Sender<Message>, max_body: usize) {
    loop {
        let message = match read_one(input, max_body) {
            Ok(Some(message)) => message,
            Ok(None) => return,
            Err(Unreadable { id, reason }) => unreadable(id, reason),
        };
        let exit = matches!(&message, Message::Notification(n) if n.method == "exit");
        if server.send(message).is_err() || exit {
            return;
        }
    }
}

/// What could not be read: the request's id when it had one.
#[derive(Debug)]
struct Unreadable {
    id: Option<RequestId>,
    reason: String,
}

impl Unreadable {
    fn because(reason: impl Into<String>) -> Unreadable {
        Unreadable {
            id: None,
            reason: reason.into(),
        }
    }
}

fn unreadable(id: Option<RequestId>, reason: String) -> Message {
    let params = json!({ "reason": reason });
    match id {
        Some(id) => Request::new(id, UNREADABLE.into(), params).into(),
        None => Notification::new(UNREADABLE.into(), params).into(),
    }
}

/// The next message (its body at most `max_body` bytes); `None` at the
/// end of the input.
fn read_one(input: &mut impl BufRead, max_body: usize) -> Result<Option<Message>, Unreadable> {
    let mut length = None;
    let mut saw_header = false;
    loop {
        let mut line = Vec::new();
        match input.read_until(b'\n', &mut line) {
            Ok(0) if !saw_header => return Ok(None),
            Ok(0) => return Err(Unreadable::because("the input ended inside a header")),
            Ok(_) => {}
            // Input that cannot be read at all ends the connection, as
            // its end does.
            Err(_) => return Ok(None),
        }
        let line = String::from_utf8_lossy(&line);
        let line = line.trim_end_matches(['\r', '\n']);
        if line.is_empty() {
            if saw_header {
                break;
            }
            // Blank lines between messages are skipped.
            continue;
        }
        saw_header = true;
        // After a message whose length could not be read, its body runs
        // into the next header line: the header is found where it
        // starts.
        let at = line.to_ascii_lowercase().find(LENGTH_HEADER);
        if let Some(value) = at.and_then(|at| line[at + LENGTH_HEADER.len()..].strip_prefix(':')) {
            length = Some(value.trim().parse::<usize>());
        }
    }
    let length = match length {
        Some(Ok(length)) => length,
        Some(Err(e)) => {
            return Err(Unreadable::because(format!(
                "a message whose Content-Length is not a length ({e})"
            )));
        }
        None => {
            return Err(Unreadable::because(
                "a message without a Content-Length header",
            ));
        }
    };
    if length > max_body {
        // Not read by its length: a client that sent a wrong one would
        // have the server wait for bytes that never come. The body is
        // passed over as a length that cannot be read is: up to the
        // next header.
        return Err(Unreadable::because(format!(
            "a message of {length} bytes, more than this server reads ({max_body}): skipped \
             up to the next header"
        )));
    }
    let mut body = vec![0; length];
    if let Err(e) = input.read_exact(&mut body) {
        return Err(Unreadable::because(format!(
            "reading a message's body: {e}"
        )));
    }
    let text = String::from_utf8_lossy(&body);
    serde_json::from_str::<Message>(&text)
        .map(Some)
        .map_err(|e| Unreadable {
            id: serde_json::from_str::<Value>(&text)
                .ok()
                .and_then(|v| serde_json::from_value(v.get("id")?.clone()).ok()),
            reason: format!("not a JSON-RPC message: {e}"),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn framed(body: &[u8]) -> Vec<u8> {
        let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
        out.extend_from_slice(body);
        out
    }

    fn read(input: Vec<u8>) -> Vec<Message> {
        read_within(input, MAX_BODY)
    }

    fn read_within(input: Vec<u8>, max_body: usize) -> Vec<Message> {
        let (sender, receiver) = crossbeam_channel::unbounded();
        read_all_within(&mut io::Cursor::new(input), &sender, max_body);
        drop(sender);
        receiver.into_iter().collect()
    }

    #[test]
    fn what_cannot_be_read_is_passed_on_as_such_and_reading_goes_on() {
        let mut input = Vec::new();
        // Not UTF-8 inside a string: read, as U+FFFD.
        input.extend(framed(
            b"{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"params\":{\"text\":\"a\xff\"}}",
        ));
        // JSON, not a message, with an id: an unreadable request.
        input.extend(framed(b"{\"jsonrpc\":\"2.0\",\"id\":7,\"params\":[]}"));
        // Not JSON at all: an unreadable notification.
        input.extend(framed(b"{{{"));
        // No length.
        input.extend(b"Content-Type: x\r\n\r\n");
        input.extend(framed(b"{\"jsonrpc\":\"2.0\",\"method\":\"exit\"}"));
        // Nothing after the exit is read.
        input.extend(framed(b"{\"jsonrpc\":\"2.0\",\"method\":\"late\"}"));
        let read = read(input);
        assert_eq!(read.len(), 5, "{read:?}");
        let Message::Notification(first) = &read[0] else {
            panic!("{read:?}")
        };
        assert_eq!(first.params["text"], "a\u{FFFD}");
        let Message::Request(second) = &read[1] else {
            panic!("{read:?}")
        };
        assert_eq!(
            (second.id.clone(), second.method.as_str()),
            (7.into(), UNREADABLE)
        );
        for message in &read[2..4] {
            let Message::Notification(n) = message else {
                panic!("{read:?}")
            };
            assert_eq!(n.method, UNREADABLE);
            assert!(n.params["reason"].as_str().is_some_and(|r| !r.is_empty()));
        }
        let Message::Notification(last) = &read[4] else {
            panic!("{read:?}")
        };
        assert_eq!(last.method, "exit");
    }

    #[test]
    fn a_message_whose_length_cannot_be_read_does_not_lose_the_next() {
        for header in [
            "Content-Length: -1",
            "Content-Length: many",
            "Content-Length: 99999999999999999999999",
            "Content-Length: 2147483648",
            "Content-Length: 1099511627776",
            "Content-Length: 18446744073709551615",
            "Content-Type: utf-8",
        ] {
            let mut input =
                format!("{header}\r\n\r\n{{\"jsonrpc\":\"2.0\",\"method\":\"lost\"}}").into_bytes();
            input.extend(framed(
                b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"kept\"}",
            ));
            let read = read(input);
            assert_eq!(read.len(), 2, "{header}: {read:?}");
            assert!(
                matches!(&read[0], Message::Notification(n) if n.method == UNREADABLE),
                "{header}: {read:?}"
            );
            assert!(
                matches!(&read[1], Message::Request(r) if r.method == "kept"),
                "{header}: {read:?}"
            );
        }
        // Too long to read: skipped, and the next read.
        let mut input = framed(&[b' '; 100]);
        input.extend(framed(
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"kept\"}",
        ));
        let read = read_within(input, 64);
        assert_eq!(read.len(), 2);
        assert!(matches!(&read[1], Message::Request(r) if r.method == "kept"));
    }

    #[test]
    fn the_end_of_the_input_ends_reading() {
        assert!(read(Vec::new()).is_empty());
        let cut = framed(b"{\"jsonrpc\":\"2.0\",\"method\":\"m\"}")[..30].to_vec();
        let read = read(cut);
        // The message cut short is reported, then the end is met.
        assert_eq!(read.len(), 1);
    }
}
