//! `symcsp audit FILE [PROCESS | --assert N] [--strategy S]`: how far a
//! strategy's representatives are from one per symmetry class. After a
//! reduced exploration, every representative is put in its exact
//! canonical form: the distinct forms are the classes (orbits), the
//! rest are duplicates; up to five duplicate pairs are given as traces
//! of the real system, ready for `symcsp why --after … --vs …` and the
//! animator's compare view (`m`, `=`): each followed as `why` follows
//! it first, and given only where the two states it reaches have
//! different representatives.

use std::io::Write;
use std::path::Path;

use rustc_hash::FxHashMap;
use serde::Serialize;

use super::limits::SearchLimits;
use super::symmetry::requested;
use super::{EXIT_INCONCLUSIVE, Format, fail_with, load_for_search, plural, say, stopped_before};
use crate::check::prepare::{Kept, Prepared, Unprepared};
use crate::check::task::Task;
use crate::check::trace::follow;
use crate::check::wording::{Reader, stopped_by};
use crate::lts::machine::Machine;
use crate::lts::{self, Budget};
use crate::process::{EventId, Processes, TAU, TICK};
use crate::script::Script;
use crate::script::ir::FuncId;
use crate::symmetry::SystemSymmetry;
use crate::symmetry::search_system::{About, Purpose, Reduction};
use crate::symmetry::spec::Reduce;
use crate::symmetry::strategy::Strategy;
use crate::syntax::{one_line, render_all};
use crate::types::Expect;

pub struct Request<'a> {
    pub file: &'a Path,
    pub process: Option<&'a str>,
    /// Numbered from 1: audit its process, reduced as it asks.
    pub assertion: Option<usize>,
    pub strategy: Strategy,
    pub symmetry: Option<&'a str>,
    pub format: Format,
    pub limits: &'a SearchLimits,
}

/// The most duplicate pairs shown.
const PAIRS: usize = 5;

/// The most classes whose pairs are followed to find [`PAIRS`] that
/// `why` confirms.
const CANDIDATES: usize = 4 * PAIRS;

#[derive(Serialize)]
struct Report {
    file: String,
    process: String,
    symmetry: String,
    strategy: &'static str,
    representatives: u64,
    orbits: u64,
    duplicates: u64,
    duplication_factor: f64,
    complete: bool,
    /// Up to five pairs of duplicates, each as the real traces leading
    /// to the two representatives (one pair per class, the deepest
    /// first).
    pairs: Vec<Pair>,
    /// Classes left out of `pairs`: followed as `why` follows them, their
    /// traces do not reach two states with different representatives
    /// (the duplicates differ in hidden steps).
    unconfirmed: usize,
}

#[derive(Serialize)]
struct Pair {
    after: String,
    vs: String,
}

pub(super) fn run(request: &Request, out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    let format = request.format;
    let mut loaded = match load_for_search(request.file, format, request.limits, out, err) {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    if request.process.is_some() && request.assertion.is_some() {
        let problem = "error: audit takes a process or an assertion (--assert N), not both\n";
        return fail_with(format, request.file, problem, out, err);
    }
    let script = &loaded.script;
    let count = script.assertions.len();
    let process = match (request.assertion, request.process) {
        (Some(n), _) if n == 0 || n > count => {
            let problem = format!(
                "error: there is no assertion {n}: {} has {} (numbered from 1)\n",
                request.file.display(),
                plural(count, "assertion")
            );
            return fail_with(format, request.file, &problem, out, err);
        }
        (Some(n), _) => implementation(script, n - 1),
        (None, Some(text)) => text.to_string(),
        (None, None) => match script
            .assertions
            .iter()
            .position(|a| Reduce::of_assertion(a) != Reduce::Off)
        {
            Some(i) => implementation(script, i),
            None => {
                let problem = format!(
                    "error: {} has no assertion with `:[symmetry reduce]`: name the process \
                     (`symcsp audit {0} PROCESS`)\n",
                    request.file.display()
                );
                return fail_with(format, request.file, &problem, out, err);
            }
        },
    };
    let func = match loaded.add_expr("<process>", &process, Expect::Process) {
        Ok(func) => func,
        Err(ds) => {
            let problem = render_all(&ds, &loaded.script.sources);
            return fail_with(format, request.file, &problem, out, err);
        }
    };
    let mut script = loaded.script;
    let asked = match request.symmetry.map(|text| requested(&mut script, text)) {
        None => None,
        Some(Ok(Reduce::Off)) => {
            let problem = "error: audit measures a symmetry reduction: `--symmetry off` leaves \
                           nothing to measure\n";
            return fail_with(format, request.file, problem, out, err);
        }
        Some(Ok(reduce)) => Some(reduce),
        Some(Err(problem)) => return fail_with(format, request.file, &problem, out, err),
    };
    let about = match request.assertion {
        Some(n) => About::Assertion(n - 1),
        None => About::Process(&process),
    };
    let reduce = Reduce::chosen(&script, asked.as_ref(), Purpose::Show, about);
    let budget = request.limits.budget();
    let audited = crate::stack::with_large_stack(|| {
        audit(&script, func, (&reduce, request.strategy), &budget)
    });
    let found = match audited {
        Ok(found) => found,
        Err(Unaudited::Failed(problem)) => {
            return fail_with(format, request.file, &problem, out, err);
        }
        // Inconclusive, as a check or an exploration stopped before it
        // answers is.
        Err(Unaudited::Stopped(reason, stage)) => {
            return stopped_before(
                (format, request.file),
                "the process was not audited",
                (reason, budget.max_states),
                &stage,
                out,
                err,
            );
        }
    };
    let report = Report {
        file: crate::syntax::display_name(request.file),
        process,
        symmetry: found.symmetry.clone(),
        strategy: request.strategy.name(),
        representatives: found.representatives,
        orbits: found.orbits,
        duplicates: found.representatives - found.orbits,
        duplication_factor: found.representatives as f64 / found.orbits.max(1) as f64,
        complete: found.stopped.is_none(),
        pairs: found.pairs,
        unconfirmed: found.unconfirmed,
    };
    match format {
        Format::Json => {
            let text = serde_json::to_string_pretty(&report).expect("a report serialises");
            say(out, &format!("{text}\n"));
        }
        Format::Plain => {
            let mut text = plain(&report);
            if let Some(stop) = found.stopped {
                text.push_str(&format!(
                    "incomplete         {}: the counts are of the representatives stored \
                     before\n",
                    stopped_by(stop, budget.max_states, Reader::CommandLine)
                ));
            }
            say(out, &text);
        }
    }
    if found.stopped.is_some() {
        EXIT_INCONCLUSIVE
    } else {
        0
    }
}

/// The text of assertion `index`'s implementation.
fn implementation(script: &Script, index: usize) -> String {
    let imp = script.assertions[index].kind.implementation();
    one_line(script.sources.snippet(script.function(imp).span))
}

/// What the audit found.
struct Found {
    symmetry: String,
    representatives: u64,
    orbits: u64,
    pairs: Vec<Pair>,
    /// Classes whose traces `why` would not confirm as a pair.
    unconfirmed: usize,
    stopped: Option<crate::budget::Stopped>,
}

/// Why the audit did not come to a report.
enum Unaudited {
    /// What went wrong, rendered.
    Failed(String),
    /// A budget stopped it before it could report: why, and the stage.
    Stopped(crate::budget::Stopped, String),
}

impl From<String> for Unaudited {
    fn from(problem: String) -> Unaudited {
        Unaudited::Failed(problem)
    }
}

/// Explores `func` reduced by `strategy`, then puts each representative
/// in its exact canonical form.
fn audit(
    script: &Script,
    func: FuncId,
    (reduce, strategy): (&Reduce, Strategy),
    budget: &Budget,
) -> Result<Found, Unaudited> {
    let rendered = |e: crate::eval::EvalError| e.to_diagnostic().render(&script.sources);
    let task = Task::explore(func, reduce.clone());
    let prepared =
        Prepared::exploration(script, task, strategy, budget).map_err(|problem| match problem {
            Unprepared::Stopped(stop, stage) => Unaudited::Stopped(stop, stage),
            Unprepared::Failed(d) => Unaudited::Failed(d.render(&script.sources)),
            Unprepared::Refused(problems) => {
                Unaudited::Failed(render_all(&problems, &script.sources))
            }
        })?;
    let symmetry: Result<String, String> = match &prepared.system.reduction {
        Reduction::Reduced(system) => Ok(system
            .get()
            .symmetry()
            .types()
            .iter()
            .map(|t| format!("{} ({})", t.name, t.values.len()))
            .collect::<Vec<_>>()
            .join(", ")),
        Reduction::Trivial { why, .. } => Err(format!("error: nothing to audit: {why}\n")),
        Reduction::Structural { .. } => Err(
            "error: the structural group's representatives are exact already (the least image \
             over the whole group): nothing to audit\n"
                .to_string(),
        ),
        // A structure with no symmetry is refused here, as it is when
        // asked to reduce anything else.
        other => Err(match other.refusal(script, func) {
            Some(problems) => render_all(&problems, &script.sources),
            None => "error: the process is not reduced: nothing to audit\n".to_string(),
        }),
    };
    let symmetry = symmetry?;
    let Kept {
        exploration: x,
        mut search,
        mut procs,
        mut reduction,
    } = prepared.explore_kept(budget).map_err(rendered)?;
    let system = reduction.system().expect("reduced by its datatypes");
    // Each representative's exact form; the first with a form stands for
    // its class, the others are its duplicates.
    let meter = budget.meter();
    let mut first_of: FxHashMap<Vec<u32>, u32> = FxHashMap::default();
    let mut duplicates: Vec<(u32, u32)> = Vec::new();
    let mut canonical = vec![0; search.components()];
    for id in 0..x.states as u32 {
        if id % 1024 == 1023 {
            meter.poll().map_err(|stop| {
                let stage = format!(
                    "putting the representatives in their exact form ({id} of {})",
                    x.states
                );
                Unaudited::Stopped(stop, stage)
            })?;
        }
        let row = search.row(id);
        system
            .exact_canonical(search.machine_mut(), &mut procs, &row, &mut canonical)
            .map_err(rendered)?;
        match first_of.get(&canonical) {
            Some(&first) => duplicates.push((first, id)),
            None => {
                first_of.insert(canonical.clone(), id);
            }
        }
    }
    // One pair per class, the deepest first (a whole ring, say, rather
    // than its first link), and only pairs whose visible traces differ:
    // `--after` takes τ steps as needed, so two traces that read the same
    // need not lead to the two states.
    let mut classes: Vec<(u32, u32)> = Vec::new();
    for &(first, other) in &duplicates {
        if !classes.iter().any(|&(f, _)| f == first) {
            classes.push((first, other));
        }
    }
    let depth = |search: &lts::search::Search, id: u32| search.path_to(id).0.len();
    classes.sort_by_key(|&(_, other)| std::cmp::Reverse(depth(&search, other)));
    // Each class's two runs, as `--after` reads them; then each pair
    // followed as `why` follows it, kept only where the two states it
    // reaches have different representatives.
    let mut runs = Vec::new();
    for &(a, b) in classes.iter().take(CANDIDATES) {
        let after = runs_to(&mut search, system, &mut procs, a).map_err(rendered)?;
        let vs = runs_to(&mut search, system, &mut procs, b).map_err(rendered)?;
        if let (Some(after), Some(vs)) = (after, vs) {
            runs.push((after, vs));
        }
    }
    let mut machine = search.into_machine();
    let mut pairs = Vec::new();
    let mut unconfirmed = 0;
    for ([after, seen_after], [vs, seen_vs]) in runs {
        if pairs.len() == PAIRS {
            break;
        }
        let mut confirmed = None;
        for traces in [[&after, &vs], [&seen_after, &seen_vs]] {
            let (reps, back) = representatives_after(&mut procs, machine, system, traces);
            machine = back;
            if let Some([a, b]) = reps.map_err(rendered)?
                && a != b
            {
                confirmed = Some(traces);
                break;
            }
        }
        match confirmed {
            Some([after, vs]) => pairs.push(Pair {
                after: shown(&procs, after),
                vs: shown(&procs, vs),
            }),
            None => unconfirmed += 1,
        }
    }
    Ok(Found {
        symmetry,
        representatives: x.states,
        orbits: first_of.len() as u64,
        pairs,
        unconfirmed,
        stopped: x.stopped,
    })
}

/// Two real runs behind stored state `id`, as visible events
/// ([`SystemSymmetry::unwind_path`]): the one the search's path reads
/// as, and that run seen through σ, which ends on the very state the
/// search turned into `id` (the first is easier to read; the second is
/// sure to reach a state whose representative is `id`).
fn runs_to(
    search: &mut lts::search::Search,
    system: &mut SystemSymmetry,
    procs: &mut Processes,
    id: u32,
) -> crate::eval::EvalResult<Option<[Vec<EventId>; 2]>> {
    let (events, ids) = search.path_to(id);
    let stored: Vec<Vec<u32>> = ids.iter().map(|&i| search.row(i)).collect();
    let Ok((run, sigma)) = system.unwind_path(search.machine_mut(), procs, &stored, &events)?
    else {
        return Ok(None);
    };
    let visible: Vec<EventId> = run.into_iter().filter(|&e| e != TAU && e != TICK).collect();
    let seen = visible
        .iter()
        .map(|&e| system.permute_event(procs, &sigma, e))
        .collect();
    Ok(Some([visible, seen]))
}

/// Events separated by commas, as `--after` reads them.
fn shown(procs: &Processes, events: &[EventId]) -> String {
    events
        .iter()
        .map(|&e| procs.show_event(e))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The representatives of the states two traces lead to, followed as
/// `symcsp why` follows them (τ steps as needed, the first state breadth
/// first that completes each): `None` when one cannot be followed to
/// its end. The machine comes back.
fn representatives_after(
    procs: &mut Processes,
    mut machine: Machine,
    system: &mut SystemSymmetry,
    traces: [&Vec<EventId>; 2],
) -> (crate::eval::EvalResult<Option<[Vec<u32>; 2]>>, Machine) {
    let mut reps = [Vec::new(), Vec::new()];
    for (trace, rep) in traces.into_iter().zip(&mut reps) {
        let (back, followed) = follow(procs, machine, trace, &Budget::default());
        machine = back;
        let row = match followed {
            Ok(followed) if followed.performed == trace.len() => {
                followed.rows.last().expect("the initial state").clone()
            }
            Ok(_) => return (Ok(None), machine),
            Err(e) => return (Err(e), machine),
        };
        rep.resize(row.len(), 0);
        if let Err(e) = system.canonical(&mut machine, procs, &row, rep) {
            return (Err(e), machine);
        }
    }
    (Ok(Some(reps)), machine)
}

fn plain(report: &Report) -> String {
    let mut out = format!(
        "audit {}, process {}\nsymmetry           {}\nstrategy           {}\n\
         representatives    {}\norbits             {} (the exact canonical forms of the \
         representatives)\n",
        report.file,
        report.process,
        report.symmetry,
        report.strategy,
        report.representatives,
        report.orbits
    );
    if report.duplicates == 0 {
        out.push_str("duplicates         none: one representative per symmetry class\n");
        return out;
    }
    out.push_str(&format!(
        "duplicates         {} (duplication factor {:.3}: representatives per class)\n",
        report.duplicates, report.duplication_factor
    ));
    if !report.pairs.is_empty() {
        out.push_str(&format!(
            "\n{} of one class each, the deepest first, as traces of the real system (for \
             `symcsp why FILE --after … --vs …`, or `m` and `=` in the animator):\n",
            plural(report.pairs.len(), "pair")
        ));
    }
    for (k, pair) in report.pairs.iter().enumerate() {
        out.push_str(&format!(
            "{:>3}. --after \"{}\" --vs \"{}\"\n",
            k + 1,
            pair.after,
            pair.vs
        ));
    }
    if report.unconfirmed > 0 {
        out.push_str(&format!(
            "({} left out: followed as `why` follows them, τ steps as needed, their traces do \
             not reach two states with different representatives; the duplicates differ in \
             hidden steps)\n",
            plural(report.unconfirmed, "class|classes")
        ));
    }
    out
}
