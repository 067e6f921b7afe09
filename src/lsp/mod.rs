//! `symcsp lsp`: a Language Server Protocol server over stdio, on the
//! crates rust-analyzer's server is built on (`lsp-server`,
//! `lsp-types`). It loads each open document as it is edited (on a
//! thread of its own, [`analyse`]) and publishes every parse, name and
//! type diagnostic of the load; answers hover, definition, references,
//! document symbols, rename and completion from the last load
//! ([`navigate`]); and runs assertions from code lenses
//! ([`assertions`]). The server's own thread only routes messages, so
//! no request waits on a load or a check.

// `lsp_types::Uri` caches what it parsed in cells, which clippy takes
// for a mutable key; its hash and equality read only its text, and the
// protocol's own maps (`WorkspaceEdit::changes`) are keyed by it.
#![allow(clippy::mutable_key_type)]

mod analyse;
mod assertions;
mod includes;
mod navigate;
mod process_facts;
mod rename;
mod signature;
pub mod text;
mod transport;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use crossbeam_channel::select;
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::Notification as _;
use lsp_types::request::Request as _;
use lsp_types::{
    CodeLensOptions, CompletionOptions, Diagnostic, DiagnosticRelatedInformation,
    DiagnosticSeverity, ExecuteCommandOptions, HoverProviderCapability, Location, LogMessageParams,
    MessageType, NumberOrString, OneOf, PublishDiagnosticsParams, RenameOptions,
    ServerCapabilities, ServerInfo, ShowMessageParams, SignatureHelpOptions,
    TextDocumentSyncCapability, TextDocumentSyncKind, Uri, WorkspaceEdit, notification as note,
    request as req,
};
use serde_json::{Value, json};

use crate::budget::Live;
use crate::explain::command::shell_word;
use crate::syntax::{self, OpenFiles, Severity};

use analyse::{Analysed, Analyser, Job};
use assertions::Checks;
use navigate::Document;
use text::{file_range, uri_path};

/// Serves the client on standard input and output until it says exit.
pub fn serve_stdio() -> Result<(), String> {
    let (connection, io) = transport::stdio();
    serve(connection)?;
    io.join().map_err(|e| format!("the connection failed: {e}"))
}

/// What the transport said of a message it could not read.
fn unreadable(params: &Value) -> String {
    let reason = params["reason"].as_str().unwrap_or("unknown");
    format!("symcsp could not read a message: {reason}")
}

/// Serves the client at the other end of `connection`.
pub fn serve(connection: Connection) -> Result<(), String> {
    let capabilities = serde_json::to_value(capabilities()).expect("capabilities serialise");
    let initialize = json!({
        "capabilities": capabilities,
        "serverInfo": ServerInfo {
            name: "symcsp".into(),
            version: Some(env!("CARGO_PKG_VERSION").into()),
        },
    });
    let (id, params) = connection
        .initialize_start()
        .map_err(|e| format!("the client did not initialise: {e}"))?;
    let supports = |pointer: &str| params.pointer(pointer).and_then(Value::as_bool);
    let refreshes_lenses = supports("/capabilities/workspace/codeLens/refreshSupport");
    let watches_files =
        supports("/capabilities/workspace/didChangeWatchedFiles/dynamicRegistration");
    connection
        .initialize_finish(id, initialize)
        .map_err(|e| format!("the client did not initialise: {e}"))?;
    let mut server = Server {
        connection: &connection,
        documents: HashMap::new(),
        loaded: HashMap::new(),
        published: HashMap::new(),
        analyser: Analyser::start(),
        checks: Checks::default(),
        refreshes_lenses: refreshes_lenses.unwrap_or(false),
        watches_files: watches_files.unwrap_or(false),
        next_request: 0,
    };
    // `initialize_finish` has read the client's `initialized`.
    server.watch_files();
    server.run()
}

fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Kind(TextDocumentSyncKind::FULL)),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        definition_provider: Some(OneOf::Left(true)),
        references_provider: Some(OneOf::Left(true)),
        document_symbol_provider: Some(OneOf::Left(true)),
        rename_provider: Some(OneOf::Right(RenameOptions {
            prepare_provider: Some(true),
            work_done_progress_options: Default::default(),
        })),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some([".", "?", "!", "["].map(String::from).to_vec()),
            ..CompletionOptions::default()
        }),
        signature_help_provider: Some(SignatureHelpOptions {
            trigger_characters: Some(["(", ","].map(String::from).to_vec()),
            ..SignatureHelpOptions::default()
        }),
        code_lens_provider: Some(CodeLensOptions {
            resolve_provider: Some(false),
        }),
        execute_command_provider: Some(ExecuteCommandOptions {
            commands: ["symcsp.check", "symcsp.cancel", "symcsp.animate"]
                .map(String::from)
                .to_vec(),
            work_done_progress_options: Default::default(),
        }),
        ..ServerCapabilities::default()
    }
}

/// An open document as the editor last sent it.
struct Open {
    path: PathBuf,
    version: i32,
    text: Arc<String>,
    /// Cancels the load of this text, once a later edit arrives.
    live: Arc<Live>,
}

struct Server<'c> {
    connection: &'c Connection,
    documents: HashMap<Uri, Open>,
    /// Each document as last loaded.
    loaded: HashMap<Uri, Analysed>,
    /// The files each document's diagnostics were published for, so that
    /// those no longer with any are cleared.
    published: HashMap<Uri, Vec<Uri>>,
    analyser: Analyser,
    checks: Checks,
    refreshes_lenses: bool,
    /// The client can be asked to watch files ([`Server::watch_files`]).
    watches_files: bool,
    next_request: i32,
}

impl Server<'_> {
    fn run(&mut self) -> Result<(), String> {
        let receiver = self.connection.receiver.clone();
        let loads = self.analyser.done.clone();
        let checks = self.checks.done.clone();
        loop {
            select! {
                recv(receiver) -> message => match message {
                    Ok(Message::Request(request)) => {
                        if self
                            .connection
                            .handle_shutdown(&request)
                            .map_err(|e| format!("shutting down: {e}"))?
                        {
                            return Ok(());
                        }
                        self.request(request);
                    }
                    Ok(Message::Notification(notification)) => {
                        // The protocol's exit code 1: an exit that no
                        // shutdown asked for.
                        if notification.method == note::Exit::METHOD {
                            return Err("the client asked to exit without shutting down first".into());
                        }
                        self.notification(notification);
                    }
                    Ok(Message::Response(_)) => {}
                    Err(_) => return Ok(()),
                },
                recv(loads) -> analysed => {
                    if let Ok(analysed) = analysed {
                        self.loaded_document(analysed);
                    }
                }
                recv(checks) -> finished => {
                    if let Ok(finished) = finished {
                        self.checked(finished);
                    }
                }
            }
        }
    }

    fn send(&self, message: impl Into<Message>) {
        // The client gone, the next receive ends the loop.
        let _ = self.connection.sender.send(message.into());
    }

    fn notify<N: lsp_types::notification::Notification>(&self, params: N::Params) {
        self.send(Notification::new(N::METHOD.to_string(), params));
    }

    fn show(&self, kind: MessageType, message: String) {
        self.notify::<note::ShowMessage>(ShowMessageParams { typ: kind, message });
    }

    // ------------------------------------------------------ documents

    fn notification(&mut self, notification: Notification) {
        match notification.method.as_str() {
            note::DidOpenTextDocument::METHOD => {
                if let Ok(p) = notification.extract::<lsp_types::DidOpenTextDocumentParams>(
                    note::DidOpenTextDocument::METHOD,
                ) {
                    let document = p.text_document;
                    self.edited(document.uri, document.version, document.text);
                }
            }
            note::DidChangeTextDocument::METHOD => {
                if let Ok(p) = notification.extract::<lsp_types::DidChangeTextDocumentParams>(
                    note::DidChangeTextDocument::METHOD,
                ) && let Some(change) = p.content_changes.into_iter().last()
                {
                    self.edited(p.text_document.uri, p.text_document.version, change.text);
                }
            }
            note::DidChangeWatchedFiles::METHOD => {
                if let Ok(p) = notification.extract::<lsp_types::DidChangeWatchedFilesParams>(
                    note::DidChangeWatchedFiles::METHOD,
                ) {
                    self.files_changed(p.changes);
                }
            }
            note::DidCloseTextDocument::METHOD => {
                if let Ok(p) = notification.extract::<lsp_types::DidCloseTextDocumentParams>(
                    note::DidCloseTextDocument::METHOD,
                ) {
                    let uri = p.text_document.uri;
                    if let Some(open) = self.documents.remove(&uri) {
                        open.live.cancel();
                    }
                    self.loaded.remove(&uri);
                    self.checks.forget(&uri);
                    for file in self.published.remove(&uri).unwrap_or_default() {
                        self.publish(file, Vec::new());
                    }
                }
            }
            transport::UNREADABLE => self.notify::<note::LogMessage>(LogMessageParams {
                typ: MessageType::ERROR,
                message: unreadable(&notification.params),
            }),
            _ => {}
        }
    }

    /// A document opened or changed: its load is queued, any earlier
    /// one cancelled, and the documents including it loaded again.
    fn edited(&mut self, uri: Uri, version: i32, text: String) {
        let path = uri_path(&uri).unwrap_or_else(|| {
            // An unsaved buffer: includes resolve against the folder the
            // server runs in.
            PathBuf::from(
                uri.as_str()
                    .rsplit(['/', ':'])
                    .next()
                    .unwrap_or("untitled.csp"),
            )
        });
        if let Some(earlier) = self.documents.get(&uri) {
            earlier.live.cancel();
        }
        let open = Open {
            path,
            version,
            text: Arc::new(text),
            live: Arc::new(Live::default()),
        };
        self.documents.insert(uri.clone(), open);
        self.queue(&uri);
        // The open documents that include this one see the edit too.
        let path = self.documents[&uri].path.clone();
        self.reload_includers(&path, Some(&uri));
    }

    /// Loads again every open document (but `except`) whose last load
    /// included the file at `path`, cancelling a load under way.
    fn reload_includers(&mut self, path: &std::path::Path, except: Option<&Uri>) {
        let canonical = path.canonicalize().ok();
        let includers: Vec<Uri> = self
            .loaded
            .iter()
            .filter(|(other, analysed)| {
                Some(*other) != except
                    && analysed.analysis.sources().files().skip(1).any(|(_, f)| {
                        f.path.as_ref().and_then(|p| p.canonicalize().ok()) == canonical
                    })
            })
            .map(|(other, _)| other.clone())
            .collect();
        for other in includers {
            if let Some(open) = self.documents.get_mut(&other) {
                open.live.cancel();
                open.live = Arc::new(Live::default());
            }
            self.queue(&other);
        }
    }

    /// Files changed on disk (the client watches `**/*.csp`): the open
    /// documents that include one that is not open itself are loaded
    /// again (an open file's text is the editor's, not the disk's).
    fn files_changed(&mut self, changes: Vec<lsp_types::FileEvent>) {
        for change in changes {
            if self.documents.contains_key(&change.uri) {
                continue;
            }
            if let Some(path) = uri_path(&change.uri) {
                self.reload_includers(&path, None);
            }
        }
    }

    fn queue(&self, uri: &Uri) {
        let Some(open) = self.documents.get(uri) else {
            return;
        };
        let others: OpenFiles = self
            .documents
            .iter()
            .filter(|(other, _)| *other != uri)
            .filter_map(|(_, o)| Some((o.path.canonicalize().ok()?, o.text.to_string())))
            .collect();
        self.analyser.send(Job {
            uri: uri.clone(),
            path: open.path.clone(),
            version: open.version,
            text: open.text.clone(),
            open: others,
            live: open.live.clone(),
            sent: std::time::Instant::now(),
        });
    }

    /// A load finished: its diagnostics are published and it answers
    /// requests from now on.
    fn loaded_document(&mut self, analysed: Analysed) {
        let Some(open) = self.documents.get(&analysed.uri) else {
            return;
        };
        if open.version != analysed.version {
            return;
        }
        let mut by_file: HashMap<Uri, Vec<Diagnostic>> = HashMap::new();
        let blank = analysed.text.trim().is_empty();
        let sources = analysed.analysis.sources();
        let found = &analysed.analysis.diagnostics;
        let summaries = includes::summaries(sources, found);
        for d in found.iter().chain(&summaries).filter(|_| !blank) {
            let (uri, diagnostic) = diagnostic(&analysed.uri, sources, d);
            by_file.entry(uri).or_default().push(diagnostic);
        }
        if let Some(stopped) = analysed.analysis.stopped {
            by_file
                .entry(analysed.uri.clone())
                .or_default()
                .push(Diagnostic {
                    severity: Some(DiagnosticSeverity::WARNING),
                    source: Some("symcsp".into()),
                    message: stopped.sentence(),
                    ..Diagnostic::default()
                });
        }
        by_file.entry(analysed.uri.clone()).or_default();
        let files: Vec<Uri> = by_file.keys().cloned().collect();
        for old in self.published.remove(&analysed.uri).unwrap_or_default() {
            if !by_file.contains_key(&old) {
                self.publish(old, Vec::new());
            }
        }
        for (file, diagnostics) in by_file {
            self.publish(file, diagnostics);
        }
        self.published.insert(analysed.uri.clone(), files);
        // A load that did not get as far as names keeps the last one that
        // did answering requests: completion goes on while a line is
        // half written.
        let keeps_names = analysed.analysis.script.is_some()
            || self
                .loaded
                .get(&analysed.uri)
                .is_none_or(|last| last.analysis.script.is_none());
        if keeps_names {
            // The load it replaces is freed by the loading thread, before
            // it builds the next.
            if let Some(replaced) = self.loaded.insert(analysed.uri.clone(), analysed) {
                self.analyser.retire(replaced);
            }
            self.refresh_lenses();
        }
    }

    fn publish(&self, uri: Uri, diagnostics: Vec<Diagnostic>) {
        self.notify::<note::PublishDiagnostics>(PublishDiagnosticsParams {
            uri,
            diagnostics,
            version: None,
        });
    }

    /// Asks the client to tell of changes to CSPM files on disk, when it
    /// can be asked (an included file saved by another program, or by
    /// the editor without being open, changes the documents including it).
    fn watch_files(&mut self) {
        if !self.watches_files {
            return;
        }
        let registration = lsp_types::Registration {
            id: "symcsp-watch-csp".into(),
            method: note::DidChangeWatchedFiles::METHOD.into(),
            register_options: serde_json::to_value(
                lsp_types::DidChangeWatchedFilesRegistrationOptions {
                    watchers: vec![lsp_types::FileSystemWatcher {
                        glob_pattern: lsp_types::GlobPattern::String("**/*.csp".into()),
                        kind: None,
                    }],
                },
            )
            .ok(),
        };
        self.next_request += 1;
        let id = RequestId::from(format!("symcsp-{}", self.next_request));
        self.send(Request::new(
            id,
            req::RegisterCapability::METHOD.to_string(),
            lsp_types::RegistrationParams {
                registrations: vec![registration],
            },
        ));
    }

    fn refresh_lenses(&mut self) {
        if self.refreshes_lenses {
            self.next_request += 1;
            let id = RequestId::from(format!("symcsp-{}", self.next_request));
            self.send(Request::new(
                id,
                req::CodeLensRefresh::METHOD.to_string(),
                (),
            ));
        }
    }

    // ------------------------------------------------------ requests

    fn request(&mut self, request: Request) {
        let id = request.id.clone();
        let result = self.answer(request);
        self.send(match result {
            Ok(value) => Response::new_ok(id, value),
            Err((code, message)) => Response::new_err(id, code as i32, message),
        });
    }

    fn answer(&mut self, request: Request) -> Result<Value, (ErrorCode, String)> {
        let method = request.method.clone();
        let params = request.params;
        let bad = |e: serde_json::Error| (ErrorCode::InvalidParams, e.to_string());
        let to = |value: serde_json::Result<Value>| value.map_err(bad);
        match method.as_str() {
            req::HoverRequest::METHOD => {
                let p: lsp_types::HoverParams = serde_json::from_value(params).map_err(bad)?;
                let at = p.text_document_position_params;
                let hover = self.document(&at.text_document.uri, |d| d.hover(at.position));
                to(serde_json::to_value(hover.flatten()))
            }
            req::GotoDefinition::METHOD => {
                let p: lsp_types::GotoDefinitionParams =
                    serde_json::from_value(params).map_err(bad)?;
                let at = p.text_document_position_params;
                let found = self.document(&at.text_document.uri, |d| d.definition(at.position));
                to(serde_json::to_value(found.flatten()))
            }
            req::References::METHOD => {
                let p: lsp_types::ReferenceParams = serde_json::from_value(params).map_err(bad)?;
                let at = p.text_document_position;
                let found: Option<Vec<Location>> = self.document(&at.text_document.uri, |d| {
                    d.references(at.position, p.context.include_declaration)
                });
                to(serde_json::to_value(found.unwrap_or_default()))
            }
            req::DocumentSymbolRequest::METHOD => {
                let p: lsp_types::DocumentSymbolParams =
                    serde_json::from_value(params).map_err(bad)?;
                let symbols = self.document(&p.text_document.uri, |d| d.symbols());
                to(serde_json::to_value(symbols.unwrap_or_default()))
            }
            req::PrepareRenameRequest::METHOD => {
                let p: lsp_types::TextDocumentPositionParams =
                    serde_json::from_value(params).map_err(bad)?;
                let range = self.document(&p.text_document.uri, |d| d.prepare_rename(p.position));
                to(serde_json::to_value(range.flatten()))
            }
            req::Rename::METHOD => {
                let p: lsp_types::RenameParams = serde_json::from_value(params).map_err(bad)?;
                let at = p.text_document_position;
                let edits = self
                    .document(&at.text_document.uri, |d| {
                        d.rename(at.position, &p.new_name)
                    })
                    .unwrap_or_else(|| Err("the document has not loaded yet".into()))
                    .map_err(|message| (ErrorCode::RequestFailed, message))?;
                to(serde_json::to_value(WorkspaceEdit::new(edits)))
            }
            req::Completion::METHOD => {
                let p: lsp_types::CompletionParams = serde_json::from_value(params).map_err(bad)?;
                let at = p.text_document_position;
                let uri = &at.text_document.uri;
                let current = self.documents.get(uri).map(|o| o.text.clone());
                let current = current.as_deref().map_or("", String::as_str);
                let items = navigate::assertion_options(current, at.position)
                    .or_else(|| self.document(uri, |d| d.completion(current, at.position)));
                to(serde_json::to_value(items.unwrap_or_default()))
            }
            req::SignatureHelpRequest::METHOD => {
                let p: lsp_types::SignatureHelpParams =
                    serde_json::from_value(params).map_err(bad)?;
                let at = p.text_document_position_params;
                let uri = &at.text_document.uri;
                let current = self.documents.get(uri).map(|o| o.text.clone());
                let current = current.as_deref().map_or("", String::as_str);
                let offset = text::offset(current, at.position);
                let help = self.document(uri, |d| d.signature_help(current, offset));
                to(serde_json::to_value(help.flatten()))
            }
            req::CodeLensRequest::METHOD => {
                let p: lsp_types::CodeLensParams = serde_json::from_value(params).map_err(bad)?;
                let uri = p.text_document.uri;
                // A script that does not type-check offers no check to
                // start, but those running or done keep their lenses
                // (one running can still be cancelled).
                let analysis = self.loaded.get(&uri).map(|a| &a.analysis);
                let lenses =
                    match analysis.and_then(|a| Some((a.script.as_ref()?, a.type_checks()))) {
                        Some((script, typed)) => self.checks.lenses(&uri, script, typed),
                        None => Vec::new(),
                    };
                to(serde_json::to_value(lenses))
            }
            req::ExecuteCommand::METHOD => {
                let p: lsp_types::ExecuteCommandParams =
                    serde_json::from_value(params).map_err(bad)?;
                self.command(&p.command, &p.arguments)
                    .map_err(|message| (ErrorCode::RequestFailed, message))
            }
            transport::UNREADABLE => Err((ErrorCode::InvalidRequest, unreadable(&params))),
            _ => Err((
                ErrorCode::MethodNotFound,
                format!("symcsp does not answer `{method}`"),
            )),
        }
    }

    /// `work` on the document at `uri` as last loaded, if its names
    /// resolved.
    fn document<T>(&mut self, uri: &Uri, work: impl FnOnce(&mut Document) -> T) -> Option<T> {
        let analysed = self.loaded.get_mut(uri)?;
        let mut document = Document::of(analysed)?;
        Some(work(&mut document))
    }

    // ------------------------------------------------------ assertions

    /// `symcsp.check URI N`, `symcsp.cancel URI N TEXT`, `symcsp.animate
    /// URI N TEXT PROCESS TRACE`: what the lenses run.
    fn command(&mut self, command: &str, arguments: &[Value]) -> Result<Value, String> {
        let uri: Uri = arguments
            .first()
            .and_then(Value::as_str)
            .and_then(|s| s.parse().ok())
            .ok_or("the command's first argument is the document's URI")?;
        let number = arguments.get(1).and_then(Value::as_u64).unwrap_or(0) as usize;
        let text = arguments.get(2).and_then(Value::as_str).unwrap_or_default();
        match command {
            "symcsp.check" => {
                let script = match self.loaded.get(&uri).map(|a| &a.analysis) {
                    Some(analysis) if analysis.type_checks() => analysis.script.clone(),
                    _ => None,
                }
                .ok_or("the script does not load: mend its errors first")?;
                self.checks.start(&uri, script, number)?;
                self.refresh_lenses();
                Ok(Value::Null)
            }
            "symcsp.cancel" => {
                self.checks.cancel(&uri, text);
                Ok(Value::Null)
            }
            "symcsp.animate" => {
                let path = uri_path(&uri).ok_or("the document is not a file")?;
                let process = arguments.get(3).and_then(Value::as_str).unwrap_or_default();
                let trace = arguments.get(4).and_then(Value::as_str).unwrap_or_default();
                let mut argv = vec![
                    "symcsp".to_string(),
                    path.display().to_string(),
                    "--process".into(),
                    process.to_string(),
                ];
                if !trace.is_empty() {
                    argv.extend(["--after".to_string(), trace.to_string()]);
                }
                let line = argv
                    .iter()
                    .map(|a| shell_word(a))
                    .collect::<Vec<_>>()
                    .join(" ");
                self.show(
                    MessageType::INFO,
                    format!("run in a terminal to animate the counterexample: {line}"),
                );
                Ok(json!({ "argv": argv, "commandLine": line }))
            }
            _ => Err(format!("symcsp has no command `{command}`")),
        }
    }

    fn checked(&mut self, finished: assertions::Finished) {
        let message = finished.outcome.message.clone();
        let assertion = finished.assertion.clone();
        if self.checks.finish(finished) {
            let kind = match message.starts_with('✓') {
                true => MessageType::INFO,
                false => MessageType::WARNING,
            };
            self.show(kind, format!("{assertion}: {message}"));
            self.refresh_lenses();
        }
    }
}

/// A diagnostic as the protocol has it, with the file it is in: the
/// document's own URI for its own file.
fn diagnostic(
    document: &Uri,
    sources: &syntax::SourceMap,
    d: &syntax::Diagnostic,
) -> (Uri, Diagnostic) {
    // A place in a file with no path is shown on the document itself.
    let locate = |span| {
        text::location(document, sources, span).map_or_else(
            || (document.clone(), file_range(sources, span).1),
            |at| (at.uri, at.range),
        )
    };
    let (uri, range) = d
        .span
        .map_or((document.clone(), Default::default()), locate);
    let related: Vec<DiagnosticRelatedInformation> = d
        .secondary
        .iter()
        .map(|&(span, ref label)| {
            let (uri, range) = locate(span);
            DiagnosticRelatedInformation {
                location: Location::new(uri, range),
                message: label.clone(),
            }
        })
        .collect();
    let mut message = d.message.clone();
    for n in &d.notes {
        message.push_str(&format!("\nnote: {n}"));
    }
    let severity = match d.severity {
        Severity::Error => DiagnosticSeverity::ERROR,
        Severity::Warning => DiagnosticSeverity::WARNING,
        Severity::Note => DiagnosticSeverity::INFORMATION,
    };
    let diagnostic = Diagnostic {
        range,
        severity: Some(severity),
        code: None::<NumberOrString>,
        source: Some("symcsp".into()),
        message,
        related_information: (!related.is_empty()).then_some(related),
        ..Diagnostic::default()
    };
    (uri, diagnostic)
}
