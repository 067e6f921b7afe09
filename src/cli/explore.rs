//! `symcsp explore FILE PROCESS`: explores the state space of any process
//! expression in FILE's scope breadth first and reports its size, plain
//! or as JSON; optionally draws a small LTS as Graphviz DOT. Exit 0 when
//! the exploration completed, 3 when the budget stopped it, 2 on an error.

use std::io::Write;
use std::path::Path;

use serde::Serialize;

use super::{EXIT_INCONCLUSIVE, EXIT_INPUT_ERROR, say};
use crate::lts::{self, Budget, Exploration};
use crate::process::Processes;
use crate::script::Script;
use crate::syntax::render_all;

/// The most states `--dot` draws.
pub const DOT_LIMIT: usize = 2_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Plain,
    Json,
}

/// Which of the two independent paths computes the state space.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Engine {
    /// Components and an operator tree over them (the fast path).
    Supercombinator,
    /// The whole process as one term (the cross-check).
    Terms,
}

pub struct Request<'a> {
    pub file: &'a Path,
    pub process: &'a str,
    pub format: Format,
    pub engine: Engine,
    pub max_states: Option<usize>,
    pub threads: Option<usize>,
    pub dot: Option<&'a Path>,
}

#[derive(Serialize)]
struct Report<'a> {
    process: &'a str,
    states: u64,
    transitions: u64,
    deadlock_states: u64,
    components: usize,
    seconds: f64,
    complete: bool,
}

pub(super) fn run(request: &Request, out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    let mut script = match Script::load_file(request.file) {
        Ok(script) => script,
        Err(e) => {
            say(err, &e.render());
            return EXIT_INPUT_ERROR;
        }
    };
    let func = match script.add_expr("<process>", request.process) {
        Ok(func) => func,
        Err(diagnostics) => {
            say(err, &render_all(&diagnostics, &script.sources));
            return EXIT_INPUT_ERROR;
        }
    };
    let script = &script;
    let budget = Budget {
        max_states: request.max_states,
        threads: request.threads.unwrap_or(Budget::default().threads),
        ..Budget::default()
    };
    // The DOT text is `Some(None)` when the LTS is too big to draw.
    type Found = (Exploration, Option<Option<String>>);
    let outcome = crate::stack::with_large_stack(|| -> Result<Found, crate::eval::EvalError> {
        let (mut procs, root) = Processes::with_root(script, func)?;
        let exploration = match request.engine {
            Engine::Supercombinator => lts::explore(&mut procs, root, &budget)?,
            Engine::Terms => lts::plain::explore_terms(&mut procs, root, &budget)?,
        };
        let dot = match request.dot {
            Some(_) => Some(
                lts::graph::graph(&mut procs, root, DOT_LIMIT, None)?.map(|g| g.to_dot(&procs)),
            ),
            None => None,
        };
        Ok((exploration, dot))
    });
    let (exploration, dot) = match outcome {
        Ok(found) => found,
        Err(e) => {
            say(err, &e.to_diagnostic().render(&script.sources));
            return EXIT_INPUT_ERROR;
        }
    };
    if let (Some(path), Some(text)) = (request.dot, dot) {
        let Some(text) = text else {
            say(
                err,
                &format!(
                    "symcsp: not writing {}: the LTS has more than {DOT_LIMIT} states, too many to draw\n",
                    path.display()
                ),
            );
            return EXIT_INPUT_ERROR;
        };
        if let Err(e) = crate::files::write_atomically(path, text.as_bytes()) {
            say(
                err,
                &format!("symcsp: cannot write {}: {e}\n", path.display()),
            );
            return EXIT_INPUT_ERROR;
        }
    }
    match request.format {
        Format::Json => {
            let report = Report {
                process: request.process,
                states: exploration.states,
                transitions: exploration.transitions,
                deadlock_states: exploration.deadlock_states,
                components: exploration.components,
                seconds: exploration.seconds,
                complete: exploration.complete,
            };
            let text = serde_json::to_string(&report).expect("a report serialises");
            say(out, &format!("{text}\n"));
        }
        Format::Plain => say(out, &plain(request, &exploration)),
    }
    if exploration.complete {
        0
    } else {
        EXIT_INCONCLUSIVE
    }
}

fn plain(request: &Request, x: &Exploration) -> String {
    let rate = if x.seconds > 0.0 {
        format!(" ({:.0} states/s)", x.states as f64 / x.seconds)
    } else {
        String::new()
    };
    let mut text = format!(
        "process          {}\nstates           {}\ntransitions      {}\ndeadlock states  {}\ncomponents       {}\ntime             {:.3} s{rate}\n",
        request.process, x.states, x.transitions, x.deadlock_states, x.components, x.seconds
    );
    if !x.complete {
        text.push_str(&format!(
            "incomplete       stopped at the budget of {} states (--max-states); the counts are a lower bound\n",
            request.max_states.unwrap_or_default()
        ));
    }
    text
}
