//! How soon `symcsp lsp` republishes a large document's diagnostics
//! after an edit (the issue: ≤ 100 ms for a 10 000-line script): the
//! server on a thread, the editor's side of an in-memory connection
//! timing each edit, from `didChange` sent to `publishDiagnostics`
//! received (each edit follows the last one's answer, so the server
//! loads it at once; a burst of typing would wait 20 ms to settle).
//! Edits alternate between a clean script and one with a
//! type error, so each edit's diagnostics differ. Then the server's
//! memory (the issue: ≤ 2× the loaded script's): `symcsp lsp` as a
//! process of its own, its peak resident memory after opening a
//! 30 000-line script and after edits, against `symcsp type`'s peak on
//! the same script. Reports, never fails.
//!
//! `cargo bench --bench lsp`

use std::time::{Duration, Instant};

use lsp_server::{Connection, Message, Notification, Request, RequestId};
use serde_json::json;

#[path = "common/generated.rs"]
mod generated;
use generated::block;

fn notify(client: &Connection, method: &str, params: serde_json::Value) {
    let note = Notification::new(method.to_string(), params);
    client.sender.send(note.into()).expect("the server listens");
}

/// Waits for the next diagnostics; how many there are.
fn diagnostics(client: &Connection) -> usize {
    loop {
        match client.receiver.recv_timeout(Duration::from_secs(60)) {
            Ok(Message::Notification(n)) if n.method == "textDocument/publishDiagnostics" => {
                return n.params["diagnostics"].as_array().map_or(0, Vec::len);
            }
            Ok(_) => {}
            Err(e) => panic!("no diagnostics: {e}"),
        }
    }
}

fn main() {
    // First, while this process is small: a child's peak counts what
    // it shared with its parent before it ran the binary.
    #[cfg(target_os = "linux")]
    memory::report();
    let (server, client) = Connection::memory();
    let serving = std::thread::spawn(move || symcsp::lsp::serve(server));
    let init = Request::new(
        RequestId::from(1),
        "initialize".into(),
        json!({"capabilities": {}}),
    );
    client.sender.send(init.into()).expect("sent");
    loop {
        if let Ok(Message::Response(_)) = client.receiver.recv() {
            break;
        }
    }
    notify(&client, "initialized", json!({}));
    for wanted in [1_000, 10_000, 30_000] {
        let per_block = block(0).lines().count();
        let clean: String = (0..wanted / per_block).map(block).collect();
        let lines = clean.lines().count();
        let broken = format!("{clean}\nBroken = 1 + true\n");
        let uri = format!("file:///tmp/symcsp-bench-{lines}.csp");
        notify(
            &client,
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "cspm", "version": 0, "text": clean}}),
        );
        diagnostics(&client);
        let mut times = Vec::new();
        for version in 1..=10 {
            let (text, expected) = match version % 2 {
                1 => (&broken, 1),
                _ => (&clean, 0),
            };
            let start = Instant::now();
            notify(
                &client,
                "textDocument/didChange",
                json!({"textDocument": {"uri": uri, "version": version},
                       "contentChanges": [{"text": text}]}),
            );
            assert_eq!(diagnostics(&client), expected);
            times.push(start.elapsed().as_secs_f64() * 1e3);
        }
        times.sort_by(f64::total_cmp);
        println!(
            "{lines:>6} lines: diagnostics republished {:.0} ms after an edit (median of 10; \
             best {:.0}, worst {:.0})",
            times[5], times[0], times[9]
        );
        // The last edit left the script clean and loaded: hover and go
        // to the definition of the last block's `P{n}` in `R{n} =
        // (P{n}(0) …`.
        let line = clean.lines().count() - 7;
        let text = clean.lines().nth(line).expect("the line");
        let column = text.find("(P").expect("R's line") + 1;
        let at = json!({"textDocument": {"uri": uri},
                        "position": {"line": line, "character": column}});
        for method in ["textDocument/hover", "textDocument/definition"] {
            let mut times = Vec::new();
            for k in 0..20 {
                let id = RequestId::from(1000 + k);
                let start = Instant::now();
                let request = Request::new(id, method.into(), at.clone());
                client.sender.send(request.into()).expect("sent");
                let answer = loop {
                    if let Ok(Message::Response(r)) = client.receiver.recv() {
                        break r;
                    }
                };
                times.push(start.elapsed().as_secs_f64() * 1e3);
                assert!(
                    answer.response_result.is_ok_and(|r| !r.is_null()),
                    "{method} answered"
                );
            }
            times.sort_by(f64::total_cmp);
            println!(
                "{lines:>6} lines: {method} in {:.2} ms (median of 20)",
                times[10]
            );
        }
    }
    let shutdown = Request::new(RequestId::from(2), "shutdown".into(), json!(null));
    client.sender.send(shutdown.into()).expect("sent");
    notify(&client, "exit", json!(null));
    serving.join().expect("the server ends").expect("cleanly");
}

/// The server's peak memory against a load's, each a process of its own.
#[cfg(target_os = "linux")]
mod memory {
    use std::io::BufReader;
    use std::process::{ChildStdout, Command, Stdio};

    use lsp_server::{Message, Notification, Request, RequestId};
    use serde_json::json;

    use super::block;

    /// A process's peak resident memory so far, in MB (`VmHWM`).
    fn peak_mb(pid: u32) -> f64 {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("/proc");
        let kb: f64 = status
            .lines()
            .find_map(|line| line.strip_prefix("VmHWM:"))
            .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
            .expect("VmHWM");
        kb / 1024.0
    }

    /// The largest peak of the children waited for so far, in MB.
    fn children_peak_mb() -> f64 {
        // SAFETY: getrusage fills the struct it is given.
        let usage = unsafe {
            let mut usage = std::mem::zeroed::<libc::rusage>();
            libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage);
            usage
        };
        usage.ru_maxrss as f64 / 1024.0
    }

    /// Reads the server's messages up to the first `wanted` one.
    fn until(from: &mut BufReader<ChildStdout>, wanted: impl Fn(&Message) -> bool) {
        loop {
            match Message::read(from).expect("read") {
                Some(message) if wanted(&message) => return,
                Some(_) => {}
                None => panic!("the server closed its output"),
            }
        }
    }

    fn is_diagnostics(message: &Message) -> bool {
        matches!(message, Message::Notification(n) if n.method == "textDocument/publishDiagnostics")
    }

    pub fn report() {
        let binary = env!("CARGO_BIN_EXE_symcsp");
        let dir = tempfile::tempdir().expect("a folder");
        let path = dir.path().join("large.csp");
        let per_block = block(0).lines().count();
        let clean: String = (0..30_000 / per_block).map(block).collect();
        let broken = format!("{clean}\nBroken = 1 + true\n");
        std::fs::write(&path, &clean).expect("written");
        let typed = Command::new(binary)
            .arg("type")
            .arg(&path)
            .stdout(Stdio::null())
            .status()
            .expect("symcsp type runs");
        assert!(typed.success(), "the script is well typed");
        let loaded = children_peak_mb();

        let mut server = Command::new(binary)
            .arg("lsp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("symcsp lsp starts");
        let mut to = server.stdin.take().expect("stdin");
        let mut from = BufReader::new(server.stdout.take().expect("stdout"));
        let mut send = |message: Message| message.write(&mut to).expect("sent");
        let note = |method: &str, params| Notification::new(method.into(), params).into();
        send(
            Request::new(
                RequestId::from(1),
                "initialize".into(),
                json!({"capabilities": {}}),
            )
            .into(),
        );
        until(&mut from, |m| matches!(m, Message::Response(_)));
        send(note("initialized", json!({})));
        let uri = format!("file://{}", path.display());
        send(note(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "cspm", "version": 0, "text": clean}}),
        ));
        until(&mut from, is_diagnostics);
        let mut peaks = vec![(0, peak_mb(server.id()))];
        for version in 1..=20 {
            let text = if version % 2 == 1 { &broken } else { &clean };
            send(note(
                "textDocument/didChange",
                json!({"textDocument": {"uri": uri, "version": version},
                       "contentChanges": [{"text": text}]}),
            ));
            until(&mut from, is_diagnostics);
            if [1, 10, 20].contains(&version) {
                peaks.push((version, peak_mb(server.id())));
            }
        }
        send(Request::new(RequestId::from(2), "shutdown".into(), json!(null)).into());
        until(&mut from, |m| matches!(m, Message::Response(_)));
        send(note("exit", json!(null)));
        server.wait().expect("the server ends");
        println!("29 988 lines: `symcsp type` peaks at {loaded:.0} MB");
        for (edits, peak) in peaks {
            println!(
                "29 988 lines: `symcsp lsp` peaks at {peak:.0} MB after {edits} edits ({:.2}x)",
                peak / loaded
            );
        }
    }
}
