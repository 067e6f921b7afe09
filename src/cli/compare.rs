//! `symcsp compare FILE [PROCESS] [--assert N] [--strategies LIST]
//! [--unreduced]`: one assertion checked (or a process explored) once per
//! representative strategy, and with `--unreduced` once unreduced for
//! scale (which can take far longer than every strategy together: it is
//! run only when asked), in one process, as a table: verdict,
//! states, transitions, time, peak memory, time per state, and the
//! duplicates — representatives beyond one per symmetry class (the exact
//! strategy's count is the number of classes). Verdicts must agree: a
//! disagreement is an internal error, shown with both counterexamples.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;

use super::limits::SearchLimits;
use super::symmetry::requested;
use super::{EXIT_INCONCLUSIVE, Format, fail_with, load_for_search, plural, say};
use crate::budget::{Budget, memory};
use crate::check::prepare::{Prepared, Unprepared};
use crate::check::task::Task;
use crate::check::worker::CheckHandle;
use crate::check::{Asked, Verdict};
use crate::lts::Exploration;
use crate::script::Script;
use crate::script::ir::FuncId;
use crate::symmetry::search_system::{About, Purpose, Reduction};
use crate::symmetry::spec::Reduce;
use crate::symmetry::strategy::Strategy;
use crate::syntax::{one_line, render_all};
use crate::types::{Expect, Loaded};

pub struct Request<'a> {
    pub file: &'a Path,
    pub process: Option<&'a str>,
    /// Numbered from 1.
    pub assertion: Option<usize>,
    pub strategies: &'a [Strategy],
    pub symmetry: Option<&'a str>,
    /// Whether to run the unreduced search too, for scale.
    pub unreduced: bool,
    /// Whether to run each search again reduced by partial order too
    /// (`por`, and `por+` each strategy).
    pub por: bool,
    pub format: Format,
    pub limits: &'a SearchLimits,
}

/// One run: a strategy's (or the unreduced search's) figures.
#[derive(Debug, Clone, Serialize)]
struct Row {
    /// `unreduced`, or the strategy's name; `por` and `por+` the
    /// strategy's name where the run was reduced by partial order too.
    strategy: String,
    /// FDR's word for a check; `complete` or `incomplete` for an
    /// exploration.
    verdict: String,
    /// Why the budget stopped it, if it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    stopped: Option<&'static str>,
    states: u64,
    transitions: u64,
    seconds: f64,
    /// The most the heap held above what it held before the run
    /// (sampled every 20 ms).
    peak_bytes: u64,
    microseconds_per_state: f64,
    /// Representatives beyond one per symmetry class (`null` where not
    /// known: without the exact strategy's count, or a run cut short).
    duplicates: Option<u64>,
    /// A failed check's counterexample in words.
    #[serde(skip)]
    counterexample: Option<String>,
    #[serde(skip)]
    decided: bool,
    /// Why partial order reduction was not applied, on a run that asked
    /// for it.
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
}

#[derive(Serialize)]
struct Report<'a> {
    file: String,
    /// `assertion 2: ...` or `process System`.
    subject: String,
    symmetry: String,
    rows: &'a [Row],
    /// Whether the unreduced search was run (`--unreduced`).
    unreduced: bool,
    /// Whether each search was run reduced by partial order too
    /// (`--por`).
    por: bool,
    /// The time-out each run was held to when `--timeout` gave none, in
    /// seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    run_timeout: Option<f64>,
}

/// How often the heap is sampled while a run works.
const SAMPLE: Duration = Duration::from_millis(20);

/// What each run is held to when `--timeout` gives no time-out.
const RUN_TIMEOUT: Duration = Duration::from_secs(2);

pub(super) fn run(request: &Request, out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    let format = request.format;
    let mut loaded = match load_for_search(request.file, format, request.limits, out, err) {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    let compared = match what_is_compared(request, &mut loaded) {
        Ok(compared) => compared,
        Err(problem) => return fail_with(format, request.file, &problem, out, err),
    };
    let mut script = loaded.script;
    let asked = match request.symmetry.map(|text| requested(&mut script, text)) {
        None => None,
        Some(Ok(Reduce::Off)) => {
            let problem = "error: compare compares the ways of reducing by symmetry: \
                           `--symmetry off` leaves nothing to compare\n";
            return fail_with(format, request.file, problem, out, err);
        }
        Some(Ok(reduce)) => Some(reduce),
        Some(Err(problem)) => return fail_with(format, request.file, &problem, out, err),
    };
    let script = Arc::new(script);
    // Without --timeout each run is held to a stated time-out, so that one
    // strategy slow on this model (flooding on a large group) does not
    // hold the comparison for minutes.
    let mut budget = request.limits.budget();
    let held = request.limits.work.timeout.is_none();
    if held {
        budget.timeout = Some(RUN_TIMEOUT);
    }
    let subject = match &compared {
        Compared::Assertion(index) => format!(
            "assertion {}: {}",
            index + 1,
            crate::check::assertion_text(&script, *index)
        ),
        Compared::Process(text, _) => format!("process {text}"),
    };
    let reduce = match &compared {
        Compared::Assertion(index) => Reduce::chosen(
            &script,
            asked.as_ref(),
            Purpose::Check,
            About::Assertion(*index),
        ),
        Compared::Process(text, _) => {
            Reduce::chosen(&script, asked.as_ref(), Purpose::Show, About::Process(text))
        }
    };
    if reduce == Reduce::Off {
        let problem = format!(
            "error: {subject} asks for no symmetry reduction: give the types with --symmetry \
             (`--symmetry auto` for the largest symmetric ones)\n"
        );
        return fail_with(format, request.file, &problem, out, err);
    }
    let symmetry_text = reduce
        .describe(&script)
        .unwrap_or_else(|| "automatic".to_string());
    let mut rows = Vec::new();
    let unreduced = request.unreduced.then_some(None);
    let searches = unreduced
        .into_iter()
        .chain(request.strategies.iter().copied().map(Some));
    // Each search, then (with --por) the same reduced by partial order;
    // `por` alone, without symmetry, comes whether or not `--unreduced`
    // does (it is the cheap one).
    let mut runs: Vec<(Option<Strategy>, bool)> = Vec::new();
    if request.por && !request.unreduced {
        runs.push((None, true));
    }
    for strategy in searches {
        runs.push((strategy, false));
        if request.por {
            runs.push((strategy, true));
        }
    }
    for (strategy, por) in runs {
        let run = Run {
            reduce: &reduce,
            strategy,
            por,
        };
        let row = match &compared {
            Compared::Assertion(index) => check_row(&script, *index, &run, &budget),
            Compared::Process(_, func) => explore_row(&script, *func, &run, &budget),
        };
        match row {
            Ok(row) => rows.push(row),
            Err(problem) => return fail_with(format, request.file, &problem, out, err),
        }
    }
    count_duplicates(&mut rows);
    if let Compared::Assertion(_) = compared
        && let Some(problem) = disagreement(&rows, &subject, request.file)
    {
        return fail_with(format, request.file, &problem, out, err);
    }
    let report = Report {
        file: crate::syntax::display_name(request.file),
        subject,
        symmetry: symmetry_text,
        rows: &rows,
        unreduced: request.unreduced,
        por: request.por,
        run_timeout: held.then_some(RUN_TIMEOUT.as_secs_f64()),
    };
    match format {
        Format::Json => {
            let text = serde_json::to_string_pretty(&report).expect("a report serialises");
            say(out, &format!("{text}\n"));
        }
        Format::Plain => say(out, &table(&report)),
    }
    if rows
        .iter()
        .any(|r| !r.decided && !r.unreduced_by_symmetry())
    {
        EXIT_INCONCLUSIVE
    } else {
        0
    }
}

/// What `compare` runs each strategy on.
enum Compared {
    /// The assertion of this index, checked.
    Assertion(usize),
    /// The process as written, explored.
    Process(String, FuncId),
}

/// The assertion asked for, or the process to explore: as typed, else
/// the first assertion asking for reduction's (or the first
/// assertion's); or why there is nothing to compare.
fn what_is_compared(request: &Request, loaded: &mut Loaded) -> Result<Compared, String> {
    let count = loaded.script.assertions.len();
    match (request.assertion, request.process) {
        (Some(_), Some(_)) => Err("error: compare takes a process to explore or an assertion \
                                   to check (--assert N), not both\n"
            .to_string()),
        (Some(n), None) if n == 0 || n > count => Err(format!(
            "error: there is no assertion {n}: {} has {} (numbered from 1)\n",
            request.file.display(),
            plural(count, "assertion")
        )),
        (Some(n), None) => Ok(Compared::Assertion(n - 1)),
        (None, process) => {
            let text = match process {
                Some(text) => text.to_string(),
                None => {
                    let script = &loaded.script;
                    let first = script
                        .assertions
                        .iter()
                        .find(|a| Reduce::of_assertion(a) != Reduce::Off)
                        .or(script.assertions.first())
                        .ok_or_else(|| {
                            format!(
                                "error: {} has no assertion: name a process to explore \
                                 (`symcsp compare {0} PROCESS`) \n",
                                request.file.display()
                            )
                        })?;
                    one_line(
                        script
                            .sources
                            .snippet(script.function(first.kind.implementation()).span),
                    )
                }
            };
            let func = loaded
                .add_expr("<process>", &text, Expect::Process)
                .map_err(|ds| render_all(&ds, &loaded.script.sources))?;
            Ok(Compared::Process(text, func))
        }
    }
}

/// Each reduced row's duplicates: its states beyond the classes (the
/// exact strategy's count, when it completed).
fn count_duplicates(rows: &mut [Row]) {
    let classes = rows
        .iter()
        .find(|r| r.strategy == Strategy::Exact.name() && r.decided)
        .map(|r| r.states);
    // A run reduced by partial order too has fewer states than classes.
    for row in rows
        .iter_mut()
        .filter(|r| !r.unreduced_by_symmetry() && !r.strategy.starts_with("por+"))
    {
        row.duplicates = classes
            .filter(|_| row.decided)
            .map(|classes| row.states.saturating_sub(classes));
    }
}

/// Every verdict reached must be the same: when two differ, the internal
/// error to report, with both counterexamples.
fn disagreement(rows: &[Row], subject: &str, file: &Path) -> Option<String> {
    let decided: Vec<&Row> = rows.iter().filter(|r| r.decided).collect();
    let odd = decided.iter().find(|r| r.verdict != decided[0].verdict)?;
    let first = decided[0];
    let mut problem = format!(
        "internal error: the strategies disagree on {subject}: {} says {}, {} says {}; please \
         report it with {}\n",
        first.strategy,
        first.verdict,
        odd.strategy,
        odd.verdict,
        file.display()
    );
    for row in [first, odd] {
        if let Some(cx) = &row.counterexample {
            problem.push_str(&format!("{}'s counterexample:\n{cx}", row.strategy));
        }
    }
    Some(problem)
}

impl Row {
    /// Whether the run was not reduced by symmetry (`unreduced`, `por`).
    fn unreduced_by_symmetry(&self) -> bool {
        self.strategy == "unreduced" || self.strategy == "por"
    }
}

/// One run of the comparison: by `strategy` (unreduced by symmetry for
/// `None`), reduced by partial order too with `por`.
struct Run<'a> {
    reduce: &'a Reduce,
    strategy: Option<Strategy>,
    por: bool,
}

impl Run<'_> {
    /// The row's name.
    fn name(&self) -> String {
        match (self.strategy, self.por) {
            (None, false) => "unreduced".to_string(),
            (None, true) => "por".to_string(),
            (Some(s), false) => s.name().to_string(),
            (Some(s), true) => format!("por+{}", s.name()),
        }
    }

    /// The symmetry the run reduces by.
    fn symmetry(&self) -> Reduce {
        if self.strategy.is_some() {
            self.reduce.clone()
        } else {
            Reduce::Off
        }
    }
}

/// Checks assertion `index` as `run` says, sampling the heap meanwhile.
fn check_row(
    script: &Arc<Script>,
    index: usize,
    run: &Run,
    budget: &Budget,
) -> Result<Row, String> {
    let asked = Asked {
        symmetry: Some(run.symmetry()),
        strategy: run.strategy.unwrap_or_default(),
        por: Some(run.por),
    };
    crate::budget::wait_for_frees();
    let before = held();
    let mut peak = before;
    let handle = CheckHandle::spawn_reduced(script.clone(), index, budget.clone(), asked);
    while !handle.wait(SAMPLE) {
        peak = peak.max(held());
    }
    let checked = handle
        .join_rendered()
        .map_err(|d| d.render(&script.sources))?;
    let result = checked.result;
    let counterexample = checked.counterexample.map(|cx| {
        cx.steps
            .iter()
            .map(|s| format!("  {}\n", s.event))
            .collect::<String>()
    });
    let decided = !matches!(result.verdict, Verdict::Inconclusive(_));
    let note = result
        .notes
        .iter()
        .find(|n| n.starts_with("partial order reduction: not applied"))
        .cloned();
    Ok(Row {
        strategy: run.name(),
        verdict: result.verdict.word().to_string(),
        stopped: match result.verdict {
            Verdict::Inconclusive(stop) => Some(stop.reason()),
            _ => None,
        },
        states: result.states,
        transitions: result.transitions,
        seconds: result.seconds,
        peak_bytes: peak.max(held()).saturating_sub(before),
        microseconds_per_state: per_state(result.seconds, result.states),
        duplicates: None,
        counterexample,
        decided,
        note,
    })
}

/// Explores process `func` as `run` says (reduced by partial order, it
/// keeps the deadlocks), sampling the heap meanwhile.
fn explore_row(
    script: &Script,
    func: crate::script::ir::FuncId,
    run: &Run,
    budget: &Budget,
) -> Result<Row, String> {
    crate::budget::wait_for_frees();
    let before = held();
    let work = || -> Result<(Exploration, Option<String>), String> {
        let rendered = |e: crate::eval::EvalError| e.to_diagnostic().render(&script.sources);
        let task = Task {
            por: run.por,
            ..Task::explore(func, run.symmetry())
        };
        let prepared =
            Prepared::exploration(script, task, run.strategy.unwrap_or_default(), budget).map_err(
                |problem| match problem {
                    Unprepared::Stopped(stop, stage) => {
                        format!(
                            "error: the exploration was {} while {stage}\n",
                            stop.ended()
                        )
                    }
                    Unprepared::Failed(d) => d.render(&script.sources),
                    Unprepared::Refused(problems) => render_all(&problems, &script.sources),
                },
            )?;
        match &prepared.system.reduction {
            Reduction::Trivial { why, .. } => {
                return Err(format!("error: nothing to compare: {why}\n"));
            }
            // A structure with no symmetry reduces nothing to compare.
            no_structure @ Reduction::NoStructure(_) => {
                let problems = no_structure.refusal(script, func).expect("a refusal");
                return Err(render_all(&problems, &script.sources));
            }
            _ => {}
        }
        let note = prepared.partial_order.clone();
        let explored = prepared.explore(budget).map_err(rendered)?;
        Ok((explored, note.filter(|n| n.contains("not applied"))))
    };
    let (explored, peak) = sampled(work);
    let (x, note) = explored?;
    Ok(Row {
        strategy: run.name(),
        verdict: if x.complete { "complete" } else { "incomplete" }.to_string(),
        stopped: x.stopped.map(|s| s.reason()),
        states: x.states,
        transitions: x.transitions,
        seconds: x.seconds,
        peak_bytes: peak.saturating_sub(before),
        microseconds_per_state: per_state(x.seconds, x.states),
        duplicates: None,
        counterexample: None,
        decided: x.complete,
        note,
    })
}

/// Runs `work` on a thread with a large stack, sampling the heap every
/// [`SAMPLE`] until it ends: its result and the most the heap held.
fn sampled<T: Send>(work: impl FnOnce() -> T + Send) -> (T, u64) {
    std::thread::scope(|scope| {
        let handle = std::thread::Builder::new()
            .name("symcsp-compare".into())
            .stack_size(crate::stack::LARGE_STACK)
            .spawn_scoped(scope, work)
            .expect("the system can start a thread");
        let mut peak = held();
        while !handle.is_finished() {
            std::thread::sleep(SAMPLE);
            peak = peak.max(held());
        }
        match handle.join() {
            Ok(value) => (value, peak.max(held())),
            Err(panic) => std::panic::resume_unwind(panic),
        }
    })
}

fn held() -> u64 {
    memory::held(Duration::ZERO).unwrap_or(0)
}

fn per_state(seconds: f64, states: u64) -> f64 {
    seconds * 1e6 / states.max(1) as f64
}

/// The report as a table.
fn table(report: &Report) -> String {
    let mut out = format!(
        "compare {}, {}\nsymmetry: {}\n\n",
        report.file, report.subject, report.symmetry
    );
    let header = [
        "strategy",
        "verdict",
        "states",
        "transitions",
        "time",
        "peak memory",
        "per state",
        "duplicates",
    ];
    let cells: Vec<[String; 8]> = report
        .rows
        .iter()
        .map(|r| {
            [
                r.strategy.clone(),
                match r.stopped {
                    Some(stop) => format!("{} ({stop})", r.verdict),
                    None => r.verdict.clone(),
                },
                r.states.to_string(),
                r.transitions.to_string(),
                format!("{:.3} s", r.seconds),
                format!("{:.1} MB", r.peak_bytes as f64 / 1e6),
                format!("{:.2} µs", r.microseconds_per_state),
                r.duplicates
                    .map_or_else(|| "—".to_string(), |d| d.to_string()),
            ]
        })
        .collect();
    let widths: Vec<usize> = (0..8)
        .map(|c| {
            cells
                .iter()
                .map(|row| row[c].chars().count())
                .chain([header[c].len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |row: &[String]| -> String {
        let parts: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(c, text)| {
                if c <= 1 {
                    format!("{text:<width$}", width = widths[c])
                } else {
                    format!("{text:>width$}", width = widths[c])
                }
            })
            .collect();
        format!("{}\n", parts.join("  ").trim_end())
    };
    out.push_str(&line(&header.map(str::to_string)));
    for row in &cells {
        out.push_str(&line(row));
    }
    out.push_str(
        "\nduplicates: representatives beyond one per symmetry class (the exact strategy's \
         states are the classes); peak memory: the most the heap held above what it held \
         before the run, sampled every 20 ms\n",
    );
    if let Some(seconds) = report.run_timeout {
        out.push_str(&format!(
            "each run is held to {seconds} s (--timeout sets another, 0 for none): a run it \
             stops is inconclusive, its counts lower bounds\n"
        ));
    }
    for row in report.rows {
        if let Some(note) = &row.note {
            out.push_str(&format!("{}: {note}\n", row.strategy));
        }
    }
    if report.por {
        out.push_str(
            "por: reduced by partial order too (a stubborn set's moves at each state; an \
             exploration keeps its deadlocks, a check what it judges), so its states are \
             fewer than the symmetry classes\n",
        );
    }
    if !report.unreduced {
        out.push_str(
            "the unreduced search is not run: `--unreduced` adds it for scale (it can take far \
             longer than every strategy together; --timeout and --max-states bound it)\n",
        );
    }
    out
}
