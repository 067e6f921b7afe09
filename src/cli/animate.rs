//! `symcsp [FILE] [--process EXPR] [--after EVENTS]` and `symcsp
//! --session FILE`: the animator in the terminal; where there is no
//! terminal (a pipe, CI), a short account of the script instead.

use std::io::Write;
use std::path::Path;

use super::limits::AnimatorLimits;
use super::{EXIT_INPUT_ERROR, say, summary};
use crate::builtin::LISTSTACK;
use crate::symmetry::strategy::Strategy;
use crate::tui::app::{App, Start};
use crate::tui::config::Config;
use crate::tui::model::Source;
use crate::tui::session::Session;
use crate::tui::terminal;

/// What the animator is asked to open.
pub(super) struct Request<'a> {
    pub file: Option<&'a Path>,
    pub process: Option<String>,
    pub session: Option<&'a Path>,
    pub symmetry: Option<String>,
    /// `--strategy`: how representatives are found.
    pub strategy: Strategy,
    /// `--after`: the trace to follow from the initial state.
    pub after: Option<String>,
}

pub(super) fn run(
    request: Request,
    limits: &AnimatorLimits,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> u8 {
    let session = match request
        .session
        .map(|path| Session::read(path).map(|s| (s, path)))
    {
        Some(Err(e)) => {
            say(err, &format!("error: {e}\n"));
            return EXIT_INPUT_ERROR;
        }
        Some(Ok(found)) => Some(found),
        None => None,
    };
    if !terminal::available() {
        let session = session.as_ref().map(|(session, _)| session);
        return without_a_terminal(&request, session, limits, out, err);
    }
    let Request {
        file,
        process,
        session: _,
        symmetry,
        strategy,
        after,
    } = request;
    // A script that cannot be opened at all is a slip in the command,
    // not a script to mend in the animator and reload: said and left,
    // as the other commands do.
    if let Some(path) = file
        && let Some(reason) = crate::syntax::unreadable(path)
    {
        say(
            err,
            &format!("error: cannot read `{}`: {reason}\n", path.display()),
        );
        return EXIT_INPUT_ERROR;
    }
    // A spill folder the checks could not write to is said before the
    // screen opens, as `check` says it before it loads.
    if let Err(problem) = limits.disk.spill() {
        say(err, &format!("error: {problem}\n"));
        return EXIT_INPUT_ERROR;
    }
    let no_colour = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let config = Config::load(Config::directory().as_deref(), no_colour);
    let source = match file {
        Some(path) => Source::File(path.to_path_buf()),
        None => Source::Builtin(LISTSTACK),
    };
    // Evaluation recurses: the whole animator runs on a large stack.
    let limits = limits.clone();
    let outcome = crate::stack::with_large_stack(move || {
        let mut app = match session {
            Some((session, path)) => {
                let strategy = (strategy != Strategy::Fdr).then_some(strategy);
                App::from_session_as(&session, path.to_path_buf(), (symmetry, strategy), config)?
            }
            None => App::start(
                source,
                Start {
                    process,
                    symmetry,
                    session: None,
                    after,
                    strategy,
                    ..Start::default()
                },
                config,
            ),
        };
        app.budget = limits.budget(app.budget);
        terminal::run(app).map_err(|e| format!("the terminal failed: {e}"))
    });
    match outcome {
        Ok(farewell) => {
            for line in farewell {
                say(err, &format!("{line}\n"));
            }
            0
        }
        Err(e) => {
            say(err, &format!("error: {e}\n"));
            EXIT_INPUT_ERROR
        }
    }
}

/// Without a terminal there is no animator: the script's summary, after
/// a note for each option given that only the animator reads.
fn without_a_terminal(
    request: &Request,
    session: Option<&Session>,
    limits: &AnimatorLimits,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> u8 {
    let described = match session {
        Some(s) => match s.source() {
            Ok(Source::File(path)) => Some(path),
            Ok(Source::Builtin(_)) => None,
            Err(e) => {
                say(err, &format!("error: {e}\n"));
                return EXIT_INPUT_ERROR;
            }
        },
        None => request.file.map(Path::to_path_buf),
    };
    if let Some(process) = &request.process {
        say(
            err,
            &format!(
                "note: --process is for the animator, which needs a terminal: here is the \
                 script's summary (`symcsp explore FILE '{process}'` explores the process)\n"
            ),
        );
    }
    if request.symmetry.is_some() {
        say(
            err,
            "note: --symmetry is for the animator, which needs a terminal (`symcsp rep FILE \
             --symmetry T` shows a state's representative)\n",
        );
    }
    if let Some(after) = &request.after {
        say(
            err,
            &format!(
                "note: --after is for the animator, which needs a terminal (`symcsp rep \
                 FILE --after '{after}'` shows the state it leads to)\n"
            ),
        );
    }
    if limits.given() {
        say(
            err,
            "note: the budget options are for checks run from the animator, which needs a \
             terminal (`symcsp check FILE` takes them too)\n",
        );
    }
    summary::run(described.as_deref(), out, err)
}
