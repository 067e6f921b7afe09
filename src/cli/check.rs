//! `symcsp check FILE`: checks the script's assertions (all, or those
//! chosen with `--assert N`, numbered from 1 as `symcsp FILE` lists them)
//! and prints FDR-like verdict lines with counterexamples, or JSON.
//! Each check runs on a worker thread within the budget options (each
//! assertion gets the whole budget); while it runs, progress goes to
//! stderr (see `progress.rs`).
//!
//! Exit codes: 0 all passed (or there was nothing to check), 2 a load or
//! usage error or an assertion that could not be checked, else 1 some
//! failed, else 3 some inconclusive (a budget, the time-out): an error
//! is never hidden behind a verdict.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use serde::Serialize;

use super::json::JsonDiagnostic;
use super::limits::SearchLimits;
use super::progress::{ProgressLine, counters};
use super::symmetry::{SymmetryReport, requested};
use super::{EXIT_INCONCLUSIVE, EXIT_INPUT_ERROR, Format, fail_with, load_for_search, plural, say};
use crate::check::Asked;
use crate::check::counterexample::{Counterexample, RenderedCounterexample};
use crate::check::wording::{Reader, headline, stopped_by, unbounded_note};
use crate::check::worker::CheckHandle;
use crate::check::{CheckResult, Verdict, assertion_text};
use crate::process::Processes;
use crate::script::Script;
use crate::stack::with_large_stack;
use crate::symmetry::strategy::Strategy;
use crate::syntax::Diagnostic;

/// Exit code when an assertion fails.
pub const EXIT_FAILED: u8 = 1;

/// Longest path printed in full in plain output.
const PATH_SHOWN: usize = 200;

pub struct Request<'a> {
    pub file: &'a Path,
    /// 1-based assertion numbers; empty for all.
    pub assertions: &'a [usize],
    pub format: Format,
    /// `--brief`: a counterexample in one line.
    pub brief: bool,
    pub limits: &'a SearchLimits,
    /// `--symmetry auto|off|T,U`: instead of what each assertion asks.
    pub symmetry: Option<&'a str>,
    /// `--strategy`: how representatives are found.
    pub strategy: Strategy,
    /// `--por on|off`: instead of what each assertion asks.
    pub por: Option<bool>,
    /// `--workers`, `--processes`, `--process`, `--hostfile`: where the
    /// assertions run, when on a cluster.
    pub cluster: &'a super::limits::ClusterArgs,
}

#[derive(Serialize)]
struct Report<'a> {
    file: String,
    assertions: Vec<Entry<'a>>,
}

/// One assertion's outcome in JSON. Everything numbered is numbered from
/// 1, as plain output numbers it: the assertion (`index`), the steps of a
/// counterexample's path, the components that moved, a τ-loop's first
/// step.
#[derive(Serialize)]
struct Entry<'a> {
    index: usize,
    line: usize,
    text: String,
    result: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    stopped: Option<&'static str>,
    /// The stage the budget stopped the check in (`searching`,
    /// `compiling `P``, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    stage: Option<String>,
    states: u64,
    transitions: u64,
    /// The deepest breadth-first level the search reached.
    depth: u32,
    seconds: f64,
    /// Through a `Value`, whose maps print their keys sorted.
    counterexample: Option<serde_json::Value>,
    notes: &'a [String],
    /// What the check was reduced by (`null`: not reduced).
    symmetry: Option<SymmetryReport>,
    /// What decided a static check, each rendered with its place.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    reasons: Vec<String>,
    /// Why the assertion could not be checked.
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<JsonDiagnostic>,
    /// The cluster it ran on, as `explore` reports it.
    #[serde(skip_serializing_if = "Option::is_none")]
    cluster: Option<&'a super::cluster::ClusterReport>,
}

pub(super) fn run(request: &Request, out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    let format = request.format;
    let loaded = match load_for_search(request.file, format, request.limits, out, err) {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    let mut script = loaded.script;
    let reduce = match request.symmetry.map(|text| requested(&mut script, text)) {
        None => None,
        Some(Ok(reduce)) => Some(reduce),
        Some(Err(problem)) => return fail_with(format, request.file, &problem, out, err),
    };
    let script = Arc::new(script);
    let count = script.assertions.len();
    if let Some(&bad) = request.assertions.iter().find(|&&n| n == 0 || n > count) {
        let problem = format!(
            "error: there is no assertion {bad}: {} has {} (numbered from 1)\n",
            request.file.display(),
            plural(count, "assertion")
        );
        return fail_with(format, request.file, &problem, out, err);
    }
    let chosen: Vec<usize> = if request.assertions.is_empty() {
        (1..=count).collect()
    } else {
        request.assertions.to_vec()
    };
    if chosen.is_empty() && format == Format::Plain {
        say(
            out,
            &format!(
                "{}: no assertions, nothing to check\n",
                crate::syntax::display_name(request.file)
            ),
        );
    }
    let budget = request.limits.budget();
    let topology = match on_cluster(request) {
        Ok(topology) => topology,
        Err(problem) => return fail_with(format, request.file, &problem, out, err),
    };
    let mut progress = ProgressLine::new(request.limits.progress);
    let mut printer = Printer {
        script: &script,
        procs: None,
    };
    let mut outcomes = Vec::new();
    for &number in &chosen {
        let index = number - 1;
        let asked = Asked {
            symmetry: reduce.clone(),
            strategy: request.strategy,
            por: request.por,
        };
        // A static check (`:[symmetric]:`) searches nothing: it is made
        // in place, as without the cluster.
        let result = match (&topology, is_static(&script, index)) {
            (Some(topology), false) => {
                let on = super::cluster::CheckOnCluster {
                    symmetry: request.symmetry,
                    strategy: request.strategy,
                    cluster: request.cluster,
                    progress: request.limits.progress,
                };
                super::cluster::check(&on, (&script, index, &asked), topology, &budget)
                    .map(|(result, cluster)| (result, None, cluster))
            }
            _ => {
                let handle =
                    CheckHandle::spawn_reduced(script.clone(), index, budget.clone(), asked);
                while !handle.wait(progress.interval()) {
                    // What the check decided about symmetry, once it has
                    // (before its search), else what was asked.
                    let (reduced, what) = match (handle.decided(), handle.reduced_over()) {
                        (Some(decided), _) if decided.starts_with("reduced") => {
                            (format!(" ({decided})"), "representatives")
                        }
                        (Some(decided), _) => (format!(" ({decided})"), "states"),
                        (None, Some(types)) => {
                            (format!(" (reduced over {types})"), "representatives")
                        }
                        (None, None) => (String::new(), "states"),
                    };
                    let text = format!(
                        "checking assertion {number}{reduced}: {}",
                        counters(&handle.progress(), what)
                    );
                    progress.show(&text);
                }
                progress.finish();
                // Its counterexample is put into words on the check's own
                // thread, within the check's deadline.
                handle
                    .join_rendered()
                    .map(|checked| (checked.result, checked.counterexample, None))
            }
        };
        let outcome = result.and_then(|(result, rendered, cluster)| {
            let counterexample = match (&result.counterexample, rendered) {
                (_, Some(rendered)) => Some(rendered),
                (Some(cx), None) => Some(printer.render(cx)?),
                (None, None) => None,
            };
            Ok(Checked {
                result,
                counterexample,
                cluster,
            })
        });
        if format == Format::Plain {
            say(
                out,
                &plain(&script, index, &outcome, (request.limits, request.brief)),
            );
        }
        outcomes.push((index, outcome));
    }
    if format == Format::Json {
        let assertions = outcomes
            .iter()
            .map(|(index, outcome)| entry(&script, *index, outcome))
            .collect();
        let report = Report {
            file: crate::syntax::display_name(request.file),
            assertions,
        };
        let text = serde_json::to_string_pretty(&report).expect("a report serialises");
        say(out, &format!("{text}\n"));
    }
    let verdicts: Vec<Option<Verdict>> = outcomes
        .iter()
        .map(|(_, o)| o.as_ref().ok().map(|c| c.result.verdict))
        .collect();
    if verdicts.contains(&None) {
        EXIT_INPUT_ERROR
    } else if verdicts.contains(&Some(Verdict::Failed)) {
        EXIT_FAILED
    } else if verdicts
        .iter()
        .any(|v| matches!(v, Some(Verdict::Inconclusive(_))))
    {
        EXIT_INCONCLUSIVE
    } else {
        0
    }
}

/// Whether assertion `index` is a static check (`:[symmetric]:`), made
/// in place whatever the cluster's options.
fn is_static(script: &Script, index: usize) -> bool {
    matches!(
        script.assertions[index].kind,
        crate::script::ir::AssertionKind::Symmetric { .. }
    )
}

/// The cluster the assertions run on, when the cluster's options ask
/// for one (the workers check every kind of assertion): the strategy
/// must choose by content.
fn on_cluster(request: &Request) -> Result<Option<crate::cluster::Topology>, String> {
    if !request.cluster.asked() {
        return Ok(None);
    }
    let topology = request.cluster.topology()?;
    if matches!(
        request.strategy,
        Strategy::Exact | Strategy::Segmented | Strategy::Flooding
    ) {
        return Err(format!(
            "error: the {} strategy does not run on workers: it chooses among images by the \
             order one process met its states, so workers would disagree; use --strategy fdr \
             or sorted\n",
            request.strategy
        ));
    }
    Ok(Some(topology))
}

/// A check's result with its counterexample in words.
struct Checked {
    result: CheckResult,
    counterexample: Option<RenderedCounterexample>,
    /// Where it ran, when on a cluster: per worker, states and bytes.
    cluster: Option<super::cluster::ClusterReport>,
}

/// One assertion checked, or the error that stopped its check.
type CheckOutcome = Result<Checked, Diagnostic>;

/// Puts counterexamples into words with process states of the checked
/// script, made when the first counterexample needs them.
struct Printer<'s> {
    script: &'s Script,
    procs: Option<Processes<'s>>,
}

impl Printer<'_> {
    /// Printing a state prints its values, which may nest deeply: this
    /// runs on a large stack, as the check did.
    fn render(&mut self, cx: &Counterexample) -> Result<RenderedCounterexample, Diagnostic> {
        let Printer { script, procs } = self;
        with_large_stack(|| {
            let procs = match procs {
                Some(procs) => procs,
                None => procs.insert(Processes::new(script).map_err(|e| e.to_diagnostic())?),
            };
            Ok(cx.render(procs))
        })
    }
}

fn entry<'a>(script: &Script, index: usize, outcome: &'a CheckOutcome) -> Entry<'a> {
    let span = script.assertions[index].span;
    let line = script.sources.location(span).line;
    let text = assertion_text(script, index);
    match outcome {
        Ok(Checked {
            result,
            counterexample,
            cluster,
        }) => Entry {
            index: index + 1,
            line,
            text,
            result: match result.verdict {
                Verdict::Passed => "passed",
                Verdict::Failed => "failed",
                Verdict::Inconclusive(_) => "inconclusive",
            },
            stopped: match result.verdict {
                Verdict::Inconclusive(s) => Some(s.reason()),
                _ => None,
            },
            stage: result.stage.clone(),
            states: result.states,
            transitions: result.transitions,
            depth: result.depth,
            seconds: result.seconds,
            counterexample: counterexample.as_ref().map(counterexample_json),
            notes: &result.notes,
            symmetry: result.symmetry.as_ref().map(|reduced| {
                SymmetryReport::new(
                    &reduced.types,
                    &reduced.group_order,
                    reduced.strategy,
                    result.states,
                )
                .with_structure(reduced.structure.as_ref())
            }),
            reasons: result
                .reasons
                .iter()
                .map(|r| r.render(&script.sources))
                .collect(),
            error: None,
            cluster: cluster.as_ref(),
        },
        Err(diagnostic) => Entry {
            index: index + 1,
            line,
            text,
            result: "error",
            stopped: None,
            stage: None,
            states: 0,
            transitions: 0,
            depth: 0,
            seconds: 0.0,
            counterexample: None,
            notes: &[],
            symmetry: None,
            reasons: Vec::new(),
            error: Some(JsonDiagnostic::new(diagnostic, &script.sources)),
            cluster: None,
        },
    }
}

/// A counterexample as JSON, numbered from 1 as the text numbers it:
/// each component move's `step`, the components in a step's `moved`, and
/// `loop_from` (the first step of a τ-loop).
fn counterexample_json(cx: &RenderedCounterexample) -> serde_json::Value {
    let mut json = serde_json::to_value(cx).expect("a counterexample serialises");
    let from_one = |n: &mut serde_json::Value| {
        if let Some(k) = n.as_u64() {
            *n = (k + 1).into();
        }
    };
    if let Some(steps) = json["steps"].as_array_mut() {
        for step in steps {
            step["moved"]
                .as_array_mut()
                .into_iter()
                .flatten()
                .for_each(from_one);
        }
    }
    if let Some(components) = json["components"].as_array_mut() {
        for component in components {
            for m in component["moves"].as_array_mut().into_iter().flatten() {
                from_one(&mut m["step"]);
            }
        }
    }
    if let Some(start) = json.get_mut("loop_from") {
        from_one(start);
    }
    json
}

/// One assertion's verdict line, its notes and its counterexample.
/// `--brief`: the counterexample's one line, without its path.
fn plain(
    script: &Script,
    index: usize,
    outcome: &CheckOutcome,
    (limits, brief): (&SearchLimits, bool),
) -> String {
    let text = assertion_text(script, index);
    let (result, counterexample) = match outcome {
        Ok(checked) => (&checked.result, &checked.counterexample),
        Err(diagnostic) => {
            return format!(
                "{text}: Error\n{}",
                indent(&diagnostic.render(&script.sources))
            );
        }
    };
    let states = result.states as usize;
    let transitions = plural(result.transitions as usize, "transition");
    let mut lines = if let Some(reduced) = &result.symmetry {
        let representatives = plural(states, "representative");
        format!(
            "{text}: {} — {representatives}, {transitions}, {:.2} s\n    symmetry: {} — group \
             order {}, {representatives}\n",
            result.verdict.word(),
            result.seconds,
            reduced.type_list(),
            reduced.order_text(),
        )
    } else if result.searched {
        format!(
            "{text}: {} — {}, {transitions}, {:.2} s\n",
            result.verdict.word(),
            plural(states, "state"),
            result.seconds
        )
    } else {
        format!("{text}: {} — a static check\n", result.verdict.word())
    };
    for reason in &result.reasons {
        lines.push_str(&indent(&reason.render(&script.sources)));
    }
    if let Verdict::Inconclusive(stopped) = result.verdict {
        let stage = result
            .stage
            .as_ref()
            .map(|stage| format!(" while {stage},"))
            .unwrap_or_default();
        lines.push_str(&format!(
            "    {}{stage} before an answer\n",
            stopped_by(stopped, limits.max_states, Reader::CommandLine)
        ));
        if let Some(note) = unbounded_note(stopped, result.states, result.depth) {
            lines.push_str(&format!("    note: {note}\n"));
        }
    }
    for note in &result.notes {
        lines.push_str(&format!("    note: {note}\n"));
    }
    if let Some(cx) = counterexample {
        lines.push_str(&describe(
            cx,
            script.assertions[index].negated,
            result.verdict,
            brief,
        ));
    }
    lines
}

fn indent(text: &str) -> String {
    text.lines().map(|l| format!("    {l}\n")).collect()
}

/// A counterexample in words, then its path and each component's part.
fn describe(cx: &RenderedCounterexample, negated: bool, verdict: Verdict, brief: bool) -> String {
    let headline = match brief {
        // A τ-loop is named by the steps of a path not shown.
        true => headline(&RenderedCounterexample {
            loop_from: None,
            ..cx.clone()
        }),
        false => headline(cx),
    };
    let property_holds = (verdict == Verdict::Passed) != negated;
    let label = if property_holds {
        "witness"
    } else if negated {
        "example"
    } else {
        "counterexample"
    };
    let mut text = format!("    {label}: {headline}\n");
    if brief {
        return text;
    }
    if cx.steps.len() > PATH_SHOWN {
        text.push_str(&format!(
            "    (a path of {} steps; --format json gives all of it)\n",
            cx.steps.len()
        ));
        return text;
    }
    if !cx.steps.is_empty() {
        text.push_str("    path (τ included):\n");
        let events: Vec<String> = cx
            .steps
            .iter()
            .map(|step| crate::lts::animator::step_text(&step.event, step.hidden.as_deref()))
            .collect();
        // As wide as the widest event, within reason.
        let width = events
            .iter()
            .map(|e| e.chars().count())
            .max()
            .unwrap_or(0)
            .clamp(24, 40);
        for (k, (step, event)) in cx.steps.iter().zip(&events).enumerate() {
            let moved: Vec<String> = step.moved.iter().map(|c| (c + 1).to_string()).collect();
            if cx.loop_from == Some(k) {
                text.push_str("      then round and round, for ever:\n");
            }
            text.push_str(&format!(
                "      {:>3}  {event:<width$} component{} {}\n",
                k + 1,
                if moved.len() == 1 { "" } else { "s" },
                moved.join(", ")
            ));
        }
    }
    let still = cx.components.iter().filter(|c| c.moves.is_empty()).count();
    if still == cx.components.len() {
        return text;
    }
    text.push_str("    components that moved:\n");
    for (i, c) in cx.components.iter().enumerate() {
        if c.moves.is_empty() {
            continue;
        }
        text.push_str(&format!("      {:>3}  {}\n", i + 1, c.initial));
        for m in &c.moves {
            text.push_str(&format!(
                "             step {:>3}: {} → {}\n",
                m.step + 1,
                m.event,
                m.state
            ));
        }
        if let Some(run) = &c.unwound {
            text.push_str(&format!(
                "             as a run of {} (the compression undone):\n",
                run.process
            ));
            text.push_str(&format!("                   {}\n", run.start));
            for (event, state) in &run.steps {
                text.push_str(&format!("                   {event} → {state}\n"));
            }
        }
    }
    if still > 0 {
        text.push_str(&format!(
            "      ({} did not move)\n",
            plural(still, "other component")
        ));
    }
    text
}
