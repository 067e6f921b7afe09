//! `symcsp lsp` as an editor drives it: the binary over stdio, JSON-RPC
//! framed as the protocol says, with real scripts on disk. Diagnostics as
//! a document is opened, edited and mended; hover, definition,
//! references, symbols, rename and completion; a check run from a code
//! lens, and cancelled from it; an included file's buffer read instead of
//! the disk; bad input of every kind answered, and the server going on.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The server running, and what it has sent that the test has not read.
struct Client {
    child: Child,
    input: ChildStdin,
    messages: Receiver<Value>,
    /// Messages read while waiting for another.
    unread: Vec<Value>,
    next_id: i64,
}

const WAIT: Duration = Duration::from_secs(30);

impl Client {
    fn start() -> Client {
        Client::start_with(json!({}))
    }

    /// A client with the capabilities `capabilities`.
    fn start_with(capabilities: Value) -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_symcsp"))
            .arg("lsp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("symcsp starts");
        let input = child.stdin.take().expect("stdin");
        let mut output = BufReader::new(child.stdout.take().expect("stdout"));
        let (sender, messages) = channel();
        std::thread::spawn(move || {
            loop {
                let mut length = None;
                loop {
                    let mut line = String::new();
                    if output.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let line = line.trim_end();
                    if line.is_empty() {
                        break;
                    }
                    if let Some(n) = line.strip_prefix("Content-Length: ") {
                        length = n.parse::<usize>().ok();
                    }
                }
                let mut body = vec![0; length.expect("a Content-Length header")];
                output.read_exact(&mut body).expect("the message's body");
                let message = serde_json::from_slice(&body).expect("JSON");
                if sender.send(message).is_err() {
                    return;
                }
            }
        });
        let mut client = Client {
            child,
            input,
            messages,
            unread: Vec::new(),
            next_id: 0,
        };
        let init = client.request(
            "initialize",
            json!({"processId": null, "rootUri": null, "capabilities": capabilities}),
        );
        assert_eq!(init["serverInfo"]["name"], "symcsp");
        assert_eq!(init["capabilities"]["hoverProvider"], true);
        client.notify("initialized", json!({}));
        client
    }

    fn send(&mut self, message: Value) {
        self.send_raw(message.to_string().as_bytes());
    }

    /// `body` framed as a message, whatever its bytes.
    fn send_raw(&mut self, body: &[u8]) {
        write!(self.input, "Content-Length: {}\r\n\r\n", body.len()).expect("write");
        self.input.write_all(body).expect("write");
        self.input.flush().expect("flush");
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// The result of a request (panics on an error response).
    fn request(&mut self, method: &str, params: Value) -> Value {
        let response = self.request_raw(method, params);
        assert!(response.get("error").is_none(), "{method}: {response}");
        response["result"].clone()
    }

    fn request_raw(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.wait_for(|m| m["id"] == id && m.get("method").is_none())
    }

    /// The first message `wanted` accepts, those before it kept.
    fn wait_for(&mut self, wanted: impl Fn(&Value) -> bool) -> Value {
        if let Some(at) = self.unread.iter().position(&wanted) {
            return self.unread.remove(at);
        }
        let deadline = Instant::now() + WAIT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.messages.recv_timeout(left) {
                Ok(message) if wanted(&message) => return message,
                Ok(message) => self.unread.push(message),
                Err(RecvTimeoutError::Timeout) => panic!("no such message; got {:?}", self.unread),
                Err(RecvTimeoutError::Disconnected) => panic!("the server ended"),
            }
        }
    }

    /// The next diagnostics published for `uri`.
    fn diagnostics(&mut self, uri: &str) -> Vec<Value> {
        let message = self.wait_for(|m| {
            m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri
        });
        message["params"]["diagnostics"]
            .as_array()
            .expect("a list")
            .clone()
    }

    fn open(&mut self, uri: &str, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "cspm", "version": 1, "text": text}}),
        );
    }

    fn change(&mut self, uri: &str, version: i64, text: &str) {
        self.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": version},
                   "contentChanges": [{"text": text}]}),
        );
    }

    fn at(
        &mut self,
        method: &str,
        uri: &str,
        (line, character): (u32, u32),
        extra: Value,
    ) -> Value {
        let mut params = json!({"textDocument": {"uri": uri},
                                "position": {"line": line, "character": character}});
        if let (Some(params), Some(extra)) = (params.as_object_mut(), extra.as_object()) {
            params.extend(extra.clone());
        }
        self.request(method, params)
    }

    /// Shuts the server down as an editor does; its exit status.
    fn shut_down(mut self) -> std::process::ExitStatus {
        self.request("shutdown", Value::Null);
        self.notify("exit", Value::Null);
        self.child.wait().expect("the server ends")
    }
}

fn uri(path: &Path) -> String {
    format!("file://{}", path.display())
}

/// A server with `text` open as `model.csp` in a folder of its own (kept
/// while the folder lives), loaded: its first diagnostics read.
fn opened(text: &str) -> (tempfile::TempDir, std::path::PathBuf, String, Client) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("model.csp");
    std::fs::write(&path, text).unwrap();
    let uri = uri(&path);
    let mut client = Client::start();
    client.open(&uri, text);
    client.diagnostics(&uri);
    (dir, path, uri, client)
}

const SCRIPT: &str = "channel c : {0..2}
datatype T = A | B
P(x) = c!x -> P(x)
Q = P(1) ||| P(2)
assert Q :[deadlock free]
assert STOP [T= c!1 -> STOP
";

#[test]
fn diagnostics_follow_the_edits_and_clear_when_mended() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("model.csp");
    std::fs::write(&path, SCRIPT).unwrap();
    let uri = uri(&path);
    let mut client = Client::start();
    client.open(&uri, SCRIPT);
    assert_eq!(client.diagnostics(&uri), Vec::<Value>::new());
    // A type error: a Bool where c wants an Int, on line 4 (0-based 3).
    let broken = SCRIPT.replace("P(1) |||", "P(true) |||");
    client.change(&uri, 2, &broken);
    let found = client.diagnostics(&uri);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0]["severity"], 1);
    assert_eq!(found[0]["source"], "symcsp");
    assert_eq!(found[0]["range"]["start"]["line"], 3);
    let message = found[0]["message"].as_str().unwrap();
    assert!(
        message.contains("Bool") && message.contains("Int"),
        "{message}"
    );
    // A burst of edits: only the last is published, and it is clean.
    for version in 3..8 {
        let text = SCRIPT.replace("P(1)", &format!("P({})", version % 3));
        client.change(&uri, version, &text);
    }
    client.change(&uri, 8, "channel d\nR = d -> R\nS = undefined_name\n");
    let found = client.diagnostics(&uri);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(
        found[0]["range"]["start"],
        json!({"line": 2, "character": 4})
    );
    assert_eq!(
        found[0]["range"]["end"],
        json!({"line": 2, "character": 18})
    );
    client.change(&uri, 9, SCRIPT);
    assert_eq!(client.diagnostics(&uri), Vec::<Value>::new());
    assert!(client.shut_down().success());
}

#[test]
fn names_hover_go_to_their_definitions_and_rename_everywhere() {
    let (_dir, _path, uri, mut client) = opened(SCRIPT);
    // `P` in `Q = P(1)`: line 3, column 4.
    let hover = client.at("textDocument/hover", &uri, (3, 4), json!({}));
    let text = hover["contents"]["value"].as_str().unwrap();
    assert!(text.contains("P :: (Int) -> Proc"), "{text}");
    assert!(text.contains("declared at line 3"), "{text}");
    let hover = client.at("textDocument/hover", &uri, (1, 9), json!({}));
    let text = hover["contents"]["value"].as_str().unwrap();
    assert!(
        text.contains("datatype T") && text.contains("A :: T"),
        "{text}"
    );
    let hover = client.at("textDocument/hover", &uri, (0, 8), json!({}));
    assert!(
        hover["contents"]["value"]
            .as_str()
            .unwrap()
            .contains("c :: Int=>Event")
    );
    // A process: its components, alphabet and symmetry.
    let hover = client.at("textDocument/hover", &uri, (3, 0), json!({}));
    let text = hover["contents"]["value"].as_str().unwrap();
    assert!(text.contains("Q :: Proc"), "{text}");
    assert!(text.contains("2 components in parallel"), "{text}");
    assert!(
        text.contains("alphabet: 2 events, over its 1 state"),
        "{text}"
    );
    assert!(text.contains("symmetric in T (2 values)"), "{text}");
    // The `x` of `c!x`: a variable, bound by P's parameter.
    let hover = client.at("textDocument/hover", &uri, (2, 9), json!({}));
    let text = hover["contents"]["value"].as_str().unwrap();
    assert!(text.contains("x :: Int"), "{text}");
    assert!(text.contains("x — a variable bound at line 3"), "{text}");

    let definition = client.at("textDocument/definition", &uri, (3, 13), json!({}));
    assert_eq!(definition["uri"], uri.as_str());
    assert_eq!(
        definition["range"],
        json!({"start": {"line": 2, "character": 0}, "end": {"line": 2, "character": 1}})
    );
    let references = client.at(
        "textDocument/references",
        &uri,
        (2, 0),
        json!({"context": {"includeDeclaration": true}}),
    );
    let lines: Vec<_> = references
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["range"]["start"]["line"].clone(),
                r["range"]["start"]["character"].clone(),
            )
        })
        .collect();
    assert_eq!(
        lines,
        [
            (json!(2), json!(0)),
            (json!(2), json!(14)),
            (json!(3), json!(4)),
            (json!(3), json!(13))
        ]
    );

    let symbols = client.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": uri}}),
    );
    let names: Vec<_> = symbols
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].clone())
        .collect();
    assert_eq!(names, [json!("c"), json!("T"), json!("P"), json!("Q")]);
    let constructors: Vec<_> = symbols[1]["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].clone())
        .collect();
    assert_eq!(constructors, [json!("A"), json!("B")]);

    let edit = client.at(
        "textDocument/rename",
        &uri,
        (3, 4),
        json!({"newName": "Proc1"}),
    );
    let edits = edit["changes"][uri.as_str()].as_array().unwrap();
    assert_eq!(edits.len(), 4);
    assert!(edits.iter().all(|e| e["newText"] == "Proc1"));
    let refused = client.request_raw(
        "textDocument/rename",
        json!({"textDocument": {"uri": uri}, "position": {"line": 3, "character": 4},
               "newName": "Q"}),
    );
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(message.contains("`Q` is already declared"), "{message}");
    assert!(client.shut_down().success());
}

#[test]
fn completion_offers_fields_options_and_names_in_scope() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("model.csp");
    let text = format!("{SCRIPT}R(y) = c.\nassert Q :[\n");
    std::fs::write(&path, &text).unwrap();
    let uri = uri(&path);
    let mut client = Client::start();
    client.open(&uri, &text);
    client.diagnostics(&uri);
    let labels = |items: Value| -> Vec<String> {
        items
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["label"].as_str().unwrap().to_string())
            .collect()
    };
    // The script does not parse, so the last good load answers: none
    // yet. Mend it, then ask at the places being written.
    let good = format!("{SCRIPT}R(y) = c.1 -> STOP\n");
    client.change(&uri, 2, &good);
    client.diagnostics(&uri);
    let fields = labels(client.at("textDocument/completion", &uri, (6, 9), json!({})));
    assert_eq!(fields, ["0", "1", "2"]);
    let names = labels(client.at("textDocument/completion", &uri, (6, 7), json!({})));
    for name in ["c", "T", "A", "P", "Q", "R", "y", "STOP"] {
        assert!(names.contains(&name.to_string()), "{name} in {names:?}");
    }
    assert!(
        !names.contains(&"x".to_string()),
        "P's x is not in scope in R"
    );
    let options = format!("{good}assert Q :[");
    client.change(&uri, 3, &options);
    client.diagnostics(&uri);
    let offered = labels(client.at("textDocument/completion", &uri, (7, 11), json!({})));
    assert!(
        offered.contains(&"deadlock free".to_string()),
        "{offered:?}"
    );
    assert!(
        offered.contains(&"symmetry reduce".to_string()),
        "{offered:?}"
    );
    assert!(client.shut_down().success());
}

#[test]
fn an_assertion_runs_from_its_lens_and_shows_its_verdict() {
    let (_dir, path, uri, mut client) = opened(SCRIPT);
    let lenses = client.request(
        "textDocument/codeLens",
        json!({"textDocument": {"uri": uri}}),
    );
    let lenses = lenses.as_array().unwrap();
    assert_eq!(lenses.len(), 2);
    assert_eq!(lenses[1]["command"]["title"], "▶ check");
    assert_eq!(lenses[1]["range"]["start"]["line"], 5);
    let command = lenses[1]["command"].clone();
    client.request(
        "workspace/executeCommand",
        json!({"command": command["command"], "arguments": command["arguments"]}),
    );
    let shown = client.wait_for(|m| m["method"] == "window/showMessage");
    let message = shown["params"]["message"].as_str().unwrap();
    assert!(
        message.starts_with("assert STOP [T= c!1 -> STOP: ✗ Failed"),
        "{message}"
    );
    assert!(message.ends_with("⟨c.1⟩"), "{message}");
    let lenses = client.request(
        "textDocument/codeLens",
        json!({"textDocument": {"uri": uri}}),
    );
    let titles: Vec<_> = lenses
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["command"]["title"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(titles[0], "▶ check");
    assert!(titles[1].starts_with("✗ Failed — 1 states"), "{titles:?}");
    assert_eq!(titles[2], "▶ animate the counterexample");
    let animate = lenses[2]["command"].clone();
    let argv = client.request(
        "workspace/executeCommand",
        json!({"command": animate["command"], "arguments": animate["arguments"]}),
    );
    assert_eq!(
        argv["argv"],
        json!([
            "symcsp",
            path.display().to_string(),
            "--process",
            "c!1 -> STOP"
        ])
    );
    assert!(client.shut_down().success());
}

#[test]
fn an_included_file_is_read_from_its_open_buffer_and_its_errors_published_there() {
    let dir = tempfile::tempdir().unwrap();
    let main = dir.path().join("main.csp");
    let part = dir.path().join("part.csp");
    std::fs::write(&main, "include \"part.csp\"\nQ = P\n").unwrap();
    std::fs::write(&part, "channel a\nP = a -> P\n").unwrap();
    let (main_uri, part_uri) = (uri(&main), uri(&part));
    let mut client = Client::start();
    client.open(&main_uri, "include \"part.csp\"\nQ = P\n");
    assert_eq!(client.diagnostics(&main_uri), Vec::<Value>::new());
    // The included file opened and broken, unsaved: the error is shown
    // in it, for the document that includes it.
    client.open(&part_uri, "channel a\nP = a -> Nowhere\n");
    let found = loop {
        let found = client.diagnostics(&part_uri);
        if !found.is_empty() {
            break found;
        }
    };
    assert!(
        found[0]["message"].as_str().unwrap().contains("Nowhere"),
        "{found:?}"
    );
    assert_eq!(
        found[0]["range"]["start"],
        json!({"line": 1, "character": 9})
    );
    assert!(client.shut_down().success());
}

#[test]
fn an_included_file_changed_on_disk_reloads_the_documents_including_it() {
    let dir = tempfile::tempdir().unwrap();
    let main = dir.path().join("main.csp");
    let part = dir.path().join("part.csp");
    let main_text = "include \"part.csp\"\nQ = P\n";
    std::fs::write(&main, main_text).unwrap();
    std::fs::write(&part, "channel a\nP = a -> P\n").unwrap();
    let (main_uri, part_uri) = (uri(&main), uri(&part));
    let mut client = Client::start_with(
        json!({"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": true}}}),
    );
    // The server asks to hear of every CSPM file that changes.
    let registration = client.wait_for(|m| m["method"] == "client/registerCapability");
    let registered = &registration["params"]["registrations"][0];
    assert_eq!(registered["method"], "workspace/didChangeWatchedFiles");
    assert_eq!(
        registered["registerOptions"]["watchers"][0]["globPattern"],
        "**/*.csp"
    );
    client.open(&main_uri, main_text);
    assert_eq!(client.diagnostics(&main_uri), Vec::<Value>::new());
    // The included file, never opened, broken on disk: its error is shown
    // once the client says it changed.
    std::fs::write(&part, "channel a\nP = a -> Nowhere\n").unwrap();
    let changed = json!({"changes": [{"uri": part_uri, "type": 2}]});
    client.notify("workspace/didChangeWatchedFiles", changed.clone());
    let found = client.diagnostics(&part_uri);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0]["message"].as_str().unwrap().contains("Nowhere"));
    // Mended on disk: cleared.
    std::fs::write(&part, "channel a\nP = a -> P\n").unwrap();
    client.notify("workspace/didChangeWatchedFiles", changed);
    assert_eq!(client.diagnostics(&part_uri), Vec::<Value>::new());
    assert!(client.shut_down().success());
}

/// An included file's problems are said at its `include` too: an editor
/// shows the included file's own only when that file is open.
#[test]
fn an_included_file_s_errors_are_summed_up_at_its_include() {
    let dir = tempfile::tempdir().unwrap();
    let main = dir.path().join("main.csp");
    let part = dir.path().join("part.csp");
    let deeper = dir.path().join("deeper.csp");
    let main_text = "channel b\ninclude \"part.csp\"\nQ = P\n";
    std::fs::write(&main, main_text).unwrap();
    std::fs::write(&part, "include \"deeper.csp\"\nP = a -> Nowhere\n").unwrap();
    std::fs::write(&deeper, "channel a\nR = a -> Elsewhere\n").unwrap();
    let (main_uri, part_uri) = (uri(&main), uri(&part));
    let mut client = Client::start_with(
        json!({"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": true}}}),
    );
    client.open(&main_uri, main_text);
    let found = client.diagnostics(&main_uri);
    assert_eq!(found.len(), 1, "{found:?}");
    let summary = &found[0];
    // The errors of part.csp and of the file it includes, the first of
    // them (in the order the loader met them) linked.
    let message = summary["message"].as_str().unwrap();
    assert!(
        message.starts_with("the included file ")
            && message.contains("part.csp has 2 errors; the first, at "),
        "{message}"
    );
    assert_eq!(summary["severity"], 1);
    assert_eq!(
        summary["range"],
        json!({"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 18}})
    );
    let related = &summary["relatedInformation"][0];
    assert_eq!(related["message"], "the first");
    let first_file = related["location"]["uri"].as_str().unwrap();
    assert!(first_file.ends_with("part.csp") || first_file.ends_with("deeper.csp"));
    // Mended on disk: the summary goes.
    std::fs::write(&part, "include \"deeper.csp\"\nP = a -> P\n").unwrap();
    std::fs::write(&deeper, "channel a\nR = a -> R\n").unwrap();
    let changed = json!({"changes": [{"uri": part_uri, "type": 2}]});
    client.notify("workspace/didChangeWatchedFiles", changed);
    assert_eq!(client.diagnostics(&main_uri), Vec::<Value>::new());
    assert!(client.shut_down().success());
}

#[test]
fn an_edit_cancels_the_load_of_a_long_script_and_is_answered_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("long.csp");
    let uri = uri(&path);
    // 500 000 definitions, each using the one before: about 4 s to load
    // whole (in the tests' build), the time the edit would wait if it
    // did not cancel the load.
    let mut long = String::from("x0 = 0\n");
    for i in 1..500_000 {
        long.push_str(&format!("x{i} = x{} + 1\n", i - 1));
    }
    let mut client = Client::start();
    client.open(&uri, &long);
    // Its load has started by now; the edit cancels it.
    std::thread::sleep(Duration::from_millis(500));
    let started = Instant::now();
    client.change(&uri, 2, "Short = 1 + true\n");
    let found = client.diagnostics(&uri);
    assert_eq!(found.len(), 1, "the short script's error first: {found:?}");
    assert_eq!(found[0]["range"]["start"]["line"], 0);
    assert!(
        started.elapsed() < Duration::from_millis(1500),
        "answered after {:?}",
        started.elapsed()
    );
    assert!(client.shut_down().success());
}

#[test]
fn the_names_of_a_module_never_instantiated_hover_and_go_to_their_definitions() {
    let text = "channel c : {0..2}\nmodule M(k)\n  f = k + 1\nexports\n  P = c!f -> P\nendmodule\n";
    let (_dir, _path, uri, mut client) = opened(text);
    // `f` in `c!f`: line 4 (0-based), column 8.
    let hover = client.at("textDocument/hover", &uri, (4, 8), json!({}));
    let text = hover["contents"]["value"].as_str().unwrap();
    assert!(
        text.contains("f — declared at line 3 in a module never instantiated"),
        "{text}"
    );
    let definition = client.at("textDocument/definition", &uri, (4, 8), json!({}));
    assert_eq!(
        definition["range"],
        json!({"start": {"line": 2, "character": 2}, "end": {"line": 2, "character": 3}})
    );
    // The channel it uses is the script's.
    let definition = client.at("textDocument/definition", &uri, (4, 6), json!({}));
    assert_eq!(
        definition["range"],
        json!({"start": {"line": 0, "character": 8}, "end": {"line": 0, "character": 9}})
    );
    let edit = client.at("textDocument/rename", &uri, (2, 2), json!({"newName": "g"}));
    let edits = edit["changes"][uri.as_str()].as_array().unwrap();
    assert_eq!(edits.len(), 2, "{edits:?}");
    // Not to a name the script declares, as an instance's would not.
    let refused = client.request_raw(
        "textDocument/rename",
        json!({"textDocument": {"uri": uri}, "position": {"line": 2, "character": 2},
               "newName": "c"}),
    );
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(message.contains("`c` is already declared"), "{message}");
    assert!(client.shut_down().success());
}

#[test]
fn a_check_run_from_its_lens_goes_on_beside_edits_and_is_cancelled_from_it() {
    // A hundred million states: it runs until it is cancelled.
    let text = "channel c : {0..2}
Count(n) = n < 100000000 & c.(n % 3) -> Count(n + 1)
assert Count(0) :[deadlock free]
";
    let (_dir, _path, uri, mut client) = opened(text);
    let lenses = |client: &mut Client| {
        client.request(
            "textDocument/codeLens",
            json!({"textDocument": {"uri": uri}}),
        )[0]["command"]
            .clone()
    };
    let run = |client: &mut Client, command: Value| {
        client.request(
            "workspace/executeCommand",
            json!({"command": command["command"], "arguments": command["arguments"]}),
        )
    };
    let check = lenses(&mut client);
    assert_eq!(check["title"], "▶ check");
    run(&mut client, check);
    let running = lenses(&mut client);
    assert!(
        running["title"]
            .as_str()
            .is_some_and(|t| t.starts_with("⏳ checking…") && t.ends_with("(cancel)")),
        "{running}"
    );
    assert_eq!(running["command"], "symcsp.cancel");
    // An edit while it runs is loaded and answered; the assertion's text
    // is the same, so its check goes on.
    client.change(&uri, 2, &format!("{text}Broken = 1 + true\n"));
    let found = client.diagnostics(&uri);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0]["range"]["start"]["line"], 3);
    let hover = client.at("textDocument/hover", &uri, (1, 1), json!({}));
    let shown = hover["contents"]["value"].as_str().unwrap_or_default();
    // Count's dependency group checks: its type is shown beside the error.
    assert!(shown.contains("Count :: (Int) -> Proc"), "{hover}");
    assert_eq!(lenses(&mut client)["command"], "symcsp.cancel");
    // Cancelled from its lens: inconclusive, and the lens offers a run
    // again.
    run(&mut client, running);
    let shown = client.wait_for(|m| m["method"] == "window/showMessage");
    let message = shown["params"]["message"].as_str().unwrap();
    assert!(
        message.starts_with("assert Count(0) :[deadlock free]: ? Inconclusive"),
        "{message}"
    );
    let after = lenses(&mut client);
    assert!(
        after["title"]
            .as_str()
            .is_some_and(|t| t.starts_with("? Inconclusive")),
        "{after}"
    );
    assert_eq!(after["command"], "symcsp.check");
    assert!(client.shut_down().success());
}

#[test]
fn bad_input_is_answered_with_an_error_or_nothing_and_the_server_goes_on() {
    let (dir, path, first, mut client) = opened(SCRIPT);
    // Requests it cannot answer: an error each.
    let wrong = client.request_raw("textDocument/hover", json!({"nope": 1}));
    assert_eq!(wrong["error"]["code"], -32602, "{wrong}");
    let unknown = client.request_raw("symcsp/nothing", json!({}));
    assert_eq!(unknown["error"]["code"], -32601, "{unknown}");
    client.send_raw(br#"{"jsonrpc": "2.0", "id": 900, "params": []}"#);
    let no_method = client.wait_for(|m| m["id"] == 900);
    assert_eq!(no_method["error"]["code"], -32600, "{no_method}");
    // A body that is not JSON: said in the client's log.
    client.send_raw(b"{{{");
    let logged = client.wait_for(|m| m["method"] == "window/logMessage");
    let logged = logged["params"]["message"].as_str().unwrap();
    assert!(
        logged.starts_with("symcsp could not read a message"),
        "{logged}"
    );
    // Positions outside the document: nothing.
    for (method, at) in [
        ("textDocument/hover", (1000, 0)),
        ("textDocument/definition", (2, 500)),
        ("textDocument/hover", (0, u32::MAX)),
    ] {
        assert_eq!(
            client.at(method, &first, at, json!({})),
            Value::Null,
            "{method} {at:?}"
        );
    }
    let elsewhere = "file:///nowhere/unopened.csp";
    let hover = client.at("textDocument/hover", elsewhere, (0, 0), json!({}));
    assert_eq!(hover, Value::Null);

    // A document sent with bytes that are not UTF-8: read as U+FFFD, and
    // the diagnostic is at that character.
    let latin = uri(&dir.path().join("latin.csp"));
    let mut open = format!(
        r#"{{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {{"textDocument": {{"uri": "{latin}", "languageId": "cspm", "version": 1, "text": "channel d : {{0..1}}\nR = d!"#
    )
    .into_bytes();
    open.extend(b"\xff -> STOP\\n\"}}}");
    client.send_raw(&open);
    let found = client.diagnostics(&latin);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(
        found[0]["range"]["start"],
        json!({"line": 1, "character": 6})
    );
    let message = found[0]["message"].as_str().unwrap();
    assert!(message.contains("unexpected character"), "{message}");

    // An include loop: said where it closes.
    let (a, b) = (dir.path().join("a.csp"), dir.path().join("b.csp"));
    std::fs::write(&a, "include \"b.csp\"\nA = STOP\n").unwrap();
    std::fs::write(&b, "include \"a.csp\"\nB = STOP\n").unwrap();
    client.open(&uri(&a), "include \"b.csp\"\nA = STOP\n");
    let in_b = client.diagnostics(&uri(&b));
    assert_eq!(in_b.len(), 1, "{in_b:?}");
    let message = in_b[0]["message"].as_str().unwrap();
    assert!(
        message.starts_with("include cycle: a.csp includes b.csp"),
        "{message}"
    );

    // Files deleted while open: the document's own (its buffer is what
    // is loaded) and a file it includes (said where it is included).
    let part = dir.path().join("part.csp");
    std::fs::write(&part, "Part = STOP\n").unwrap();
    let main = dir.path().join("main.csp");
    let main_text = "include \"part.csp\"\nMain = Part\n";
    std::fs::write(&main, main_text).unwrap();
    client.open(&uri(&main), main_text);
    assert_eq!(client.diagnostics(&uri(&main)), Vec::<Value>::new());
    std::fs::remove_file(&main).unwrap();
    client.change(&uri(&main), 2, main_text);
    assert_eq!(client.diagnostics(&uri(&main)), Vec::<Value>::new());
    std::fs::remove_file(&part).unwrap();
    client.change(&uri(&main), 3, main_text);
    let found = client.diagnostics(&uri(&main));
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0]["range"]["start"]["line"], 0);
    let message = found[0]["message"].as_str().unwrap();
    assert!(message.contains("part.csp"), "{message}");

    // And the first document is still answered.
    std::fs::remove_file(&path).unwrap();
    let hover = client.at("textDocument/hover", &first, (2, 0), json!({}));
    let shown = hover["contents"]["value"].as_str().unwrap_or_default();
    assert!(shown.contains("P :: (Int) -> Proc"), "{hover}");
    assert!(client.shut_down().success());
}

#[test]
fn a_type_error_hides_only_the_types_of_its_own_group() {
    // `Broken` does not check; `Twice`, the channel and `P` are in
    // groups of their own and do; `UsesBroken` and `Alias` use `Broken`,
    // so their types would be guesses.
    let text = "channel c : {0..2}
Twice(x) = 2 * x
Broken = 1 + true
UsesBroken(n) = c!n -> if Broken then STOP else SKIP
P = c!Twice(1) -> P
assert P :[deadlock free]
Alias = Broken
";
    let (_dir, _path, uri, mut client) = opened(text);
    let hover = |client: &mut Client, at: (u32, u32)| {
        let answer = client.at("textDocument/hover", &uri, at, json!({}));
        answer["contents"]["value"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    assert!(hover(&mut client, (1, 1)).contains("Twice :: (Int) -> Int"));
    let channel = hover(&mut client, (0, 8));
    assert!(channel.contains("channel c :: Int=>Event"), "{channel}");
    assert!(hover(&mut client, (4, 0)).contains("P :: Proc"));
    for (at, name) in [
        ((2, 1), "Broken"),
        ((3, 1), "UsesBroken"),
        ((6, 1), "Alias"),
    ] {
        let shown = hover(&mut client, at);
        assert!(
            shown.contains(&format!(
                "{name}: its type is not known while the type errors in its definitions, or in \
                 those it uses, stand"
            )),
            "{shown}"
        );
    }
    // Completion gives each name's type where it is known.
    let items = client.at("textDocument/completion", &uri, (4, 4), json!({}));
    let detail = |label: &str| {
        items
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["label"] == label)
            .map(|i| i["detail"].clone())
    };
    assert_eq!(detail("Twice"), Some(json!("(Int) -> Int")), "{items}");
    assert_eq!(detail("c"), Some(json!("Int=>Event")), "{items}");
    assert_eq!(detail("Broken"), Some(json!("definition")), "{items}");
    // No check can be run.
    let lenses = client.request(
        "textDocument/codeLens",
        json!({"textDocument": {"uri": uri}}),
    );
    assert_eq!(
        lenses,
        json!([]),
        "a script that does not type-check offers no check"
    );
    assert!(client.shut_down().success());
}

#[test]
fn signature_help_shows_the_type_of_the_call_being_written() {
    let text = "channel c : {0..2}
Phil(i, forks) = c!i -> STOP
Sum(x)(y) = x + y
Broken = 1 + true
P = Phil(1, {1})
";
    let (_dir, _path, uri, mut client) = opened(text);
    let text = text.replace("{1})", "{");
    client.change(&uri, 2, &text);
    client.diagnostics(&uri);
    let help = |client: &mut Client, at: (u32, u32)| {
        client.at("textDocument/signatureHelp", &uri, at, json!({}))
    };
    // Inside `Phil(1, {`, half written (the last good load answers for
    // the names: the text is the editor's): the second argument.
    let written = help(&mut client, (4, 12));
    let signature = &written["signatures"][0];
    assert_eq!(signature["label"], "Phil :: (Int, a) -> Proc", "{written}");
    assert_eq!(signature["parameters"][0]["label"], json!([9, 12]));
    assert_eq!(signature["parameters"][1]["label"], json!([14, 15]));
    assert_eq!(written["activeParameter"], 1);
    // A curried function's second bracket, and a built-in.
    let text = format!("{text}1}})\nQ = Sum(1)(2\nN = card({{\n");
    client.change(&uri, 3, &text);
    client.diagnostics(&uri);
    let second = help(&mut client, (6, 13));
    assert_eq!(
        second["signatures"][0]["label"], "Sum :: (Int) -> (Int) -> Int",
        "{second}"
    );
    assert_eq!(
        second["signatures"][0]["parameters"][0]["label"],
        json!([17, 20])
    );
    let builtin = help(&mut client, (7, 10));
    assert_eq!(
        builtin["signatures"][0]["label"], "card :: Eq a => ({a}) -> Int",
        "{builtin}"
    );
    // Outside a call, or in a call of a name whose type is not known:
    // nothing.
    assert_eq!(help(&mut client, (3, 4)), Value::Null);
    client.change(&uri, 4, "Broken = 1 + true\nQ(x) = Broken(x\n");
    client.diagnostics(&uri);
    assert_eq!(help(&mut client, (1, 15)), Value::Null);
    assert!(client.shut_down().success());
}

/// The places a sweep asks at on `line`: the first and last character
/// of each run of one kind (a name, spaces, punctuation), the line's end
/// and one past it. Answers within a run are alike.
fn sweep_columns(line: &str) -> Vec<u32> {
    let kind = |c: char| match c {
        c if c.is_alphanumeric() || c == '_' || c == '\'' => 0,
        c if c.is_whitespace() => 1,
        _ => 2,
    };
    let units: Vec<(u32, u8)> = line
        .chars()
        .scan(0u32, |at, c| {
            let here = *at;
            *at += c.len_utf16() as u32;
            Some((here, kind(c)))
        })
        .collect();
    let end = line.encode_utf16().count() as u32;
    let mut columns = vec![end, end + 1];
    for (i, &(at, k)) in units.iter().enumerate() {
        let first = i == 0 || units[i - 1].1 != k;
        let last = i + 1 == units.len() || units[i + 1].1 != k;
        if first || last {
            columns.push(at);
        }
    }
    columns.sort_unstable();
    columns.dedup();
    columns
}

#[test]
fn every_request_at_every_place_of_every_fixture_is_answered() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    let mut folders = vec![root.join("tests/fixtures"), root.join("models")];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "csp") {
                files.push(path);
            }
        }
    }
    files.sort();
    assert!(files.len() > 200, "{} fixtures", files.len());
    const METHODS: [&str; 6] = [
        "textDocument/hover",
        "textDocument/definition",
        "textDocument/references",
        "textDocument/completion",
        "textDocument/signatureHelp",
        "textDocument/prepareRename",
    ];
    let mut client = Client::start();
    let mut asked = 0;
    for path in &files {
        // Bytes that are not UTF-8 reach the server as the editor would
        // send them: replaced.
        let text = String::from_utf8_lossy(&std::fs::read(path).unwrap()).into_owned();
        let uri = uri(path);
        client.open(&uri, &text);
        client.diagnostics(&uri);
        // All of a file's requests at once, then every answer: each an
        // answer or an error with a code, never nothing.
        let first = client.next_id + 1;
        let symbols = json!({"textDocument": {"uri": uri}});
        client.next_id += 1;
        let id = client.next_id;
        client.send(
            json!({"jsonrpc": "2.0", "id": id, "method": "textDocument/documentSymbol",
                           "params": symbols}),
        );
        for (line, written) in text.split('\n').chain(["", "x"]).enumerate() {
            for column in sweep_columns(written) {
                for method in METHODS {
                    client.next_id += 1;
                    let id = client.next_id;
                    let mut params = json!({"textDocument": {"uri": uri},
                                            "position": {"line": line, "character": column}});
                    if method == "textDocument/references" {
                        params["context"] = json!({"includeDeclaration": true});
                    }
                    client.send(json!({"jsonrpc": "2.0", "id": id, "method": method,
                                       "params": params}));
                }
            }
        }
        for id in first..=client.next_id {
            let answer = client.wait_for(|m| m["id"] == id && m.get("method").is_none());
            let answered =
                answer.get("result").is_some() || answer["error"]["code"].as_i64().is_some();
            assert!(answered, "{}: request {id}: {answer}", path.display());
            asked += 1;
        }
        client.notify(
            "textDocument/didClose",
            json!({"textDocument": {"uri": uri}}),
        );
        // Messages about this file (its diagnostics cleared, a log line)
        // are not waited for.
        client.unread.clear();
    }
    assert!(asked > 100_000, "only {asked} requests");
    assert!(client.shut_down().success());
}

#[test]
fn a_wide_process_is_explored_for_hover_once_a_load() {
    // 2 000 interleaved components: hover's exploration stops at its
    // time; the next hover of the same load gives the same account
    // (worked out once), not one cut at another count of states.
    let text = "channel a : {0..1}\nMany = ||| i : {0..1999} @ a.(i % 2) -> STOP\n";
    let (_dir, _path, uri, mut client) = opened(text);
    let hover = |client: &mut Client| {
        client.at("textDocument/hover", &uri, (1, 1), json!({}))["contents"]["value"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    let first = hover(&mut client);
    assert!(first.contains("2000 components in parallel"), "{first}");
    assert!(first.contains("(stopped at 0.2 s)"), "{first}");
    assert_eq!(hover(&mut client), first);
    assert!(client.shut_down().success());
}

/// The server's resident memory in kB (Linux), read from /proc.
fn resident_kb(client: &Client) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{}/status", client.child.id())).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .expect("VmRSS in /proc/PID/status")
}

#[test]
fn a_thousand_edits_leave_the_server_within_twice_the_memory_of_one_load() {
    if !Path::new("/proc/self/status").exists() {
        eprintln!("no /proc here: the server's memory is not read");
        return;
    }
    // The paper's list stack, every edit a whole load: a line added, a
    // type error made and mended, the text put back.
    let model =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("models/liststack.csp"))
            .unwrap();
    let (_dir, _path, uri, mut client) = opened(&model);
    let one_load = resident_kb(&client);
    for version in 2..1002 {
        let text = match version % 3 {
            0 => format!("{model}\nExtra{version} = STOP\n"),
            1 => format!("{model}\nBroken = 1 + true\n"),
            _ => model.clone(),
        };
        client.change(&uri, version, &text);
        client.diagnostics(&uri);
        client.unread.clear();
    }
    let after = resident_kb(&client);
    assert!(
        after <= 2 * one_load,
        "{after} kB resident after 1 000 edits, {one_load} kB after one load"
    );
    assert!(client.shut_down().success());
}

#[test]
fn an_exit_no_shutdown_asked_for_ends_the_server_with_code_1() {
    let mut client = Client::start();
    client.notify("exit", Value::Null);
    let status = client.child.wait().expect("the server ends");
    assert_eq!(status.code(), Some(1));
}

/// Rename reaches every mention — type annotations at the top and in a
/// `let` included — and refuses a new name that is not a name, or that
/// would change what a mention refers to (checked by loading the renamed
/// script); hover and definition answer on an annotation too.
#[test]
fn rename_covers_annotations_and_refuses_what_would_change_meaning() {
    const ANNOTATED: &str = "channel c : {0..9}\n\
        f :: (Int) -> Int\n\
        f(x) = x + 1\n\
        P = let\n\
        \x20     g :: (Int) -> Int\n\
        \x20     g(y) = y * 2\n\
        \x20   within c!f(g(1)) -> STOP\n\
        Climb = c!1 -> Climb\n\
        Q = let l = 1 within c!l -> Climb\n";
    let (_dir, _path, uri, mut client) = opened(ANNOTATED);
    let places = |edit: &Value| -> Vec<(u64, u64)> {
        let mut found: Vec<_> = edit["changes"][uri.as_str()]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                let start = &e["range"]["start"];
                (
                    start["line"].as_u64().unwrap(),
                    start["character"].as_u64().unwrap(),
                )
            })
            .collect();
        found.sort();
        found
    };
    let edit = client.at(
        "textDocument/rename",
        &uri,
        (2, 0),
        json!({"newName": "inc"}),
    );
    assert_eq!(places(&edit), [(1, 0), (2, 0), (6, 13)]);
    let edit = client.at(
        "textDocument/rename",
        &uri,
        (4, 6),
        json!({"newName": "twice"}),
    );
    assert_eq!(places(&edit), [(4, 6), (5, 6), (6, 15)]);
    let hover = client.at("textDocument/hover", &uri, (1, 0), json!({}));
    let text = hover["contents"]["value"].as_str().unwrap();
    assert!(text.contains("f :: (Int) -> Int"), "{text}");
    let definition = client.at("textDocument/definition", &uri, (1, 0), json!({}));
    assert_eq!(
        definition["range"]["start"],
        json!({"line": 2, "character": 0})
    );
    // Past the end of a line nothing is written: no answer.
    for method in ["textDocument/hover", "textDocument/definition"] {
        assert_eq!(client.at(method, &uri, (0, 9999), json!({})), Value::Null);
        assert_eq!(client.at(method, &uri, (99, 0), json!({})), Value::Null);
    }

    let refusal = |client: &mut Client, at: (u32, u32), name: &str| -> String {
        let answer = client.request_raw(
            "textDocument/rename",
            json!({"textDocument": {"uri": uri}, "position": {"line": at.0, "character": at.1},
                   "newName": name}),
        );
        answer["error"]["message"]
            .as_str()
            .unwrap_or_else(|| panic!("renaming to {name} is refused: {answer}"))
            .to_string()
    };
    // `l` is bound where `Climb` is used in `Q`.
    let message = refusal(&mut client, (7, 0), "l");
    assert!(
        message.contains("renaming `Climb` to `l` would change what the name written at")
            && message.contains(":9:"),
        "{message}"
    );
    for name in ["Ω", "within", "2f", "M::f", "f g"] {
        let message = refusal(&mut client, (2, 0), name);
        assert!(message.contains("is not a CSPM name"), "{name}: {message}");
    }
    // Two definitions of one name in a `let`: an error the script did
    // not have, though it has another (a type error) already.
    client.change(
        &uri,
        2,
        &format!("{ANNOTATED}N = 1 + true\nR = let x = 1\n        y = 2 within c!x+y -> STOP\n"),
    );
    while client.diagnostics(&uri).is_empty() {}
    let message = refusal(&mut client, (11, 8), "x");
    assert!(message.contains("renaming `y` to `x` would"), "{message}");
    let message = refusal(&mut client, (2, 0), "STOP");
    assert!(
        message.contains("renaming `f` to `STOP` would change what `STOP` written at")
            && message.contains(":7:"),
        "{message}"
    );
    assert!(client.shut_down().success());
}

/// Rename across an include: the name's declaration in the included
/// file and its uses in both, and a clash that arises only in the
/// included file is refused; definition on the `include` line opens the
/// file.
#[test]
fn rename_and_definition_reach_into_included_files() {
    let dir = tempfile::tempdir().unwrap();
    let main = dir.path().join("main.csp");
    let part = dir.path().join("part.csp");
    let main_text = "include \"part.csp\"\nQ = P [] b -> STOP\n";
    std::fs::write(&main, main_text).unwrap();
    std::fs::write(&part, "channel a, b\nP = a -> P\nR = let x = 1 within P\n").unwrap();
    let (main_uri, part_uri) = (uri(&main), uri(&part));
    let mut client = Client::start();
    client.open(&main_uri, main_text);
    assert_eq!(client.diagnostics(&main_uri), Vec::<Value>::new());
    // Definition on the `include` line opens the file.
    let definition = client.at("textDocument/definition", &main_uri, (0, 12), json!({}));
    assert_eq!(definition["uri"], part_uri.as_str(), "{definition}");
    assert_eq!(
        definition["range"]["start"],
        json!({"line": 0, "character": 0})
    );
    let edit = client.at(
        "textDocument/rename",
        &main_uri,
        (1, 4),
        json!({"newName": "Loop"}),
    );
    let count = |uri: &str| edit["changes"][uri].as_array().map_or(0, Vec::len);
    assert_eq!((count(&main_uri), count(&part_uri)), (1, 3), "{edit}");
    let refused = client.request_raw(
        "textDocument/rename",
        json!({"textDocument": {"uri": main_uri}, "position": {"line": 1, "character": 4},
               "newName": "x"}),
    );
    let message = refused["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("renaming `P` to `x` would change what the name written at")
            && message.contains("part.csp:3:"),
        "{refused}"
    );
    assert!(client.shut_down().success());
}
