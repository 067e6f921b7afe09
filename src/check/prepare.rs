//! The one preparation of an exploration: from a task — a process, the
//! symmetry asked for, partial order — to the system its search runs
//! on, and from there to the search. `explore` (in one search, drawn,
//! and on workers), `compare` and `audit` all start here, so no command
//! builds or searches a system its own way.
//!
//! Preparing builds the process through the one builder
//! ([`SearchSystem::build`]), refuses types that do not hold for it,
//! reduces it by partial order where the task asks (through
//! [`Task::reduce_by_partial_order`], as every engine does), and says
//! what a report says of its symmetry; the plan it settles is the one
//! the workers are given ([`Plan::explored`]). A check starts from its
//! assertion's plan instead ([`super::plan`]), which judges as well.

use crate::budget::Stopped;
use crate::eval::{EvalError, EvalResult};
use crate::lts::search::Search;
use crate::lts::{self, Budget, Exploration};
use crate::process::Processes;
use crate::script::Script;
use crate::symmetry::Symmetry;
use crate::symmetry::search_system::{Reduction, SearchSystem};
use crate::symmetry::strategy::Strategy;
use crate::syntax::Diagnostic;

use super::REDUCING_BY_PARTIAL_ORDER;
use super::task::{Goal, Plan, Task};

/// What a report says of the symmetry a system was built with.
#[derive(Debug, Clone, Default)]
pub struct Described {
    /// A trivial symmetry is shown (it names what it left out) though
    /// nothing is reduced.
    pub symmetry: Option<Symmetry>,
    /// The structure's group: its order, and how it was found.
    pub structure: Option<(usize, String)>,
    /// How the reduction fell short of what was asked, if it did.
    pub note: Option<String>,
}

/// Why an exploration could not be prepared.
#[derive(Debug)]
pub enum Unprepared {
    /// A budget stopped it before the search began: why, and the stage.
    Stopped(Stopped, String),
    /// The process could not be built.
    Failed(Diagnostic),
    /// The types asked for do not hold for the process: each reason at
    /// its place.
    Refused(Vec<Diagnostic>),
}

/// An exploration made ready: the system, the plan every engine is
/// given, what its report says of its symmetry and what partial order
/// reduction did.
pub struct Prepared<'s> {
    pub system: SearchSystem<'s>,
    pub plan: Plan,
    pub described: Described,
    /// What partial order reduction did, when the task asks for it.
    pub partial_order: Option<String>,
}

/// An exploration searched and kept: what it found, the search with
/// what it stored (and the path to every state), and the system's
/// processes and reduction that name its rows.
pub struct Kept<'s> {
    pub exploration: Exploration,
    pub search: Search,
    pub procs: Processes<'s>,
    pub reduction: Reduction,
}

impl<'s> Prepared<'s> {
    /// Prepares exploring `task`'s process (its goal is
    /// [`Goal::Explore`]) with `strategy`'s representatives, within
    /// `budget`. A structure with no symmetry is explored unreduced,
    /// saying why (as a check does); types that are not symmetric are
    /// refused.
    pub fn exploration(
        script: &'s Script,
        task: Task,
        strategy: Strategy,
        budget: &Budget,
    ) -> Result<Prepared<'s>, Unprepared> {
        debug_assert_eq!(task.goal, Goal::Explore, "a check prepares from its plan");
        let before_search = |stage: &str| {
            let stage = stage.to_string();
            move |e: EvalError| match e.stop_reason() {
                Some(stop) => Unprepared::Stopped(stop, e.stage.clone().unwrap_or(stage)),
                None => Unprepared::Failed(e.to_diagnostic()),
            }
        };
        let mut system =
            SearchSystem::build(script, task.process, &task.reduce, strategy, budget.meter())
                .map_err(before_search("compiling the process"))?;
        if let Some(problems) = system.reduction.refusal(script, task.process)
            && !matches!(system.reduction, Reduction::NoStructure(_))
        {
            return Err(Unprepared::Refused(problems));
        }
        let described = described(&system.reduction, strategy);
        system.procs.replace_meter(budget.meter());
        let partial_order = task
            .reduce_by_partial_order(&mut system.procs, &mut system.machine)
            .map_err(before_search(REDUCING_BY_PARTIAL_ORDER))?;
        let plan = Plan::explored(task, &system.reduction);
        Ok(Prepared {
            system,
            plan,
            described,
            partial_order,
        })
    }

    /// Explores the system in one search, reduced as prepared.
    pub fn explore(self, budget: &Budget) -> EvalResult<Exploration> {
        let SearchSystem {
            mut procs,
            machine,
            mut reduction,
            ..
        } = self.system;
        lts::explore_machine(&mut procs, machine, budget, reduction.canonicaliser())
    }

    /// Explores the system in one search and keeps it, with the path to
    /// every state.
    pub fn explore_kept(self, budget: &Budget) -> EvalResult<Kept<'s>> {
        let SearchSystem {
            mut procs,
            machine,
            mut reduction,
            ..
        } = self.system;
        let (exploration, search) =
            lts::explore_kept(&mut procs, machine, budget, reduction.canonicaliser(), true)?;
        Ok(Kept {
            exploration,
            search,
            procs,
            reduction,
        })
    }

    /// The system's LTS drawn as Graphviz DOT, or `None` when it has
    /// more than `limit` states.
    pub fn draw(self, limit: usize) -> EvalResult<Option<String>> {
        let SearchSystem {
            mut procs,
            machine,
            mut reduction,
            ..
        } = self.system;
        let graph =
            lts::graph::graph_machine(&mut procs, machine, limit, reduction.canonicaliser())?;
        Ok(graph.map(|graph| graph.to_dot(&procs)))
    }
}

/// What a report says of `reduction` under `strategy`: the symmetry
/// itself (a trivial one names what it left out), the structure's group
/// and a note when the reduction fell short of what was asked.
fn described(reduction: &Reduction, strategy: Strategy) -> Described {
    let note = match reduction {
        Reduction::NoStructure(why) => Some(format!("not reduced: {why}")),
        Reduction::Reduced(system)
            if !system.get().types_without_family().is_empty()
                && matches!(strategy, Strategy::Sorted | Strategy::Segmented) =>
        {
            Some(unfamiliar(strategy, &system.get().types_without_family()))
        }
        _ => None,
    };
    let structure = match reduction {
        Reduction::Structural { how, reduction } => Some((reduction.order(), how.clone())),
        _ => None,
    };
    Described {
        symmetry: reduction.symmetry().cloned(),
        structure,
        note,
    }
}

/// What the sorted and segmented strategies cannot reduce: types that
/// index no family of components.
pub fn unfamiliar(strategy: Strategy, types: &[String]) -> String {
    format!(
        "the {strategy} strategy reduces only types that index a family of components: {} \
         index{} none, so {} not reduced",
        types.join(", "),
        if types.len() == 1 { "es" } else { "" },
        if types.len() == 1 {
            "it is"
        } else {
            "they are"
        }
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::task::Reducing;
    use crate::symmetry::spec::Reduce;

    /// Three independent nodes of a datatype, each going then coming
    /// back; and a process that names one of the datatype's values.
    const SCRIPT: &str = "datatype T = A | B | C\n\
        channel go, done : T\n\
        Node(t) = go.t -> done.t -> Node(t)\n\
        Nodes = ||| t : T @ Node(t)\n\
        Named = go.A -> Named\n";

    fn prepared(
        process: &str,
        reduce: &str,
        por: bool,
        budget: &Budget,
    ) -> Result<Prepared<'static>, Unprepared> {
        let mut script = Script::load_str("nodes.csp", SCRIPT).expect("the script loads");
        let func = script.add_expr("<process>", process).expect("resolves");
        let reduce = Reduce::requested(&mut script, reduce).expect("a choice");
        let script: &'static Script = Box::leak(Box::new(script));
        let task = Task {
            por,
            ..Task::explore(func, reduce)
        };
        Prepared::exploration(script, task, Strategy::Fdr, budget)
    }

    #[test]
    fn an_exploration_is_prepared_as_asked_and_searched_from_there() {
        let budget = Budget::default();
        let whole = prepared("Nodes", "off", false, &budget).expect("prepares");
        assert_eq!(whole.plan.reducing, Reducing::Not);
        assert!(whole.plan.settled);
        assert!(whole.described.symmetry.is_none());
        assert_eq!(whole.explore(&budget).expect("explores").states, 8);

        // Reduced by T, a state is how many nodes have gone: 0 to 3.
        let reduced = prepared("Nodes", "T", false, &budget).expect("prepares");
        assert!(matches!(reduced.plan.reducing, Reducing::Types(..)));
        let symmetry = reduced.described.symmetry.clone().expect("a symmetry");
        assert_eq!(symmetry.type_names(), "T");
        let kept = reduced.explore_kept(&budget).expect("explores");
        assert_eq!(kept.exploration.states, 4);
        assert_eq!(
            kept.search.path_to(3).0.len(),
            3,
            "the path to every state is kept"
        );

        // Drawn: four representatives, an edge for each node that can
        // go and each that can come back.
        let drawn = prepared("Nodes", "T", false, &budget).expect("prepares");
        let dot = drawn.draw(10).expect("draws").expect("small enough");
        let edges = dot
            .lines()
            .filter(|line| line.contains(" -> s") && line.contains("[label="))
            .count();
        assert_eq!(edges, 12, "{dot}");
        let drawn = prepared("Nodes", "T", false, &budget).expect("prepares");
        assert_eq!(drawn.draw(3).expect("draws"), None, "more than 3 states");
    }

    #[test]
    fn partial_order_is_applied_where_the_task_asks_and_said() {
        let budget = Budget::default();
        let reduced = prepared("Nodes", "off", true, &budget).expect("prepares");
        let note = reduced.partial_order.clone().expect("a note");
        assert!(note.starts_with("partial order reduction"), "{note}");
        let states = reduced.explore(&budget).expect("explores").states;
        assert!(states < 8, "independent nodes interleave less: {states}");
        let not = prepared("Nodes", "off", false, &budget).expect("prepares");
        assert_eq!(not.partial_order, None);
    }

    #[test]
    fn what_cannot_be_reduced_is_refused_or_said() {
        let budget = Budget::default();
        // `Named` names A: T is not symmetric for it.
        let Err(Unprepared::Refused(problems)) = prepared("Named", "T", false, &budget) else {
            panic!("refused");
        };
        assert!(!problems.is_empty() && problems[0].span.is_some());
        // One component has no structure to reduce by: explored whole,
        // saying why.
        let alone = prepared("Named", "structural", false, &budget).expect("prepares");
        assert_eq!(alone.plan.reducing, Reducing::Not);
        let note = alone.described.note.clone().expect("a note");
        assert!(note.starts_with("not reduced: "), "{note}");
    }

    #[test]
    fn a_budget_that_stops_preparing_names_the_stage() {
        let budget = Budget {
            timeout: Some(std::time::Duration::ZERO),
            ..Budget::default()
        }
        .started();
        std::thread::sleep(std::time::Duration::from_millis(2));
        match prepared("Nodes", "T", false, &budget) {
            Err(Unprepared::Stopped(stop, stage)) => {
                assert_eq!(stop, Stopped::Timeout);
                assert!(!stage.is_empty());
            }
            Err(other) => panic!("stopped, not {other:?}"),
            Ok(_) => panic!("stopped, not prepared"),
        }
    }
}
