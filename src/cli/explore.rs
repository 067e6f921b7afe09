//! `symcsp explore FILE PROCESS`: explores the state space of any process
//! expression in FILE's scope breadth first and reports its size, plain
//! or as JSON; optionally draws a small LTS as Graphviz DOT. With
//! `--symmetry`, the states are representatives of symmetry classes (the
//! reduced state space, and its drawing). Exit 0 when the exploration
//! completed, 3 when the budget stopped it, 2 on an error.

use std::io::Write;
use std::path::Path;

use serde::Serialize;

use super::symmetry::{SymmetryReport, not_mappable, requested, symmetry};
use super::{EXIT_INCONCLUSIVE, EXIT_INPUT_ERROR, Format, load, say};
use crate::lts::machine::Machine;
use crate::lts::{self, Budget, Exploration};
use crate::process::Processes;
use crate::symmetry::spec::Reduce;
use crate::symmetry::{Symmetry, SystemSymmetry};
use crate::syntax::render_all;

/// The most states `--dot` draws.
pub const DOT_LIMIT: usize = 2_000;

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
    /// `--symmetry auto|off|T,U`.
    pub symmetry: Option<&'a str>,
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
    /// What the states were reduced by (`null`: they are states, not
    /// representatives).
    symmetry: Option<SymmetryReport>,
}

pub(super) fn run(request: &Request, out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    let Some(mut script) = load(request.file, err) else {
        return EXIT_INPUT_ERROR;
    };
    let func = match script.add_expr("<process>", request.process) {
        Ok(func) => func,
        Err(diagnostics) => {
            say(err, &render_all(&diagnostics, &script.sources));
            return EXIT_INPUT_ERROR;
        }
    };
    let asked = match request.symmetry.map(|text| requested(&mut script, text)) {
        None => Reduce::Off,
        Some(Ok(asked)) => asked,
        Some(Err(problem)) => {
            say(err, &problem);
            return EXIT_INPUT_ERROR;
        }
    };
    if request.engine == Engine::Terms && !matches!(asked, Reduce::Off) {
        say(
            err,
            "error: --engine terms explores without symmetry reduction (it is the independent \
             cross-check); drop --symmetry or the engine\n",
        );
        return EXIT_INPUT_ERROR;
    }
    let script = &script;
    let budget = Budget {
        max_states: request.max_states,
        threads: request.threads.unwrap_or(Budget::default().threads),
        ..Budget::default()
    };
    // The DOT text is `Some(None)` when the LTS is too big to draw; the
    // symmetry when the states are representatives.
    type Found = (Exploration, Option<Option<String>>, Option<Symmetry>);
    let outcome = crate::stack::with_large_stack(|| -> Result<Found, String> {
        let render = |e: crate::eval::EvalError| e.to_diagnostic().render(&script.sources);
        let (mut procs, root) = Processes::with_root(script, func).map_err(render)?;
        let symmetry = symmetry(script, procs.evaluator(), &asked, &[func])?;
        let reduced = |procs: &mut Processes, machine: &mut Machine| match &symmetry {
            Some(s) => SystemSymmetry::new(std::sync::Arc::new(s.clone()), machine, procs)
                .map(Some)
                .map_err(|refusal| not_mappable(script, func, s, &refusal)),
            None => Ok(None),
        };
        let exploration = match request.engine {
            Engine::Supercombinator => {
                let mut machine = Machine::new(&mut procs, root);
                let mut system = reduced(&mut procs, &mut machine)?;
                let canonicaliser = system
                    .as_mut()
                    .map(|s| s as &mut dyn lts::search::Canonicaliser);
                lts::explore_machine(&mut procs, machine, &budget, canonicaliser).map_err(render)?
            }
            Engine::Terms => {
                lts::plain::explore_terms(&mut procs, root, &budget).map_err(render)?
            }
        };
        let dot = match request.dot {
            Some(_) => {
                // The drawing's own machine, reduced alike.
                let mut machine = Machine::new(&mut procs, root);
                let mut system = reduced(&mut procs, &mut machine)?;
                let canonicaliser = system
                    .as_mut()
                    .map(|s| s as &mut dyn lts::search::Canonicaliser);
                Some(
                    lts::graph::graph_machine(&mut procs, machine, DOT_LIMIT, canonicaliser)
                        .map_err(render)?
                        .map(|g| g.to_dot(&procs)),
                )
            }
            None => None,
        };
        Ok((exploration, dot, symmetry))
    });
    let (exploration, dot, reduced) = match outcome {
        Ok(found) => found,
        Err(problem) => {
            say(err, &problem);
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
                symmetry: reduced
                    .as_ref()
                    .map(|s| SymmetryReport::of_exploration(s, &exploration)),
            };
            let text = serde_json::to_string(&report).expect("a report serialises");
            say(out, &format!("{text}\n"));
        }
        Format::Plain => say(out, &plain(request, &exploration, reduced.as_ref())),
    }
    if exploration.complete {
        0
    } else {
        EXIT_INCONCLUSIVE
    }
}

fn plain(request: &Request, x: &Exploration, reduced: Option<&Symmetry>) -> String {
    let rate = if x.seconds > 0.0 {
        format!(" ({:.0} states/s)", x.states as f64 / x.seconds)
    } else {
        String::new()
    };
    let mut text = format!(
        "process          {}\nstates           {}\ntransitions      {}\ndeadlock states  {}\ncomponents       {}\ntime             {:.3} s{rate}\n",
        request.process, x.states, x.transitions, x.deadlock_states, x.components, x.seconds
    );
    if let Some(symmetry) = reduced {
        let types = if symmetry.types().is_empty() {
            "no type to permute".to_string()
        } else {
            symmetry
                .types()
                .iter()
                .map(|t| format!("{} ({})", t.name, t.values.len()))
                .collect::<Vec<_>>()
                .join(", ")
        };
        text.push_str(&format!(
            "symmetry         {types} — group order {}: the states are representatives of \
             symmetry classes\n",
            symmetry.group_order().value()
        ));
    }
    if !x.complete {
        text.push_str(&format!(
            "incomplete       stopped at the budget of {} states (--max-states); the counts are a lower bound\n",
            request.max_states.unwrap_or_default()
        ));
    }
    text
}
