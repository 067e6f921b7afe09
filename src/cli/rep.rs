//! `symcsp rep FILE [PROCESS] [--after "e1, e2"] [--symmetry auto|T,U]
//! [--stages] [--format plain|json|dot|markdown|latex|svg]`: the
//! representative of the state a trace leads to, beside the state, with
//! the permutation, the component bijection α and every partition the
//! representative algorithm built — each n-value's columns named and each
//! split explained — and the state as a graph; plain, JSON, or the graph
//! for Graphviz. `--stages` shows only the algorithm, stage by stage,
//! with the cell sizes of each on one line; Markdown, LaTeX and SVG are
//! exports of the stages for slides and handouts.
//!
//! Without PROCESS, the process of the first assertion that asks for
//! symmetry reduction, with its types. Exit 0, or 2 for anything the user
//! must fix (a syntax or evaluation error, types that are not symmetric,
//! a system that is not mappable, a trace the process cannot perform).
//! The text of one explanation is shared with `symcsp why`.

use std::io::Write;
use std::path::Path;

use serde_json::{Map, Value as Json, json};

use super::reach::{Question, Reached, Subject, answer, reach};
use super::{EXIT_INPUT_ERROR, say};
use crate::explain::by_hand::ByHand;
use crate::explain::command::{Reach, RepCommand};
use crate::explain::drawing::{layout, plain as drawing_text};
use crate::explain::graph::{EdgeKind, StateGraph};
use crate::explain::splits::{StepAccount, account};
use crate::explain::stages::latex::{beamer, latex};
use crate::explain::stages::markdown::markdown;
use crate::explain::stages::svg::svg;
use crate::explain::stages::{self, Document, Shown, Sources, cell_sizes, uniqueness};
use crate::explain::variables::ComponentVariables;
use crate::script::Script;
use crate::symmetry::perm::permutation_lines;
use crate::symmetry::rep::Step;
use crate::symmetry::strategy::Strategy;
use crate::symmetry::{Atom, Explanation, Origin, Permutation, Symmetry};

/// How `symcsp rep` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum RepFormat {
    /// Text for a person.
    Plain,
    /// One JSON object, for programs.
    Json,
    /// The state as a graph, in Graphviz's DOT language.
    Dot,
    /// The algorithm stage by stage, as Markdown (implies `--stages`).
    Markdown,
    /// The algorithm stage by stage, as a LaTeX article (implies
    /// `--stages`).
    Latex,
    /// The algorithm stage by stage, a drawing per stage (implies
    /// `--stages`).
    Svg,
    /// The algorithm stage by stage, as beamer slides: a frame per
    /// stage, wide tables folded (implies `--stages`).
    Beamer,
}

/// A printer of the stages.
type Export = fn(&Document, Shown) -> String;

/// An export of the stages as asked: its printer and files' extension,
/// `--stage` and `--output`.
struct Exporting<'a> {
    printer: (Export, &'static str),
    stage: Option<usize>,
    output: Option<&'a Path>,
    /// The command that prints it, for its heading.
    reproduce: Option<String>,
}

impl RepFormat {
    /// The printer of an export of the stages and its files' extension
    /// (`None`: not an export).
    fn export(self) -> Option<(Export, &'static str)> {
        match self {
            RepFormat::Markdown => Some((markdown, "md")),
            RepFormat::Latex => Some((latex, "tex")),
            RepFormat::Svg => Some((svg, "svg")),
            RepFormat::Beamer => Some((beamer, "tex")),
            RepFormat::Plain | RepFormat::Json | RepFormat::Dot => None,
        }
    }
}

pub struct Request<'a> {
    pub file: &'a Path,
    pub process: Option<&'a str>,
    pub after: Option<&'a str>,
    /// `--path`: the state by the numbers of its moves, as the animator
    /// lists them (τ included), instead of `after`.
    pub path: Option<&'a [usize]>,
    pub symmetry: Option<&'a str>,
    /// `--strategy`: whose representative is shown beside the
    /// algorithm's.
    pub strategy: Strategy,
    pub format: RepFormat,
    /// Only the algorithm's stages (what the exports always are).
    pub stages: bool,
    /// Step 3 by hand: the components (from 1) its splits split off.
    pub choose: &'a [usize],
    /// `--stage K`: only stage K (from 1) of an export.
    pub stage: Option<usize>,
    /// `--output DIR`: an export written a file per stage into DIR.
    pub output: Option<&'a Path>,
}

/// How wide the state's drawing may be.
pub(super) const DRAWING_WIDTH: usize = 100;

pub(super) fn run(request: &Request, out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    if request.stages && matches!(request.format, RepFormat::Json | RepFormat::Dot) {
        say(
            err,
            "error: --stages shows the algorithm stage by stage as plain text, markdown, latex or \
             svg; --format json already holds every stage (\"steps\"), and --format dot draws \
             the last\n",
        );
        return EXIT_INPUT_ERROR;
    }
    if (request.stage.is_some() || request.output.is_some()) && request.format.export().is_none() {
        say(
            err,
            "error: --stage and --output choose what an export of the stages holds: give \
             --format markdown, latex, beamer or svg\n",
        );
        return EXIT_INPUT_ERROR;
    }
    let question = Question {
        file: request.file,
        process: request.process,
        symmetry: request.symmetry,
        strategy: request.strategy,
        traces: vec![("<after>", request.after)],
        command: "rep",
        path: request.path,
    };
    answer(&question, out, err, |script, subject| {
        report(script, subject, request)
    })
}

/// An error when a `--choose` (numbered from 1) cannot be followed: a
/// component outside the cell its split splits, or more choices than
/// the algorithm makes step-3 splits. Slides must never say a member was
/// "chosen by hand" when another was split off.
fn refuse_choices_not_made(choose: &[usize], hand: &ByHand) -> Result<(), String> {
    for (k, split) in hand.splits.iter().enumerate() {
        if let Some(asked) = split.asked
            && !split.members.contains(&asked)
        {
            let members: Vec<String> = split.members.iter().map(|m| (m + 1).to_string()).collect();
            return Err(format!(
                "error: --choose {}: step 3's split {} splits the cell of components {}; \
                 choose one of them\n",
                asked + 1,
                k + 1,
                members.join(", ")
            ));
        }
    }
    if choose.len() > hand.splits.len() {
        return Err(format!(
            "error: --choose {}: step 3 splits {} here, so --choose takes at most {} \
             component{}\n",
            choose[hand.splits.len()],
            match hand.splits.len() {
                0 => "no cell".to_string(),
                1 => "one cell".to_string(),
                n => format!("{n} cells"),
            },
            hand.splits.len(),
            if hand.splits.len() == 1 { "" } else { "s" }
        ));
    }
    Ok(())
}

fn report(script: &Script, subject: &Subject, request: &Request) -> Result<String, String> {
    let Request {
        format,
        stages,
        choose,
        ..
    } = *request;
    let mut reached = reach(script, subject)?;
    let (trace, row) = reached.states[0].clone();
    if let Some(&bad) = choose.iter().find(|&&c| c == 0 || c > row.len()) {
        return Err(format!(
            "error: --choose {bad}: the state's components are numbered 1 to {}\n",
            row.len()
        ));
    }
    let choices: Vec<usize> = choose.iter().map(|c| c - 1).collect();
    let hand = reached
        .system
        .by_hand(&mut reached.machine, &mut reached.procs, &row, &choices);
    refuse_choices_not_made(choose, &hand)?;
    let by_hand = (!choices.is_empty()).then_some(HandShown { by_hand: &hand });
    let explanation = &hand.chosen;
    let variables = reached
        .system
        .variables(&reached.machine, &mut reached.procs, &row);
    let by_strategy = StrategyShown::of(&mut reached, &row, &explanation.representative)?;
    let one = One::new(&reached, explanation, variables);
    Ok(match format {
        RepFormat::Plain if !stages => {
            let mut out = header(&reached, subject, &[("after", &trace)]);
            out.push_str(&one.plain());
            if let Some(by_hand) = &by_hand {
                out.push_str(&by_hand.plain(&reached));
            }
            if let Some(shown) = &by_strategy {
                out.push_str(&shown.plain(&reached));
            }
            out
        }
        RepFormat::Json => {
            let mut object = header_json(&reached, subject);
            object.insert("after".into(), json!(trace));
            if let Json::Object(rest) = one.json() {
                object.extend(rest);
            }
            if let Some(by_hand) = &by_hand {
                object.insert("by_hand".into(), by_hand.json(&reached));
            }
            if let Some(shown) = &by_strategy {
                object.insert("strategy".into(), shown.json(&reached));
            }
            serde_json::to_string_pretty(&Json::Object(object)).expect("a report serialises") + "\n"
        }
        RepFormat::Dot => crate::explain::drawing::dot(&one.graph, &one.texts),
        RepFormat::Plain => one.stages(subject, &trace, None, None)?,
        RepFormat::Markdown | RepFormat::Latex | RepFormat::Svg | RepFormat::Beamer => {
            let export = format.export().map(|printer| Exporting {
                printer,
                stage: request.stage,
                output: request.output,
                reproduce: (format == RepFormat::Markdown).then(|| reproduce(request, subject)),
            });
            one.stages(subject, &trace, export, by_hand.as_ref().map(|h| h.by_hand))?
        }
    })
}

/// The command that prints this export, for its Markdown heading (a
/// handout's reader can run it; the animator's `E` writes what it
/// prints). Slides have no room for it.
fn reproduce(request: &Request, subject: &Subject) -> String {
    let file = request.file.display().to_string();
    let strategy = request.strategy.to_string();
    let reach = match (request.path, request.after) {
        (Some(moves), _) => Reach::Path(moves),
        (None, Some(trace)) => Reach::After(trace),
        (None, None) => Reach::Initial,
    };
    RepCommand {
        file: &file,
        process: &subject.process_text,
        symmetry: request.symmetry,
        strategy: (request.strategy != Strategy::default()).then_some(strategy.as_str()),
        reach,
        choose: request.choose,
        stage: request.stage,
        format: "markdown",
    }
    .line()
}

/// The export `print` makes of `document` (its files named `extension`):
/// the whole, or stage `stage`
/// (from 1) alone; with `output`, a file per stage and the whole written
/// into that folder (each whole or not at all), and what was written
/// said instead.
fn exported(document: &Document, export: Exporting) -> Result<String, String> {
    let Exporting {
        printer: (print, extension),
        stage,
        output,
        ..
    } = export;
    let total = document.stages.len();
    let slides = Shown::slides(document);
    let shown = match stage {
        None => Shown::All,
        Some(k) if (1..=slides.len()).contains(&k) => slides[k - 1],
        Some(k) => {
            let by_hand = match slides.len() > total + 1 {
                true => format!(", {}: step 3 by hand", total + 2),
                false => String::new(),
            };
            return Err(format!(
                "error: --stage {k}: this state's algorithm has {total} stages, numbered from 1 \
                 (then {}: the orderings and the permutation{by_hand})\n",
                total + 1
            ));
        }
    };
    let Some(folder) = output else {
        return Ok(print(document, shown));
    };
    // A file per slide, then the whole.
    let name = |shown: Shown| match shown {
        Shown::Stage(k) => format!("stage-{}.{extension}", k + 1),
        Shown::Closing => format!("orderings.{extension}"),
        Shown::ByHand => format!("by-hand.{extension}"),
        Shown::All => format!("all.{extension}"),
    };
    let shown_in_files = match shown {
        Shown::All => slides.into_iter().chain([Shown::All]).collect(),
        one => vec![one],
    };
    let files: Vec<(String, Shown)> = shown_in_files
        .into_iter()
        .map(|shown| (name(shown), shown))
        .collect();
    let cannot = |what: &str, e: std::io::Error| {
        format!("error: cannot write {what}: {e}\n  = note: nothing was written there\n")
    };
    std::fs::create_dir_all(folder).map_err(|e| cannot(&folder.display().to_string(), e))?;
    let mut said = String::new();
    for (name, shown) in files {
        let path = folder.join(&name);
        crate::files::write_atomically(&path, print(document, shown).as_bytes())
            .map_err(|e| cannot(&path.display().to_string(), e))?;
        said.push_str(&format!("wrote {}\n", path.display()));
    }
    Ok(said)
}

/// The representative another strategy than the algorithm's gives, beside
/// the algorithm's.
struct StrategyShown {
    strategy: Strategy,
    representative: Vec<u32>,
    permutation: Permutation,
    alpha: Vec<usize>,
    /// Whether it is the algorithm's representative too.
    same: bool,
}

impl StrategyShown {
    /// `None` for FDR's strategy (the algorithm shown already).
    fn of(
        reached: &mut Reached,
        row: &[u32],
        algorithm: &[u32],
    ) -> Result<Option<StrategyShown>, String> {
        let strategy = reached.system.strategy();
        if strategy == Strategy::Fdr {
            return Ok(None);
        }
        let mut representative = vec![0; row.len()];
        let permutation = reached
            .system
            .canonical(
                &mut reached.machine,
                &mut reached.procs,
                row,
                &mut representative,
            )
            .map_err(|e| e.to_diagnostic().render(&reached.procs.script().sources))?
            .clone();
        let same = representative == algorithm;
        let alpha = reached.system.alpha(&mut reached.procs, &permutation);
        Ok(Some(StrategyShown {
            strategy,
            representative,
            permutation,
            alpha,
            same,
        }))
    }

    fn plain(&self, reached: &Reached) -> String {
        let mut out = format!(
            "
the {} strategy ({})
",
            self.strategy,
            self.strategy.summary()
        );
        for (slot, text) in reached.texts(&self.representative).iter().enumerate() {
            out.push_str(&format!("{:>3}  {text}\n", slot + 1));
        }
        out.push_str(&permutation_text(
            "permutation",
            "the identity",
            &self.permutation,
            &self.alpha,
            &reached.symmetry,
            reached.procs.script(),
        ));
        out.push_str(if self.same {
            "the same representative as the algorithm's\n"
        } else {
            "not the algorithm's representative: the algorithm gives another state of the same \
             symmetry class\n"
        });
        out
    }

    fn json(&self, reached: &Reached) -> Json {
        json!({
            "name": self.strategy.name(),
            "representative": reached.texts(&self.representative),
            "permutation": permutation_json(&self.permutation, &reached.symmetry, reached.procs.script()),
            "same_as_algorithm": self.same,
        })
    }
}

/// The lines naming the process, each state's trace (`after ...`), the
/// types and the group.
pub(super) fn header(reached: &Reached, subject: &Subject, traces: &[(&str, &[String])]) -> String {
    let mut out = String::new();
    for (label, text) in heading(reached, subject, traces) {
        out.push_str(&format!("{label:<10} {text}\n"));
    }
    out.push('\n');
    out
}

/// The header's lines as `(label, text)` ([`stages::heading`]).
fn heading(
    reached: &Reached,
    subject: &Subject,
    traces: &[(&str, &[String])],
) -> Vec<(String, String)> {
    let traces: Vec<(&str, Vec<String>)> = traces
        .iter()
        .map(|(label, trace)| (*label, trace.to_vec()))
        .collect();
    stages::heading(
        &subject.process_text,
        &traces,
        &reached.symmetry,
        reached.procs.script(),
    )
}

/// The process and the symmetry, as JSON fields.
pub(super) fn header_json(reached: &Reached, subject: &Subject) -> Map<String, Json> {
    let script = reached.procs.script();
    let symmetry = &reached.symmetry;
    let mut object = Map::new();
    object.insert("process".into(), json!(subject.process_text));
    object.insert(
        "symmetry".into(),
        json!({
            "origin": match &symmetry.origin {
                Origin::Assertion(_) => "assertion",
                Origin::CommandLine => "command line",
                Origin::Automatic => "automatic",
            },
            "types": symmetry.types().iter().map(|t| json!({
                "name": t.name,
                "values": t.values.iter().map(|c| script.ctors[c.index()].name.as_str()).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
            "left_out": symmetry.left_out_lines(script),
            "group_order": symmetry.group_order().value().to_string(),
        }),
    );
    object
}

/// A permutation under `title`, as text ([`permutation_lines`]).
pub(super) fn permutation_text(
    title: &str,
    identity: &str,
    permutation: &Permutation,
    alpha: &[usize],
    symmetry: &Symmetry,
    script: &Script,
) -> String {
    permutation_lines(title, identity, permutation, alpha, symmetry, script)
        .iter()
        .map(|line| format!("{line}\n"))
        .collect()
}

/// A permutation as JSON: per type, each value's image.
pub(super) fn permutation_json(
    permutation: &Permutation,
    symmetry: &Symmetry,
    script: &Script,
) -> Json {
    let mut object = Map::new();
    for (t, ty) in symmetry.types().iter().enumerate() {
        let mut map = Map::new();
        for (i, &j) in permutation.images(t).iter().enumerate() {
            map.insert(
                symmetry.name(script, Atom::new(t, i)).to_string(),
                json!(symmetry.name(script, Atom::new(t, j as usize))),
            );
        }
        object.insert(ty.name.clone(), Json::Object(map));
    }
    Json::Object(object)
}

pub(super) use crate::explain::compare::widest;

/// An ordered partition as `{A, B}  {C}`.
pub(super) fn cells_text(cells: &[Vec<usize>], texts: &[String]) -> String {
    cells
        .iter()
        .map(|cell| {
            let members: Vec<&str> = cell.iter().map(|&c| texts[c].as_str()).collect();
            format!("{{{}}}", members.join(", "))
        })
        .collect::<Vec<_>>()
        .join("  ")
}

/// One state explained: what the library says about it, with the texts
/// it is shown with.
pub(super) struct One<'r> {
    reached: &'r Reached<'r>,
    explanation: &'r Explanation,
    pub texts: Vec<String>,
    steps: Vec<StepAccount>,
    pub graph: StateGraph,
}

impl<'r> One<'r> {
    pub fn new(
        reached: &'r Reached<'r>,
        explanation: &'r Explanation,
        variables: Vec<ComponentVariables>,
    ) -> One<'r> {
        let steps = account(&explanation.trace, &variables);
        let graph = StateGraph::new(variables, explanation.trace.final_cells());
        One {
            reached,
            explanation,
            texts: reached.texts(&explanation.state),
            steps,
            graph,
        }
    }

    fn script(&self) -> &'r Script {
        self.reached.procs.script()
    }

    fn atom(&self, atom: Atom) -> &'r str {
        self.reached.symmetry.name(self.script(), atom)
    }

    /// The permutation that made the representative, and α.
    fn permutation(&self) -> String {
        let x = self.explanation;
        permutation_text(
            "permutation",
            "the identity: the state is its own representative",
            &x.permutation,
            &x.alpha,
            &self.reached.symmetry,
            self.script(),
        )
    }

    /// Everything after the header: the state beside its representative,
    /// the permutation, the algorithm, uniqueness and the graph.
    pub fn plain(&self) -> String {
        let x = self.explanation;
        let texts = &self.texts;
        let mut out = String::new();
        // The state beside its representative, each component on the line
        // of its image.
        let width = widest(texts, 5);
        let number = |s: usize| format!("{:>3}", s + 1);
        out.push_str(&format!(
            "{:>3}  {:<width$}      {:>3}  representative\n",
            "", "state", ""
        ));
        for (slot, text) in texts.iter().enumerate() {
            let image = x.alpha[slot];
            out.push_str(&format!(
                "{}  {text:<width$}  ↦  {}  {}\n",
                number(slot),
                number(image),
                self.reached.text(&x.representative, image)
            ));
        }
        out.push('\n');
        out.push_str(&self.permutation());
        out.push('\n');
        out.push_str("the algorithm\n");
        out.push_str(&self.algorithm());
        out.push_str(&format!("\nunique      {}\n", uniqueness(self.explanation)));
        out.push_str(
            "\nthe state as a graph (Section 7.1): #n is component n; arrows point at identities\n",
        );
        for line in drawing_text(&layout(&self.graph, texts, DRAWING_WIDTH)).lines() {
            out.push_str(&format!("  {line}\n"));
        }
        out
    }

    /// The algorithm's steps, each partition, n-value and split, with
    /// the columns named and each split explained.
    pub fn algorithm(&self) -> String {
        let x = self.explanation;
        let texts = &self.texts;
        let mut out = String::new();
        let width = widest(texts, 5);
        let steps = &x.trace.steps;
        out.push_str(&format!(
            "  cell sizes, stage by stage: {}\n",
            cell_sizes(&x.trace)
        ));
        for (index, (step, account)) in steps.iter().zip(&self.steps).enumerate() {
            match (step, account) {
                (Step::Shapes { cells }, _) => {
                    out.push_str(&format!(
                        "  step 1  by control state and other values: {} cell{}\n    {}\n",
                        cells.len(),
                        if cells.len() == 1 { "" } else { "s" },
                        cells_text(cells, texts)
                    ));
                }
                (
                    Step::Refine {
                        n_values,
                        cells,
                        split,
                    },
                    StepAccount::Refine {
                        round,
                        columns,
                        splits,
                    },
                ) => {
                    out.push_str(&format!("  step 2  round {round}: n-values\n"));
                    // The n-values come cell by cell (of the partition
                    // before the round): each cell's columns first, so a
                    // component is read under its own cell.
                    let before = steps[index.saturating_sub(1)].cells();
                    let mut heading = None;
                    let mut shown = String::new();
                    for nv in n_values {
                        let own = before.iter().position(|c| c.contains(&nv.component));
                        if let Some(j) = own
                            && heading != Some(j)
                        {
                            heading = Some(j);
                            let header = columns.get(j).map(|c| c.header()).unwrap_or_default();
                            let header = if header.is_empty() {
                                "(no distinguished value)".to_string()
                            } else if header == shown {
                                "as above".to_string()
                            } else {
                                shown = header.clone();
                                header
                            };
                            out.push_str(&format!(
                                "    {:<width$}  {header}\n",
                                format!("cell {} columns", j + 1),
                            ));
                        }
                        out.push_str(&format!("    {:<width$}  {nv}\n", texts[nv.component]));
                    }
                    if *split {
                        out.push_str(&format!(
                            "    → {} cells: {}\n",
                            cells.len(),
                            cells_text(cells, texts)
                        ));
                        for part in splits.iter().flat_map(|s| &s.parts) {
                            out.push_str(&format!("      {}\n", part.sentence(texts)));
                        }
                    } else {
                        out.push_str("    → no cell splits: step 2 is done\n");
                    }
                }
                (Step::Individualise { cells, .. }, StepAccount::Individualise(split)) => {
                    out.push_str(&format!(
                        "  step 3  {}\n    {}\n",
                        split.sentence(texts, &self.graph.variables),
                        cells_text(cells, texts)
                    ));
                }
                _ => {}
            }
        }
        let order: Vec<&str> = x.trace.order.iter().map(|&c| texts[c].as_str()).collect();
        out.push_str(&format!("  order   {}\n", order.join(", ")));
        // The legend only when some value appears nowhere.
        let orderings = x.trace.type_orderings.iter();
        let hidden = orderings
            .zip(&x.trace.appeared)
            .any(|(ordering, &appeared)| appeared < ordering.len());
        out.push_str(if hidden {
            "  type orderings (values after | appear nowhere: their order is arbitrary)\n"
        } else {
            "  type orderings\n"
        });
        for (t, ordering) in x.trace.type_orderings.iter().enumerate() {
            let appeared = x.trace.appeared[t];
            let names: Vec<&str> = ordering.iter().map(|&a| self.atom(a)).collect();
            let rest = if appeared < names.len() {
                format!(" | {}", names[appeared..].join(", "))
            } else {
                String::new()
            };
            out.push_str(&format!(
                "    {}: {}{rest}\n",
                self.reached.symmetry.types()[t].name,
                names[..appeared].join(", ")
            ));
        }
        out
    }

    /// The algorithm stage by stage: exported, or as plain text (the
    /// header, the algorithm and the permutation). A state with nothing
    /// to show stage by stage is an error, said plainly.
    fn stages(
        &self,
        subject: &Subject,
        trace: &[String],
        export: Option<Exporting>,
        by_hand: Option<&ByHand>,
    ) -> Result<String, String> {
        let reached = self.reached;
        let traces = [("after", trace)];
        let mut heading = heading(reached, subject, &traces);
        if let Some(command) = export.as_ref().and_then(|e| e.reproduce.clone()) {
            heading.push(("reproduce".to_string(), command));
        }
        let mut document = Document::new(Sources {
            heading,
            explanation: self.explanation,
            accounts: &self.steps,
            graph: &self.graph,
            texts: &self.texts,
            representative: reached.texts(&self.explanation.representative),
            symmetry: &reached.symmetry,
            script: self.script(),
        });
        if let Some(hand) = by_hand {
            document.by_hand =
                hand.document_lines(|r| reached.texts(r), &reached.symmetry, self.script());
        }
        if let Some(why) = document.nothing_to_show(&reached.symmetry) {
            return Err(format!(
                "error: nothing to show stage by stage: {why}\n  = note: give --after a trace to a \
                 state of several components holding values of the types\n"
            ));
        }
        Ok(match export {
            Some(export) => exported(&document, export)?,
            None => {
                let mut out = header(reached, subject, &traces);
                out.push_str("the algorithm\n");
                out.push_str(&self.algorithm());
                out.push('\n');
                out.push_str(&self.permutation());
                out
            }
        })
    }

    /// Everything [`One::plain`] shows, as JSON fields.
    pub fn json(&self) -> Json {
        let x = self.explanation;
        let script = self.script();
        let component = |c: usize| json!({ "index": c, "text": self.texts[c] });
        let cells = |cells: &[Vec<usize>]| -> Json {
            json!(
                cells
                    .iter()
                    .map(|cell| cell.iter().map(|&c| component(c)).collect::<Vec<_>>())
                    .collect::<Vec<_>>()
            )
        };
        let steps: Vec<Json> = x
            .trace
            .steps
            .iter()
            .zip(&self.steps)
            .map(|(step, account)| match (step, account) {
                (
                    Step::Refine {
                        n_values,
                        cells: c,
                        split,
                    },
                    StepAccount::Refine {
                        round,
                        columns,
                        splits,
                    },
                ) => json!({
                    "kind": "step2",
                    "round": round,
                    "n_values": n_values.iter().map(|nv| json!({
                        "index": nv.component,
                        "text": self.texts[nv.component],
                        "n_value": nv.to_string(),
                        "groups": nv.groups,
                    })).collect::<Vec<_>>(),
                    "columns": columns.iter().map(|cc| json!({
                        "cell": cc.cell,
                        "groups": cc.groups.iter().map(|g| g.iter().map(|col| json!({
                            "label": col.label(),
                            "variable": col.variable,
                            "cell": col.cell,
                            "cell_variable": col.cell_variable,
                        })).collect::<Vec<_>>()).collect::<Vec<_>>(),
                    })).collect::<Vec<_>>(),
                    "split": split,
                    "splits": splits.iter().map(|s| json!({
                        "cell": s.cell,
                        "parts": s.parts.iter().map(|p| json!({
                            "cell": p.cell,
                            "components": p.components,
                            "column": p.difference.column.label(),
                            "count": p.difference.count,
                            "others": p.difference.others,
                            "other_counts": p.difference.other_counts,
                            "sentence": p.sentence(&self.texts),
                        })).collect::<Vec<_>>(),
                    })).collect::<Vec<_>>(),
                    "cells": cells(c),
                }),
                (
                    Step::Individualise {
                        cell,
                        members,
                        component: split,
                        by_hand,
                        fully_symmetric,
                        cells: c,
                    },
                    StepAccount::Individualise(individualisation),
                ) => json!({
                    "kind": "step3",
                    "cell": cell,
                    "members": members.iter().map(|&m| component(m)).collect::<Vec<_>>(),
                    "split": component(*split),
                    "by_hand": by_hand,
                    "fully_symmetric": fully_symmetric,
                    "sentence": individualisation.sentence(&self.texts, &self.graph.variables),
                    "cells": cells(c),
                }),
                (step, _) => json!({ "kind": "step1", "cells": cells(step.cells()) }),
            })
            .collect();
        let mut orderings = Map::new();
        for (t, ty) in self.reached.symmetry.types().iter().enumerate() {
            orderings.insert(
                ty.name.clone(),
                json!({
                    "values": x.trace.type_orderings[t].iter().map(|&a| self.atom(a)).collect::<Vec<_>>(),
                    "appeared": x.trace.appeared[t],
                }),
            );
        }
        json!({
            "state": self.texts,
            "representative": self.reached.texts(&x.representative),
            "variables": self.graph.variables.iter().map(|v| json!({
                "names": v.variables.iter().map(|var| &var.name).collect::<Vec<_>>(),
                "values": v.variables.iter().map(|var| &var.value_name).collect::<Vec<_>>(),
                "identity": v.identity,
            })).collect::<Vec<_>>(),
            "permutation": permutation_json(&x.permutation, &self.reached.symmetry, script),
            "components": x.alpha,
            "steps": steps,
            "order": x.trace.order,
            "type_orderings": Json::Object(orderings),
            "unique_identities": x.unique_identities,
            "values_read": x.values_read,
            "unique_guaranteed": x.unique_guaranteed(),
            "graph": graph_json(&self.graph, &self.texts),
        })
    }
}

/// A state's graph as JSON: its references and shared values, and the
/// text drawing.
fn graph_json(graph: &StateGraph, texts: &[String]) -> Json {
    json!({
        "cells": graph.cells,
        "edges": graph.edges.iter().map(|e| json!({
            "from": e.from,
            "to": e.to,
            "label": graph.label(e),
            "value": graph.variables[e.from].variables[e.from_variable].value_name,
            "kind": match e.kind {
                EdgeKind::Reference => "reference",
                EdgeKind::Shared => "shared",
            },
        })).collect::<Vec<_>>(),
        "shared": graph.shared.iter().map(|s| json!({
            "value": s.value_name,
            "holders": s.holders.iter().map(|&(c, i)| json!({
                "component": c,
                "variable": graph.variables[c].name(i),
            })).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "drawing": layout(graph, texts, DRAWING_WIDTH).iter().map(|l| l.text()).collect::<Vec<_>>(),
    })
}

/// Step 3 by hand beside the algorithm's own choices
/// ([`crate::explain::by_hand`]), as text and JSON.
struct HandShown<'b> {
    by_hand: &'b ByHand,
}

impl HandShown<'_> {
    fn plain(&self, reached: &Reached) -> String {
        let by_hand = self.by_hand;
        let texts = reached.texts(&by_hand.chosen.state);
        let mut out = String::from("\nstep 3 by hand\n");
        for line in by_hand.split_lines(&texts) {
            out.push_str(&format!("  {line}\n"));
        }
        let outcome = by_hand.outcome_lines(
            &reached.texts(&by_hand.own.representative),
            &reached.texts(&by_hand.chosen.representative),
            &reached.symmetry,
            reached.procs.script(),
        );
        if by_hand.differs() {
            out.push('\n');
            for line in outcome {
                out.push_str(&format!("{line}\n"));
            }
        } else {
            for line in outcome {
                out.push_str(&format!("  {line}\n"));
            }
        }
        out
    }

    fn json(&self, reached: &Reached) -> Json {
        let by_hand = self.by_hand;
        json!({
            "splits": by_hand.splits.iter().map(|split| json!({
                "asked": split.asked,
                "component": split.component,
                "algorithm": split.own,
                "members": split.members,
            })).collect::<Vec<_>>(),
            "representative": reached.texts(&by_hand.chosen.representative),
            "algorithm_representative": reached.texts(&by_hand.own.representative),
            "permutation": permutation_json(&by_hand.between, &reached.symmetry, reached.procs.script()),
            "components": by_hand.alpha,
        })
    }
}
