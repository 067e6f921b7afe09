//! `symcsp explore FILE PROCESS`: explores the state space of any process
//! expression in FILE's scope breadth first and reports its size, plain
//! or as JSON; optionally draws a small LTS as Graphviz DOT (a larger one
//! is counted and the drawing skipped, with a note). With `--symmetry`,
//! the states are representatives of symmetry classes (the reduced state
//! space, and its drawing). Exit 0 when the exploration completed, 3 when
//! a budget stopped it, 2 on an error.

use std::io::Write;
use std::path::Path;

use serde::Serialize;

use super::limits::SearchLimits;
use super::progress::{ProgressLine, counters, progress_of};
use super::symmetry::{SymmetryReport, requested};
use super::{
    EXIT_INCONCLUSIVE, Format, fail_at, fail_with, load_for_search, plural, say, stopped_before,
};
use crate::budget::disk::show_bytes;

use crate::budget::{Live, Stopped};
use crate::check::prepare::{Described, Prepared, Unprepared};
use crate::check::task::Task;
use crate::check::wording::{Reader, stopped_by, unbounded_note};
use crate::lts::{self, Budget, Exploration};
use crate::process::Processes;
use crate::symmetry::Symmetry;
use crate::symmetry::search_system::{About, Purpose};
use crate::symmetry::spec::Reduce;
use crate::symmetry::strategy::Strategy;
use crate::syntax::{one_line, render_all};
use crate::types::Expect;

/// The most states `--dot` draws.
pub const DOT_LIMIT: usize = 2_000;

/// Which of the two independent paths computes the state space. Both
/// give the same states, transitions and deadlocks; what they count as
/// components differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Engine {
    /// Components and an operator tree over them (the fast path): the
    /// components are the supercombinator's leaves.
    Supercombinator,
    /// The whole process as one term (the cross-check): one component.
    Terms,
}

impl Engine {
    fn name(self) -> &'static str {
        match self {
            Engine::Supercombinator => "supercombinator",
            Engine::Terms => "terms",
        }
    }

    /// What a component is to this engine.
    fn components_are(self) -> &'static str {
        match self {
            Engine::Supercombinator => "leaves of the supercombinator",
            Engine::Terms => "the whole process as one term",
        }
    }
}

pub struct Request<'a> {
    pub file: &'a Path,
    /// The process to explore; by default the first assertion's.
    pub process: Option<&'a str>,
    pub format: Format,
    pub engine: Engine,
    pub limits: &'a SearchLimits,
    pub dot: Option<&'a Path>,
    /// `--symmetry auto|off|T,U`.
    pub symmetry: Option<&'a str>,
    /// `--strategy`: how representatives are found.
    pub strategy: Strategy,
    /// `--por`: reduce by partial order, keeping deadlocks.
    pub por: bool,
    /// `--workers`, `--processes`...: explore on timely dataflow.
    pub cluster: &'a super::limits::ClusterArgs,
}

#[derive(Serialize)]
pub(super) struct Report<'a> {
    process: &'a str,
    engine: &'static str,
    states: u64,
    transitions: u64,
    deadlock_states: u64,
    terminated_states: u64,
    /// The deepest breadth-first level reached.
    depth: u32,
    /// What the engine splits the process into (see [`Engine`]).
    components: usize,
    seconds: f64,
    /// The bytes the stored states took in memory (rows, index), as
    /// allocated.
    store_bytes: u64,
    /// States whose rows were on disk at the end, with a spill folder.
    states_on_disk: u64,
    /// The most bytes the spill files held at once.
    disk_peak_bytes: u64,
    complete: bool,
    /// What stopped an incomplete exploration (`null` when complete).
    stopped: Option<&'static str>,
    /// What became of `--dot` (`null` when not asked).
    dot: Option<DotReport>,
    /// What the states were reduced by (`null`: they are states, not
    /// representatives).
    symmetry: Option<SymmetryReport>,
    /// How the reduction fell short of what was asked, if it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<&'a str>,
    /// What partial order reduction did (`--por`), if asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    partial_order: Option<&'a str>,
}

#[derive(Serialize)]
pub(super) struct DotReport {
    file: String,
    written: bool,
    /// Why it was not written.
    #[serde(skip_serializing_if = "Option::is_none")]
    skipped: Option<String>,
}

pub(super) fn run(request: &Request, out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    let format = request.format;
    let (loaded, process, func, asked) = match load_prepared(request, out, err) {
        Ok(prepared) => prepared,
        Err(code) => return code,
    };
    let script = loaded.script;
    if request.engine == Engine::Terms && !matches!(asked, Reduce::Off) {
        let problem = "error: --engine terms explores without symmetry reduction (it is the \
                       independent cross-check); drop --symmetry or the engine\n";
        return fail_with(format, request.file, problem, out, err);
    }
    let script = &script;
    let live = std::sync::Arc::new(Live::default());
    let budget = Budget {
        live: Some(live.clone()),
        ..request.limits.budget()
    }
    .started();
    let mut progress = ProgressLine::new(request.limits.progress);
    let what = if matches!(asked, Reduce::Off) {
        "states"
    } else {
        "representatives"
    };
    let describe = |live: &Live, elapsed| {
        format!("exploring: {}", counters(&progress_of(live, elapsed), what))
    };
    let outcome = progress.watch(&live, describe, || {
        crate::stack::with_large_stack(|| explore(script, func, &asked, request, &budget))
    });
    let Explored {
        exploration,
        dot,
        described:
            Described {
                symmetry: reduced,
                structure,
                note,
            },
        partial_order,
    } = match outcome {
        Ok(found) => found,
        Err(problem) => return unexplored(problem, request, (script, &budget), out, err),
    };
    let dot_report = match drawn(request.dot, dot, err) {
        Ok(report) => report,
        Err(problem) => return fail_with(format, request.file, &problem, out, err),
    };
    match format {
        Format::Json => {
            let mut report = Report::new(
                (request, &process),
                &exploration,
                dot_report,
                (reduced.as_ref(), structure.as_ref(), note.as_deref()),
            );
            report.partial_order = partial_order.as_deref();
            let text = serde_json::to_string(&report).expect("a report serialises");
            say(out, &format!("{text}\n"));
        }
        Format::Plain => {
            let mut text = plain(
                (request, &process),
                &budget,
                &exploration,
                (reduced.as_ref(), structure.as_ref(), note.as_deref()),
                script,
            );
            if let Some(done) = partial_order {
                text.push_str(&format!("note               {done}\n"));
            }
            say(out, &text)
        }
    }
    if exploration.complete {
        0
    } else {
        EXIT_INCONCLUSIVE
    }
}

/// The script loaded and the process made ready as `request` asks
/// ([`named`]); or, said on `out` or `err`, the exit code.
pub(super) fn load_prepared(
    request: &Request,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<
    (
        crate::types::Loaded,
        String,
        crate::script::ir::FuncId,
        Reduce,
    ),
    u8,
> {
    let format = request.format;
    let mut loaded = load_for_search(request.file, format, request.limits, out, err)?;
    match named(&mut loaded, request.process, request.symmetry) {
        Ok((process, func, asked)) => Ok((loaded, process, func, asked)),
        Err(Unnamed::Text(problem)) => Err(fail_with(format, request.file, &problem, out, err)),
        Err(Unnamed::At(diagnostics)) => Err(fail_at(
            format,
            request.file,
            &diagnostics,
            &loaded.script.sources,
            out,
            err,
        )),
    }
}

/// Why the process to explore could not be made ready.
pub(super) enum Unnamed {
    Text(String),
    At(Vec<crate::syntax::Diagnostic>),
}

/// Makes `loaded` ready to explore: the process (the one named, else the
/// first assertion's implementation) added to the script, and the
/// symmetry to reduce by. Every process of a cluster runs it alike.
pub(super) fn named(
    loaded: &mut crate::types::Loaded,
    process: Option<&str>,
    symmetry: Option<&str>,
) -> Result<(String, crate::script::ir::FuncId, Reduce), Unnamed> {
    let process = match process {
        Some(text) => text.to_string(),
        None => match loaded.script.assertions.first() {
            Some(first) => one_line(
                loaded
                    .script
                    .sources
                    .snippet(loaded.script.function(first.kind.implementation()).span),
            ),
            None => {
                let file = loaded
                    .script
                    .sources
                    .files()
                    .next()
                    .map_or(String::new(), |(_, f)| f.name.clone());
                return Err(Unnamed::Text(format!(
                    "error: {file} has no assertion to take a process from: name the process \
                     (`symcsp explore {file} PROCESS`)\n"
                )));
            }
        },
    };
    let func = loaded
        .add_expr("<process>", &process, Expect::Process)
        .map_err(Unnamed::At)?;
    let asked = match symmetry.map(|text| requested(&mut loaded.script, text)) {
        None => None,
        Some(Ok(asked)) => Some(asked),
        Some(Err(problem)) => return Err(Unnamed::Text(problem)),
    };
    let asked = Reduce::chosen(
        &loaded.script,
        asked.as_ref(),
        Purpose::Explore,
        About::Process(&process),
    );
    Ok((process, func, asked))
}

/// Writes the drawing to `path` when one was asked for: what the report
/// says of it (a drawing skipped is said on `err` too), or why it could
/// not be written.
fn drawn(
    path: Option<&Path>,
    dot: Drawing,
    err: &mut dyn Write,
) -> Result<Option<DotReport>, String> {
    Ok(match (path, dot) {
        (Some(path), Drawing::Drawn(text)) => {
            if let Err(e) = crate::files::write_atomically(path, text.as_bytes()) {
                return Err(format!("error: cannot write {}: {e}\n", path.display()));
            }
            Some(DotReport {
                file: path.display().to_string(),
                written: true,
                skipped: None,
            })
        }
        (Some(path), Drawing::Skipped(why)) => {
            say(
                err,
                &format!("symcsp: not drawing {}: {why}\n", path.display()),
            );
            Some(DotReport {
                file: path.display().to_string(),
                written: false,
                skipped: Some(why),
            })
        }
        _ => None,
    })
}

impl<'a> Report<'a> {
    /// The JSON report of `exploration`.
    pub(super) fn new(
        (request, process): (&Request, &'a str),
        exploration: &Exploration,
        dot: Option<DotReport>,
        (reduced, structure, note): (Option<&Symmetry>, Option<&(usize, String)>, Option<&'a str>),
    ) -> Report<'a> {
        Report {
            process,
            engine: request.engine.name(),
            states: exploration.states,
            transitions: exploration.transitions,
            deadlock_states: exploration.deadlock_states,
            terminated_states: exploration.terminated_states,
            depth: exploration.depth,
            components: exploration.components,
            seconds: exploration.seconds,
            store_bytes: exploration.store_bytes,
            states_on_disk: exploration.on_disk,
            disk_peak_bytes: exploration.disk_peak,
            complete: exploration.complete,
            stopped: exploration.stopped.map(Stopped::reason),
            dot,
            symmetry: match structure {
                Some(_) => Some(
                    SymmetryReport::new(&[], &Default::default(), Strategy::Exact, 0)
                        .with_exploration(exploration)
                        .with_structure(structure),
                ),
                None => reduced
                    .map(|s| SymmetryReport::of_exploration(s, exploration, request.strategy)),
            },
            note,
            partial_order: None,
        }
    }
}

/// Says why `request` could not explore, as its format asks: the exit
/// code.
pub(super) fn unexplored(
    problem: Unprepared,
    request: &Request,
    (script, budget): (&crate::script::Script, &Budget),
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> u8 {
    let format = request.format;
    match problem {
        Unprepared::Failed(d) => fail_at(format, request.file, &[d], &script.sources, out, err),
        Unprepared::Refused(problems) => fail_with(
            format,
            request.file,
            &render_all(&problems, &script.sources),
            out,
            err,
        ),
        Unprepared::Stopped(reason, stage) => stopped_before(
            (format, request.file),
            "the process was not explored",
            (reason, budget.max_states),
            &stage,
            out,
            err,
        ),
    }
}

/// What the exploration found, the drawing asked for, and the symmetry
/// when the states are representatives.
struct Explored {
    exploration: Exploration,
    dot: Drawing,
    described: Described,
    /// What partial order reduction did, when asked.
    partial_order: Option<String>,
}

enum Drawing {
    NotAsked,
    Drawn(String),
    /// Why not.
    Skipped(String),
}

/// Explores the process (and draws it, when asked and small enough); on
/// a large stack, since evaluation recurses.
fn explore(
    script: &crate::script::Script,
    func: crate::script::ir::FuncId,
    asked: &Reduce,
    request: &Request,
    budget: &Budget,
) -> Result<Explored, Unprepared> {
    let diagnostic = |e: crate::eval::EvalError| Unprepared::Failed(e.to_diagnostic());
    // A stop before the search: nothing explored yet.
    let before_search = |stage: &'static str| {
        move |e: crate::eval::EvalError| match e.stop_reason() {
            Some(stop) => Unprepared::Stopped(stop, e.stage.clone().unwrap_or(stage.to_string())),
            None => diagnostic(e),
        }
    };
    if request.engine == Engine::Terms {
        let (mut procs, root) = Processes::with_root_within(script, func, budget.meter())
            .map_err(before_search("compiling the process"))?;
        let exploration =
            lts::plain::explore_terms(&mut procs, root, budget).map_err(diagnostic)?;
        return Ok(Explored {
            exploration,
            dot: Drawing::NotAsked,
            described: Described::default(),
            partial_order: None,
        });
    }
    // The system through the one preparation (again for the drawing: a
    // search's system is spent by it).
    let task = Task {
        por: request.por,
        ..Task::explore(func, asked.clone())
    };
    let prepare = || Prepared::exploration(script, task.clone(), request.strategy, budget);
    let prepared = prepare()?;
    let described = prepared.described.clone();
    let partial_order = prepared.partial_order.clone();
    let exploration = prepared.explore(budget).map_err(diagnostic)?;
    let dot = if request.dot.is_none() {
        Drawing::NotAsked
    } else if !exploration.complete {
        Drawing::Skipped("the exploration stopped before the end".to_string())
    } else if exploration.states > DOT_LIMIT as u64 {
        Drawing::Skipped(format!(
            "the LTS has {}, more than the {DOT_LIMIT} that --dot draws",
            plural(exploration.states as usize, "state")
        ))
    } else {
        match prepare()?.draw(DOT_LIMIT).map_err(diagnostic)? {
            Some(dot) => Drawing::Drawn(dot),
            None => Drawing::Skipped(format!("the LTS has more than {DOT_LIMIT} states")),
        }
    };
    Ok(Explored {
        exploration,
        dot,
        described,
        partial_order,
    })
}

pub(super) fn plain(
    (request, process): (&Request, &str),
    budget: &Budget,
    x: &Exploration,
    (reduced, structure, note): (Option<&Symmetry>, Option<&(usize, String)>, Option<&str>),
    script: &crate::script::Script,
) -> String {
    let rate = if x.seconds > 0.0 {
        format!(" ({:.0} states/s)", x.states as f64 / x.seconds)
    } else {
        String::new()
    };
    let mut text = format!(
        "process            {}\nstates             {}\ntransitions        {}\n\
         deadlock states    {}\nterminated states  {}\ndepth              {} (breadth-first levels)\n\
         components         {} ({})\n\
         time               {:.3} s{rate}\n\
         store              {:.1} MB ({:.1} bytes/state: rows and index)\n",
        process,
        x.states,
        x.transitions,
        x.deadlock_states,
        x.terminated_states,
        x.depth,
        x.components,
        request.engine.components_are(),
        x.seconds,
        x.store_bytes as f64 / 1e6,
        x.store_bytes as f64 / x.states.max(1) as f64,
    );
    if x.on_disk > 0 {
        text.push_str(&format!(
            "on disk            {} states' rows, {} at most in the spill folder (the store \
             above is what memory kept)\n",
            x.on_disk,
            show_bytes(x.disk_peak)
        ));
    }
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
        let strategy = match request.strategy {
            Strategy::Fdr => String::new(),
            other => format!(" (the {other} strategy's)"),
        };
        text.push_str(&format!(
            "symmetry           {types} — group order {}: the states are representatives of \
             symmetry classes{strategy}\n",
            symmetry.group_order().value()
        ));
        // What automatic mode could not permute, and why.
        for line in symmetry.left_out_lines(script) {
            text.push_str(&format!("                   {line}\n"));
        }
    }
    if let Some((order, how)) = structure {
        text.push_str(&format!(
            "symmetry           its structure — group order {order}: the states are \
             representatives of symmetry classes, one per orbit\n                   {how}\n"
        ));
    }
    if let Some(note) = note {
        text.push_str(&format!("note               symmetry: {note}\n"));
    }
    if let Some(stopped) = x.stopped {
        text.push_str(&format!(
            "incomplete         {}; the counts are lower bounds\n",
            stopped_by(stopped, budget.max_states, Reader::CommandLine)
        ));
        if let Some(note) = unbounded_note(stopped, x.states, x.depth) {
            text.push_str(&format!("note               {note}\n"));
        }
        let failure = budget.spill.as_ref().and_then(|spill| spill.failure());
        if let (Stopped::Disk, Some(failure)) = (stopped, failure.as_deref()) {
            text.push_str(&format!("note               {failure}\n"));
        }
    }
    text
}
