//! What the animator runs on: the script a user opened (a file or the
//! built-in model), loaded once for listing and checking, and the
//! process being animated, compiled from any process expression in the
//! script's scope. The animated process owns its own copy of the script
//! (the expression is added to it), held together with the animator that
//! borrows it.

use std::path::PathBuf;
use std::sync::Arc;

use self_cell::self_cell;

use crate::builtin::{BuiltinModel, LISTSTACK};
use crate::eval::{Evaluator, Value};
use crate::lts::animator::Animator;
use crate::script::Script;
use crate::script::ir::{ExprKind, GlobalKind};
use crate::syntax::render_all;

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

    /// Reads, parses and resolves the script; diagnostics come rendered.
    pub fn load(&self) -> Result<Script, String> {
        if let Source::File(path) = self
            && let Some(problem) = crate::syntax::empty_file(path)
        {
            return Err(format!("error: {}: {problem}\n", path.display()));
        }
        let loaded = match self {
            Source::File(path) => Script::load_file(path),
            Source::Builtin(model) => Script::load_str(model.name, model.text),
        };
        loaded.map_err(|e| e.render())
    }
}

self_cell!(
    /// A process being animated, with the script it was compiled from.
    pub struct Animation {
        owner: Script,
        #[not_covariant]
        dependent: Animator,
    }
);

impl Animation {
    /// Compiles `process` (any process expression) in the scope of the
    /// script from `source`. Evaluation recurses: call it on a large
    /// stack.
    pub fn open(source: &Source, process: &str) -> Result<Animation, String> {
        let mut script = source.load()?;
        let func = script
            .add_expr("<process>", process)
            .map_err(|d| render_all(&d, &script.sources))?;
        Animation::try_new(script, |script| {
            Animator::load(script, func).map_err(|e| e.to_diagnostic().render(&script.sources))
        })
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
}

impl Listing {
    /// Lists `script`'s processes, evaluating each constant (one that
    /// fails to evaluate is left out: the user sees why on animating it).
    pub fn new(script: Script) -> Listing {
        let evaluator = Evaluator::new(&script);
        let mut processes = Vec::new();
        let mut functions = Vec::new();
        for global in &script.globals {
            let GlobalKind::Definition(func) = global.kind else {
                continue;
            };
            let function = script.function(func);
            if function.arity.is_empty() {
                if let Ok(Value::Proc(_)) = evaluator.eval_constant(func) {
                    processes.push(global.name.to_string());
                }
            } else if function.arity.len() == 1
                && function.clauses.first().is_some_and(|clause| {
                    matches!(script.expr(clause.body).kind, ExprKind::Process(..))
                })
            {
                functions.push((global.name.to_string(), function.arity[0]));
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
        Listing {
            script: Arc::new(script),
            processes,
            functions,
            assertions,
        }
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

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
