//! `symcsp symmetries FILE [PROCESS] [--format plain|json|dot] [--sweep
//! N=2..8]`: every symmetry of a system symcsp can find — the datatype
//! symmetries (automatic mode's types, with why each value left out is),
//! and the structural group: the communication graph's automorphisms,
//! each validated or refused with why, the standard patterns, and the
//! largest validated group with its orbits. `--sweep` loads the script
//! again for each value of its constant `N` and tabulates which patterns
//! hold: the evidence that a pattern holds for the family.

use std::io::Write;
use std::path::Path;

use serde::Serialize;

use super::{Format, fail_with, load, say};
use crate::budget::Budget;
use crate::lts::machine::Machine;
use crate::process::Processes;
use crate::script::Script;
use crate::symmetry::spec::Reduce;
use crate::symmetry::structural::{self, Candidate, Structure};
use crate::syntax::one_line;
use crate::types::Expect;

/// How `symmetries` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SymmetriesFormat {
    Plain,
    Json,
    /// The communication graph for Graphviz, orbits coloured.
    Dot,
}

pub struct Request<'a> {
    pub file: &'a Path,
    pub process: Option<&'a str>,
    pub format: SymmetriesFormat,
    /// `N=2..8`: a constant and the values to load the script with.
    pub sweep: Option<&'a str>,
    /// `--timeout` and `--max-memory`, its clock started.
    pub budget: Budget,
}

/// Why the analysis gave no report.
enum Unfinished {
    /// A budget stopped it (exit 3), in the stage named.
    Stopped(crate::budget::Stopped, String),
    /// The text of an error (exit 2).
    Problem(String),
}

impl From<String> for Unfinished {
    fn from(problem: String) -> Unfinished {
        Unfinished::Problem(problem)
    }
}

/// What finding the symmetries is, as a stop names its stage.
const ANALYSING: &str = "finding the system's symmetries";

#[derive(Serialize)]
struct Report {
    file: String,
    process: String,
    datatypes: Datatypes,
    components: usize,
    synchronisations: usize,
    graph_order: String,
    generators: Vec<Checked>,
    patterns: Vec<Checked>,
    group: Group,
}

#[derive(Serialize)]
struct Datatypes {
    /// `NodeID (4)`, each type automatic mode finds.
    types: Vec<String>,
    /// Each value left out, with where the script names it.
    left_out: Vec<String>,
}

#[derive(Serialize)]
struct Checked {
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<String>,
    cycles: String,
    holds: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
}

#[derive(Serialize)]
struct Group {
    order: String,
    how: String,
    orbits: Vec<Vec<String>>,
}

pub(super) fn run(request: &Request, out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    let plain = matches!(request.format, SymmetriesFormat::Plain);
    let json_format = if plain {
        super::Format::Plain
    } else {
        Format::Json
    };
    let unfinished =
        |unfinished: Unfinished, out: &mut dyn Write, err: &mut dyn Write| match unfinished {
            Unfinished::Stopped(reason, stage) => super::stopped_before(
                (json_format, request.file),
                "no symmetries found",
                (reason, None),
                &stage,
                out,
                err,
            ),
            Unfinished::Problem(problem) => {
                fail_with(json_format, request.file, &problem, out, err)
            }
        };
    if let Some(sweep) = request.sweep {
        return match sweep_table(request, sweep) {
            Ok(text) => {
                say(out, &text);
                0
            }
            Err(problem) => unfinished(problem, out, err),
        };
    }
    let mut loaded = match load(request.file, &request.budget, err) {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    let process = match process_text(&loaded.script, request) {
        Ok(text) => text,
        Err(problem) => return fail_with(json_format, request.file, &problem, out, err),
    };
    let func = match loaded.add_expr("<process>", &process, Expect::Process) {
        Ok(func) => func,
        Err(ds) => {
            let problem = crate::syntax::render_all(&ds, &loaded.script.sources);
            return fail_with(json_format, request.file, &problem, out, err);
        }
    };
    let script = loaded.script;
    let found = crate::stack::with_large_stack(|| analyse(&script, func, &request.budget));
    let (structure, datatypes, dot) = match found {
        Ok(found) => found,
        Err(problem) => return unfinished(problem, out, err),
    };
    let report = report(request.file, &process, &structure, datatypes);
    match request.format {
        SymmetriesFormat::Dot => say(out, &dot),
        SymmetriesFormat::Json => {
            let text = serde_json::to_string_pretty(&report).expect("a report serialises");
            say(out, &format!("{text}\n"));
        }
        SymmetriesFormat::Plain => say(out, &text(&report)),
    }
    0
}

/// The process asked about: as typed, else the first assertion's.
fn process_text(script: &Script, request: &Request) -> Result<String, String> {
    match request.process {
        Some(text) => Ok(text.to_string()),
        None => match script.assertions.first() {
            Some(a) => Ok(one_line(
                script
                    .sources
                    .snippet(script.function(a.kind.implementation()).span),
            )),
            None => Err(format!(
                "error: {} has no assertion to take a process from: name the process \
                 (`symcsp symmetries {0} PROCESS`)\n",
                request.file.display()
            )),
        },
    }
}

/// The structure of process `func`, automatic mode's datatypes, and the
/// graph as DOT.
fn analyse(
    script: &Script,
    func: crate::script::ir::FuncId,
    budget: &Budget,
) -> Result<(Structure, Datatypes, String), Unfinished> {
    let rendered = |e: crate::eval::EvalError| match e.stop_reason() {
        Some(stop) => Unfinished::Stopped(stop, e.stage.clone().unwrap_or(ANALYSING.to_string())),
        None => Unfinished::Problem(e.to_diagnostic().render(&script.sources)),
    };
    let (mut procs, root) =
        Processes::with_root_within(script, func, budget.meter()).map_err(rendered)?;
    let machine = Machine::new(&mut procs, root).map_err(rendered)?;
    let structure = structural::analyse(&machine, &mut procs).map_err(rendered)?;
    let automatic = Reduce::Automatic
        .resolve(script, procs.evaluator(), &[func])
        .ok()
        .flatten();
    let datatypes = match automatic {
        Some(s) => Datatypes {
            types: s
                .types()
                .iter()
                .filter(|t| t.values.len() > 1)
                .map(|t| format!("{} ({})", t.name, t.values.len()))
                .collect(),
            left_out: s.left_out_lines(script),
        },
        None => Datatypes {
            types: Vec::new(),
            left_out: Vec::new(),
        },
    };
    let orbits = structure.component_orbits();
    let dot = structure.graph.to_dot(&procs, &orbits);
    Ok((structure, datatypes, dot))
}

fn checked(name: Option<String>, candidate: &Candidate) -> Checked {
    Checked {
        name,
        cycles: candidate.cycles.clone(),
        holds: candidate.result.is_ok(),
        reason: candidate.result.as_ref().err().cloned(),
    }
}

fn report(file: &Path, process: &str, s: &Structure, datatypes: Datatypes) -> Report {
    Report {
        file: crate::syntax::display_name(file),
        process: process.to_string(),
        datatypes,
        components: s.graph.components,
        synchronisations: s.graph.synchronisations(),
        graph_order: s.automorphisms.order.to_string(),
        generators: s.generators.iter().map(|c| checked(None, c)).collect(),
        patterns: s
            .patterns
            .iter()
            .map(|(p, c)| checked(Some(format!("{} over {}", p.name, p.over)), c))
            .collect(),
        group: Group {
            order: s.order.to_string(),
            how: s.how.clone(),
            orbits: s
                .component_orbits()
                .into_iter()
                .filter(|o| o.len() > 1)
                .map(|o| o.iter().map(|&c| s.graph.names[c].clone()).collect())
                .collect(),
        },
    }
}

fn text(r: &Report) -> String {
    let mut out = format!("symmetries of {}, process {}\n\n", r.file, r.process);
    if r.datatypes.types.is_empty() {
        out.push_str("datatypes      none to permute\n");
    } else {
        out.push_str(&format!(
            "datatypes      {}\n",
            r.datatypes.types.join(", ")
        ));
    }
    for line in &r.datatypes.left_out {
        out.push_str(&format!("               {line}\n"));
    }
    out.push_str(&format!(
        "structure      {} components, {} events they perform\n",
        r.components, r.synchronisations
    ));
    out.push_str(&format!(
        "automorphisms  the communication graph's group has order {}{}\n",
        r.graph_order,
        if r.generators.is_empty() {
            ": no automorphism but the identity".to_string()
        } else {
            format!(
                ", generated by {}:",
                super::plural(r.generators.len(), "permutation")
            )
        }
    ));
    let verdict = |c: &Checked| match &c.reason {
        None => "holds".to_string(),
        Some(why) => format!("fails: {why}"),
    };
    for g in &r.generators {
        out.push_str(&format!(
            "  {}\n    {}\n",
            shortened_cycles(&g.cycles),
            verdict(g)
        ));
    }
    if !r.patterns.is_empty() {
        out.push_str("patterns\n");
        for p in &r.patterns {
            out.push_str(&format!(
                "  {}: {}\n",
                p.name.as_deref().unwrap_or_default(),
                verdict(p)
            ));
        }
    }
    out.push_str(&format!(
        "group          order {}: {}\n",
        r.group.order, r.group.how
    ));
    if r.group.orbits.is_empty() {
        out.push_str(
            "orbits         none: no component is moved by a validated symmetry, so nothing is \
             reduced\n",
        );
    } else {
        for (k, orbit) in r.group.orbits.iter().enumerate() {
            let label = if k == 0 { "orbits" } else { "" };
            let shown = if orbit.len() > SHOWN {
                format!(
                    "{}, … ({} components; --format json lists them)",
                    orbit[..SHOWN].join(", "),
                    orbit.len()
                )
            } else {
                orbit.join(", ")
            };
            out.push_str(&format!("{label:<15}{{{shown}}}\n"));
        }
    }
    out
}

/// The most components or cycles a line shows in the plain report.
const SHOWN: usize = 8;

/// A permutation in cycle notation, cut after its first [`SHOWN`]
/// cycles (a ring of a thousand has five hundred).
fn shortened_cycles(cycles: &str) -> String {
    let (components, events) = match cycles.split_once("; events ") {
        Some((c, e)) => (c, Some(e)),
        None => (cycles, None),
    };
    let starts: Vec<usize> = components.match_indices(")(").map(|(k, _)| k + 1).collect();
    let mut shown = if starts.len() >= SHOWN {
        format!(
            "{}… ({} cycles; --format json lists them)",
            &components[..starts[SHOWN - 1]],
            starts.len() + 1
        )
    } else {
        components.to_string()
    };
    if let Some(events) = events {
        shown.push_str("; events ");
        shown.push_str(events);
    }
    shown
}

/// `--sweep N=2..8`: the script loaded with each value of `N`, the
/// patterns that hold at each, as a table.
fn sweep_table(request: &Request, sweep: &str) -> Result<String, Unfinished> {
    let bad = || format!("error: --sweep takes NAME=FROM..TO (`N=2..8`), not `{sweep}`\n");
    let (name, range) = sweep.split_once('=').ok_or_else(bad)?;
    let (from, to) = range.split_once("..").ok_or_else(bad)?;
    let (name, from, to): (&str, u32, u32) = (
        name.trim(),
        from.trim().parse().map_err(|_| bad())?,
        to.trim().parse().map_err(|_| bad())?,
    );
    if from > to || to - from > 64 {
        return Err(format!(
            "error: --sweep {name}={from}..{to}: give at most 65 values, smallest first\n"
        )
        .into());
    }
    let text = std::fs::read_to_string(request.file)
        .map_err(|e| format!("error: cannot read {}: {e}\n", request.file.display()))?;
    let prefix = format!("{name} =");
    let at = text
        .lines()
        .position(|l| {
            l.trim_start().starts_with(&prefix) || l.trim_start().starts_with(&format!("{name}="))
        })
        .ok_or_else(|| {
            format!(
                "error: {} defines no `{name} = …` at the start of a line to sweep\n",
                request.file.display()
            )
        })?;
    let mut out = format!(
        "symmetries of {} as {name} goes from {from} to {to}\n\n",
        crate::syntax::display_name(request.file)
    );
    let mut rows: Vec<SweepRow> = Vec::new();
    for value in from..=to {
        let swept: String = text
            .lines()
            .enumerate()
            .map(|(k, l)| {
                if k == at {
                    format!("{name} = {value}\n")
                } else {
                    format!("{l}\n")
                }
            })
            .collect();
        let loaded = crate::types::load_str(&crate::syntax::display_name(request.file), &swept)
            .map_err(|e| e.render())?;
        let mut loaded = loaded;
        let process = process_text(&loaded.script, request)?;
        let func = loaded
            .add_expr("<process>", &process, Expect::Process)
            .map_err(|ds| crate::syntax::render_all(&ds, &loaded.script.sources))?;
        let script = loaded.script;
        let (structure, _, _) =
            crate::stack::with_large_stack(|| analyse(&script, func, &request.budget))?;
        let patterns = structure
            .patterns
            .iter()
            .map(|(p, c)| (pattern_kind(&p.name), c.result.is_ok()))
            .collect();
        rows.push((
            value,
            structure.graph.components,
            structure.automorphisms.order.to_string(),
            structure.order.to_string(),
            patterns,
        ));
    }
    let mut kinds: Vec<String> = Vec::new();
    for (.., patterns) in &rows {
        for (kind, _) in patterns {
            if !kinds.contains(kind) {
                kinds.push(kind.clone());
            }
        }
    }
    out.push_str(&format!(
        "{name:>4}  components  graph order  group order  {}\n",
        kinds.join("  ")
    ));
    for (value, components, graph, group, patterns) in &rows {
        let cells: Vec<String> = kinds
            .iter()
            .map(|k| {
                let holds = patterns.iter().find(|(kind, _)| kind == k).map(|&(_, h)| h);
                let cell = match holds {
                    Some(true) => "holds",
                    Some(false) => "fails",
                    None => "—",
                };
                format!("{cell:<width$}", width = k.len())
            })
            .collect();
        out.push_str(&format!(
            "{value:>4}  {components:>10}  {graph:>11}  {group:>11}  {}\n",
            cells.join("  ").trim_end()
        ));
    }
    Ok(out)
}

/// One value of a sweep: the value, the components, the graph's and
/// the validated group's orders, and each pattern's kind and whether it
/// holds.
type SweepRow = (u32, usize, String, String, Vec<(String, bool)>);

/// A pattern's kind, without its size: `rotation`, `reflection`, `swap`.
fn pattern_kind(name: &str) -> String {
    name.split_whitespace().next().unwrap_or(name).to_string()
}
