//! The names of a component state's distinguished variables, in the
//! order the representative algorithm reads them, and which of them is
//! the component's identity (Definition 46).
//!
//! Names come from the same walk as the algorithm's labels
//! ([`crate::symmetry::label::Labeller::read`]), so the `i`-th name is always that
//! of the `i`-th variable the algorithm compares: a process's parameters
//! by their names (`me`, `datum`, `next` for `Node(me, datum, next)`),
//! the parts of tuples, dotted values and sequences with a positional
//! suffix (`p.1`, `p.2`), the operands of a term under the name of the
//! process they are (`Push.me`) or their position (`1.x`), the values a
//! prefix chose as `chosen.1`. Computed only on request: the algorithm's
//! own reading names nothing.

use crate::lts::machine::Machine;
use crate::process::{ProcId, Processes, Term};
use crate::script::Script;

use crate::symmetry::SystemSymmetry;
use crate::symmetry::label::{Part, Reading};
use crate::symmetry::spec::Atom;

/// One distinguished variable of a component state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Variable {
    /// Its name, as a path into the state (`me`, `p.1`, `Push.me`).
    pub name: String,
    pub value: Atom,
    /// The value's constructor name (`N0`).
    pub value_name: String,
}

/// A component state's distinguished variables.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ComponentVariables {
    pub component: usize,
    /// In the order the algorithm reads them: the `i` of `n_{i,j,k}`.
    pub variables: Vec<Variable>,
    /// The place in `variables` of the component's identity (Definition
    /// 46): the variable holding the value that tells it apart from the
    /// other components of its symmetric set. `None` for a component
    /// alone in its symmetric set, or when its set has no identities in
    /// this state.
    pub identity: Option<usize>,
}

impl ComponentVariables {
    /// The name of variable `i`.
    pub fn name(&self, i: usize) -> &str {
        &self.variables[i].name
    }

    /// Whether variable `i` is the component's identity.
    pub fn is_identity(&self, i: usize) -> bool {
        self.identity == Some(i)
    }

    /// The values, in order (the algorithm's view of the state).
    pub fn values(&self) -> impl Iterator<Item = Atom> + '_ {
        self.variables.iter().map(|v| v.value)
    }
}

impl SystemSymmetry {
    /// Every component of `row` with its distinguished variables named
    /// and its identity, if it has one.
    pub fn variables(
        &mut self,
        machine: &Machine,
        procs: &mut Processes,
        row: &[u32],
    ) -> Vec<ComponentVariables> {
        let (identities, _) = self.identity_places(machine, procs, row);
        let mut out = Vec::with_capacity(row.len());
        for (slot, &local) in row.iter().enumerate() {
            let mut namer = Namer {
                script: procs.script(),
                procs,
                path: Vec::new(),
                found: Vec::new(),
            };
            self.read_component(machine, procs, slot, local, &mut namer);
            let variables = namer
                .found
                .into_iter()
                .map(|(name, value)| Variable {
                    name,
                    value,
                    value_name: self.symmetry().name(procs.script(), value).to_string(),
                })
                .collect();
            out.push(ComponentVariables {
                component: slot,
                variables,
                identity: identities[slot],
            });
        }
        out
    }
}

/// A reading that names each variable by the path the walk took to it.
struct Namer<'a> {
    script: &'a Script,
    procs: &'a Processes<'a>,
    path: Vec<String>,
    found: Vec<(String, Atom)>,
}

impl Reading for Namer<'_> {
    fn variable(&mut self, atom: Atom) {
        let name = if self.path.is_empty() {
            // A built-in value with no name of its own (cannot happen
            // for a process's variables, which are all named).
            "value".to_string()
        } else {
            self.path.join(".")
        };
        self.found.push((name, atom));
    }

    fn enter(&mut self, part: Part<'_>) {
        let segment = match part {
            Part::Variable { func, index } => self
                .script
                .function(func)
                .captures
                .get(index)
                .map_or_else(|| (index + 1).to_string(), |n| n.to_string()),
            Part::Position(position) => position.to_string(),
            Part::Operand { index, operands } => {
                let name = process_name(self.script, self.procs, operands[index]);
                let unique = name.is_some_and(|name| {
                    operands
                        .iter()
                        .filter(|&&p| process_name(self.script, self.procs, p) == Some(name))
                        .count()
                        == 1
                });
                match name {
                    Some(name) if unique => name.to_string(),
                    _ => (index + 1).to_string(),
                }
            }
            Part::Chosen => "chosen".to_string(),
            Part::Builtin(name) => name.to_string(),
        };
        self.path.push(segment);
    }

    fn leave(&mut self) {
        self.path.pop();
    }
}

/// The name of the process a state is a call of (`Push` for
/// `Push(T0)`), if it is one.
fn process_name<'s>(script: &'s Script, procs: &Processes, p: ProcId) -> Option<&'s str> {
    match procs.term(p) {
        Term::Node(proc) => match &**proc {
            crate::eval::Proc::Node { func, .. } => script
                .function(*func)
                .call_form
                .as_ref()
                .map(|f| f.name.as_str()),
            crate::eval::Proc::Builtin { .. } => None,
        },
        _ => None,
    }
}
