//! What the animator runs on: the script a user opened (a file or the
//! built-in model), loaded once for listing and checking, and the
//! process being animated, compiled from any process expression in the
//! script's scope. The animated process owns its own copy of the script
//! (the expression is added to it), held together with the animator that
//! borrows it and, where the process is symmetric, the symmetry layer's
//! view of its supercombinator ([`ProcessSymmetry`]).

use std::path::PathBuf;
use std::sync::Arc;

use self_cell::self_cell;

use crate::budget::Meter;
use crate::builtin::{BuiltinModel, LISTSTACK};
use crate::check::trace::add_typed;
use crate::lts::animator::Animator;
use crate::script::Script;
use crate::script::ir::{FuncId, GlobalId, GlobalKind};
use crate::symmetry::search_system::{About, Purpose, Reduction};
use crate::symmetry::spec::Reduce;
use crate::symmetry::strategy::Strategy;
use crate::symmetry::{Symmetry, SystemSymmetry};
use crate::syntax::one_line;
use crate::syntax::render_all;
use crate::types::{Expect, Loaded};

/// Where the script comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    File(PathBuf),
    Builtin(BuiltinModel),
}

impl Source {
    /// The built-in model by its file name.
    pub fn builtin(name: &str) -> Option<Source> {
        (name == LISTSTACK.name).then_some(Source::Builtin(LISTSTACK))
    }

    /// The name shown in the status bar and saved in sessions.
    pub fn name(&self) -> String {
        match self {
            Source::File(path) => path.display().to_string(),
            Source::Builtin(model) => model.name.to_string(),
        }
    }

    /// Reads, parses, resolves and type-checks the script within what
    /// `meter` allows (Esc cancels it); diagnostics, or where it was
    /// stopped, come rendered.
    pub fn load(&self, meter: &Meter) -> Result<Loaded, String> {
        if let Source::File(path) = self
            && let Some(problem) = crate::syntax::empty_file(path)
        {
            return Err(format!("error: {}: {problem}\n", path.display()));
        }
        let loaded = match self {
            Source::File(path) => crate::types::load_file_within(path, meter),
            Source::Builtin(model) => crate::types::load_str_within(model.name, model.text, meter),
        };
        loaded.map_err(|e| e.render())
    }
}

/// The animated process's symmetry: the distinguished types, where they
/// came from, and the supercombinator under them — or why there is none.
pub struct ProcessSymmetry {
    pub system: SystemSymmetry,
    pub symmetry: Arc<Symmetry>,
    pub about: SymmetryAbout,
}

/// The symmetry of an animation in words, for the symmetry view.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SymmetryAbout {
    /// `NodeID = {N0, N1, N2}`, one line a type.
    pub types: Vec<String>,
    /// `from the assertion at liststack.csp:100:1`, ...
    pub origin: String,
    /// Automatic mode: each constructor it left out, and why.
    pub left_out: Vec<String>,
    /// `3!·2!·2! = 24`.
    pub group_order: String,
    /// Why the process is not reduced (rendered diagnostics, with
    /// file:line), when it is not.
    pub problem: Option<String>,
    /// With `--symmetry structural`: the communication graph and its
    /// validated group.
    pub structure: Option<StructureView>,
}

/// The communication structure of the animated process, as the symmetry
/// view draws it: the group found, its orbits, each component with the
/// components it shares events with, and the standard patterns tried.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct StructureView {
    /// `order 5: every automorphism of the communication graph is ...`.
    pub group: String,
    /// The graph's own group's order.
    pub graph_order: String,
    /// Per component: its name, its orbit, and its neighbours' names.
    pub components: Vec<(String, usize, Vec<String>)>,
    /// How many orbits there are.
    pub orbits: usize,
    /// Each pattern tried, and why it fails where it does.
    pub patterns: Vec<(String, Option<String>)>,
}

impl StructureView {
    pub fn of(structure: &crate::symmetry::structural::Structure) -> StructureView {
        let graph = &structure.graph;
        let n = graph.components;
        let mut orbit_of = vec![0; n];
        let orbits = structure.component_orbits();
        for (k, orbit) in orbits.iter().enumerate() {
            for &c in orbit {
                orbit_of[c] = k;
            }
        }
        let mut neighbours: Vec<Vec<usize>> = vec![Vec::new(); n];
        for incident in &graph.incidence {
            for &(a, _) in incident {
                for &(b, _) in incident {
                    if a != b {
                        neighbours[a as usize].push(b as usize);
                    }
                }
            }
        }
        let components = (0..n)
            .map(|c| {
                let mut near = std::mem::take(&mut neighbours[c]);
                near.sort_unstable();
                near.dedup();
                let names = near.iter().map(|&d| graph.names[d].clone()).collect();
                (graph.names[c].clone(), orbit_of[c], names)
            })
            .collect();
        StructureView {
            group: format!("order {}: {}", structure.order, structure.how),
            graph_order: structure.automorphisms.order.to_string(),
            components,
            orbits: orbits.len(),
            patterns: structure
                .patterns
                .iter()
                .map(|(pattern, candidate)| {
                    (
                        format!("{} over {}", pattern.name, pattern.over),
                        candidate.result.as_ref().err().cloned(),
                    )
                })
                .collect(),
        }
    }
}

/// The animated process and everything compiled for it.
pub struct Stepper<'s> {
    pub animator: Animator<'s>,
    /// Its symmetry, or why it has none.
    pub lens: Result<ProcessSymmetry, SymmetryAbout>,
    /// The trace to follow from the initial state (`--after`, the trace
    /// prompt), added to the script as `<after>` — or its diagnostics.
    pub trace: Option<Result<FuncId, String>>,
}

self_cell!(
    /// A process being animated, with the script it was compiled from.
    pub struct Animation {
        owner: Script,
        #[not_covariant]
        dependent: Stepper,
    }
);

impl Animation {
    /// Compiles `process` (any process expression) in the scope of the
    /// script from `source`, with its symmetry: the types of `symmetry`
    /// (`--symmetry`'s text) if given, else those of an assertion with
    /// `:[symmetry reduce]` about this process, else automatic ones.
    /// With `trace` (visible events separated by commas), the trace is
    /// added too, for the walk to follow ([`Stepper::trace`]): a trace
    /// that does not read leaves the process animated, with why.
    /// Evaluation recurses: call it on a large stack.
    pub fn open(
        source: &Source,
        process: &str,
        (symmetry, strategy): (Option<&str>, Strategy),
        trace: Option<&str>,
        meter: Meter,
    ) -> Result<Animation, String> {
        let mut loaded = source.load(&meter)?;
        let func = loaded
            .add_expr("<process>", process, Expect::Process)
            .map_err(|d| render_all(&d, &loaded.script.sources))?;
        let trace = trace.map(|text| {
            add_typed(&mut loaded, "<after>", text)
                .map_err(|d| render_all(&d, &loaded.script.sources))
        });
        let mut script = loaded.script;
        let asked = symmetry.map(|text| Reduce::requested(&mut script, text));
        Animation::try_new(script, |script| {
            let mut animator = Animator::load(script, func)
                .map_err(|e| e.to_diagnostic().render(&script.sources))?;
            animator.parts_mut().1.replace_meter(meter);
            let asked = match asked {
                Some(Ok(reduce)) => Ok(Some(reduce)),
                Some(Err(problem)) => Err(problem),
                None => Ok(None),
            };
            let lens = asked.and_then(|asked| {
                let reduce = Reduce::chosen(
                    script,
                    asked.as_ref(),
                    Purpose::Show,
                    About::Process(process),
                );
                ProcessSymmetry::open(script, func, &mut animator, (&reduce, strategy))
            });
            let lens = lens.map_err(|problem| SymmetryAbout {
                problem: Some(problem),
                ..SymmetryAbout::default()
            });
            let lens = match lens {
                Ok(Ok(lens)) => Ok(lens),
                Ok(Err(about)) | Err(about) => Err(about),
            };
            Ok(Stepper {
                animator,
                lens,
                trace,
            })
        })
    }
}

impl ProcessSymmetry {
    /// The symmetry `reduce` asks for over the process `func`, checked:
    /// `Ok(Err(..))` says why the process is not symmetric in it.
    fn open(
        script: &Script,
        func: FuncId,
        animator: &mut Animator,
        (reduce, strategy): (&Reduce, Strategy),
    ) -> Result<Result<ProcessSymmetry, SymmetryAbout>, String> {
        let (machine, procs) = animator.parts_mut();
        if *reduce == Reduce::Structural {
            let structure = crate::symmetry::structural::analyse(machine, procs)
                .map_err(|e| e.to_diagnostic().render(&script.sources))?;
            return Ok(Err(SymmetryAbout {
                origin: "from the communication structure (--symmetry structural)".to_string(),
                structure: Some(StructureView::of(&structure)),
                ..SymmetryAbout::default()
            }));
        }
        let symmetry = match Reduction::decide(script, procs.evaluator(), reduce, &[func]) {
            Ok(Some(symmetry)) => symmetry,
            Ok(None) => {
                return Ok(Err(SymmetryAbout {
                    problem: Some("symmetry is off (--symmetry off)".to_string()),
                    ..SymmetryAbout::default()
                }));
            }
            Err(problems) => return Err(render_all(&problems, &script.sources)),
        };
        let mut about = SymmetryAbout {
            types: symmetry.describe(script),
            origin: symmetry.origin_text(script),
            left_out: symmetry.left_out_lines(script),
            group_order: symmetry.group_order().to_string(),
            problem: None,
            structure: None,
        };
        let symmetry = Arc::new(symmetry);
        match Reduction::of_machine(script, symmetry.clone(), strategy, machine, procs) {
            Reduction::Reduced(system) => Ok(Ok(ProcessSymmetry {
                system: system.into_inner(),
                symmetry,
                about,
            })),
            Reduction::Trivial { why, .. } => {
                about.problem = Some(why);
                Ok(Err(about))
            }
            reduction => {
                about.problem = reduction
                    .refusal(script, func)
                    .map(|problems| render_all(&problems, &script.sources));
                Ok(Err(about))
            }
        }
    }
}

/// The script as the Script and Checks panes list it.
pub struct Listing {
    pub script: Arc<Script>,
    /// Constants whose value is a process, in the order defined.
    pub processes: Vec<String>,
    /// Process-valued functions, as `Name(_, _)` templates.
    pub functions: Vec<(String, usize)>,
    /// Each assertion as written, and the text of the process a
    /// counterexample runs on.
    pub assertions: Vec<(String, String)>,
    /// Every name the script declares with its type (`f :: (Int) ->
    /// Proc`), in the order written.
    pub types: Vec<(String, String)>,
}

impl Listing {
    /// Lists `script`'s processes and process functions, known by their
    /// types (nothing is evaluated: a constant's value may take long to
    /// compute, and animating it computes it anyway).
    pub fn new(loaded: Loaded) -> Listing {
        let Loaded { script, mut types } = loaded;
        let mut processes = Vec::new();
        let mut functions = Vec::new();
        for (i, global) in script.globals.iter().enumerate() {
            let GlobalKind::Definition(func) = global.kind else {
                continue;
            };
            if script.is_generated(script.function(func).span) || global.name.contains('$') {
                continue;
            }
            match types.process_arity(GlobalId(i as u32)) {
                Some(0) => processes.push(global.name.to_string()),
                Some(arity) if script.function(func).arity.len() == 1 => {
                    functions.push((global.name.to_string(), arity))
                }
                _ => {}
            }
        }
        let assertions = (0..script.assertions.len())
            .map(|i| {
                let kind = &script.assertions[i].kind;
                let imp = script.function(kind.implementation()).span;
                (
                    crate::check::assertion_text(&script, i),
                    one_line(script.sources.snippet(imp)),
                )
            })
            .collect();
        let declared = types.declared(&script);
        Listing {
            script: Arc::new(script),
            processes,
            functions,
            assertions,
            types: declared,
        }
    }

    /// The type of top-level name `name`, as `symcsp type` writes it.
    pub fn type_of(&self, name: &str) -> Option<&str> {
        self.types
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, t)| t.as_str())
    }

    /// The process to animate first: the implementation of the first
    /// assertion, else the last process defined.
    pub fn default_process(&self) -> Option<String> {
        self.assertions
            .first()
            .map(|(_, imp)| imp.clone())
            .or_else(|| self.processes.last().cloned())
    }
}
