//! Symmetry beyond datatypes: a system's symmetries found from its
//! communication structure (rings, stars, groups of groups), validated,
//! and reduced by — where FDR's method (the paper's) finds symmetry only
//! in datatypes a script never names, and a ring written with `(i+1)%N`
//! gets none.
//!
//! After Donaldson, Miller & Calder (TopSPIN's static channel diagrams):
//! - [`graph`]: the communication graph of the supercombinator's
//!   components and the events they share, coloured, each component's
//!   own LTS explored once;
//! - [`automorphisms`]: its automorphism group by individualisation and
//!   refinement: generators, order, orbits;
//! - [`validate`]: each candidate (a graph automorphism, or a standard
//!   pattern) checked to carry the system onto itself — every
//!   component's LTS onto its image's, the operator tree onto itself —
//!   or refused with why; the largest validated subgroup kept;
//! - [`patterns`]: the standard candidates for each family's index set
//!   (rotation, reflection, a swap), after Lin et al.'s regular
//!   symmetry patterns;
//! - [`group`]: the group's elements and the search's canonicaliser, the
//!   least image over the group.

pub mod automorphisms;
pub mod graph;
pub mod group;
pub mod patterns;
pub mod validate;

use num_bigint::BigUint;

use crate::eval::{EvalError, EvalResult};
use crate::lts::machine::Machine;
use crate::process::Processes;

use automorphisms::Automorphisms;
use graph::CommunicationGraph;
use group::{MAX_ELEMENTS, closure, map_closure};
use patterns::Pattern;
use validate::{Element, events_of_automorphism, validate};

/// A candidate symmetry and what validation said of it.
#[derive(Debug, Clone)]
pub struct Candidate {
    /// Its permutation of the components in cycle notation, by name.
    pub cycles: String,
    /// The element, or why it is not a symmetry of the system.
    pub result: Result<Element, String>,
}

/// What structural analysis found.
#[derive(Debug, Clone)]
pub struct Structure {
    pub graph: CommunicationGraph,
    pub automorphisms: Automorphisms,
    /// The graph's generators, each validated.
    pub generators: Vec<Candidate>,
    /// The standard patterns tried, each validated.
    pub patterns: Vec<(Pattern, Candidate)>,
    /// The validated group's elements, when it could be enumerated (the
    /// identity first).
    pub elements: Option<Vec<Element>>,
    /// The validated group's order (at least: a subgroup when the graph's
    /// group was too large to check element by element).
    pub order: Order,
    /// How the validated group was found, in a sentence.
    pub how: String,
}

/// A validated group's order: exactly, or past the most elements listed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Order {
    Exactly(BigUint),
    MoreThan(usize),
}

impl std::fmt::Display for Order {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Order::Exactly(n) => write!(f, "{n}"),
            Order::MoreThan(n) => write!(f, "more than {n}"),
        }
    }
}

impl Structure {
    /// The orbits of the components under the validated group, each in
    /// order, ordered by their first: made from its elements where they
    /// could be listed, else from the validated candidates that generate
    /// it (an orbit is what a component reaches by their moves).
    pub fn component_orbits(&self) -> Vec<Vec<usize>> {
        let n = self.graph.components;
        let generators;
        let moves: &[Element] = match &self.elements {
            Some(elements) => elements,
            None => {
                generators = validated(&self.generators, &self.patterns);
                &generators
            }
        };
        // Union-find over the components, joined by every move.
        let mut parent: Vec<usize> = (0..n).collect();
        fn root(parent: &mut [usize], mut c: usize) -> usize {
            while parent[c] != c {
                parent[c] = parent[parent[c]];
                c = parent[c];
            }
            c
        }
        for e in moves {
            for (c, &d) in e.alpha.iter().enumerate() {
                let (a, b) = (root(&mut parent, c), root(&mut parent, d as usize));
                parent[a.max(b)] = a.min(b);
            }
        }
        let mut orbits: Vec<Vec<usize>> = Vec::new();
        let mut orbit_at: Vec<Option<usize>> = vec![None; n];
        for c in 0..n {
            let r = root(&mut parent, c);
            match orbit_at[r] {
                Some(k) => orbits[k].push(c),
                None => {
                    orbit_at[r] = Some(orbits.len());
                    orbits.push(vec![c]);
                }
            }
        }
        orbits
    }

    /// Whether the validated group moves no component (it may still
    /// exchange events a component can perform alike, which changes no
    /// state).
    pub fn is_trivial(&self) -> bool {
        self.component_orbits().iter().all(|o| o.len() == 1)
    }
}

/// The structure of `machine`'s system: its communication graph, the
/// graph's automorphisms, each validated, the standard patterns, and the
/// largest validated group.
pub fn analyse(machine: &Machine, procs: &mut Processes) -> EvalResult<Structure> {
    let graph = CommunicationGraph::of(machine, procs)?;
    let stopped = |stop| EvalError::stopped(stop);
    let automorphisms = automorphisms::automorphisms(&graph, procs.meter()).map_err(stopped)?;
    let tried = Tried {
        graph: &graph,
        machine,
        procs,
        id_count: procs.events().id_count(),
    };
    let generators: Vec<Candidate> = automorphisms
        .generators
        .iter()
        .map(|g| tried.candidate(g))
        .collect();
    // The graph's whole group, where it is small enough to list: the
    // standard patterns are found in it, and the largest validated
    // subgroup checked element by element.
    let maps = map_closure(graph.vertices(), &automorphisms.generators, MAX_ELEMENTS);
    let patterns = tried.patterns(maps.as_deref());
    procs.meter().poll().map_err(stopped)?;
    let all_valid = generators.iter().all(|c| c.result.is_ok());
    let (elements, how) = if all_valid {
        let valid = validated(&generators, &patterns);
        // A pattern found on the graph with its directions forgotten may
        // hold (a ring's reflection, whose events keep sender and
        // receiver with their fields exchanged): the group is then
        // larger than the graph's, and says why.
        let n = graph.components;
        let beyond: Vec<String> = (patterns.iter())
            .filter(|(_, c)| {
                c.result.as_ref().is_ok_and(|e| {
                    maps.as_deref()
                        .is_some_and(|maps| maps.iter().all(|m| m[..n] != e.alpha[..]))
                })
            })
            .map(|(p, _)| format!("{} over {}", p.name, p.over))
            .collect();
        let mut how =
            "every automorphism of the communication graph is a symmetry of the system".to_string();
        if !beyond.is_empty() {
            how.push_str(&format!(
                ", and so is {}, an automorphism of the graph once its directions are forgotten",
                beyond.join(" and ")
            ));
        }
        (
            closure(Element::identity(&graph), &valid, MAX_ELEMENTS),
            how,
        )
    } else {
        tried.largest_subgroup(&generators, &patterns, maps.as_deref())
    };
    let order = match &elements {
        Some(e) => Order::Exactly(BigUint::from(e.len())),
        None if all_valid => Order::Exactly(automorphisms.order.clone()),
        None => Order::MoreThan(MAX_ELEMENTS),
    };
    Ok(Structure {
        graph,
        automorphisms,
        generators,
        patterns,
        elements,
        order,
        how,
    })
}

/// The elements of the candidates that hold.
fn validated(generators: &[Candidate], patterns: &[(Pattern, Candidate)]) -> Vec<Element> {
    generators
        .iter()
        .chain(patterns.iter().map(|(_, c)| c))
        .filter_map(|c| c.result.clone().ok())
        .collect()
}

/// Candidates tried on one system.
struct Tried<'a, 's> {
    graph: &'a CommunicationGraph,
    machine: &'a Machine,
    procs: &'a Processes<'s>,
    id_count: usize,
}

impl Tried<'_, '_> {
    /// A graph automorphism `gamma`, validated.
    fn candidate(&self, gamma: &[u32]) -> Candidate {
        let graph = self.graph;
        let alpha: Vec<u32> = gamma[..graph.components].to_vec();
        let mut shown = cycles(graph, &alpha);
        if alpha.iter().enumerate().all(|(c, &a)| c as u32 == a) {
            shown.push_str(&format!(
                "; events {}",
                event_cycles(graph, gamma, self.procs)
            ));
        }
        Candidate {
            cycles: shown,
            result: self.element(gamma),
        }
    }

    /// The system's symmetry a graph automorphism gives, or why not.
    fn element(&self, gamma: &[u32]) -> Result<Element, String> {
        let graph = self.graph;
        let alpha: Vec<u32> = gamma[..graph.components].to_vec();
        let pi = events_of_automorphism(graph, gamma, self.id_count);
        validate(graph, self.machine, self.procs, &alpha, pi)
    }

    /// The first of `gammas` that holds; else the first's reason.
    fn first_holding(&self, gammas: &[Vec<u32>]) -> Option<Candidate> {
        let mut tried = gammas.iter().map(|g| self.candidate(g));
        let first = tried.next()?;
        Some(if first.result.is_ok() {
            first
        } else {
            tried.find(|c| c.result.is_ok()).unwrap_or(first)
        })
    }

    /// The standard patterns, each found among the graph's automorphisms
    /// (`maps`, when the group could be listed) and validated. A pattern
    /// the graph refuses (its messages would run backwards) is looked
    /// for again with directions forgotten and tried on the behaviour,
    /// for the reason it fails (or, should it hold, as a symmetry).
    fn patterns(&self, maps: Option<&[Vec<u32>]>) -> Vec<(Pattern, Candidate)> {
        let forgetful = std::cell::OnceCell::new();
        let undirected = |pattern: &Pattern| -> Option<Candidate> {
            // Rotations and reflections, whose failures teach; a swap of
            // two neighbours on a ring fails for its shape alone.
            if pattern.name.starts_with("swap") {
                return None;
            }
            let (loose, maps) = forgetful.get_or_init(|| {
                let loose = self.graph.without_directions();
                // A stop here leaves the failure unexplained; the
                // analysis polls the meter again after the patterns.
                let maps = automorphisms::automorphisms(&loose, self.procs.meter())
                    .ok()
                    .and_then(|group| {
                        map_closure(loose.vertices(), &group.generators, MAX_ELEMENTS)
                    });
                (loose, maps)
            });
            let found = patterns::candidates(loose, maps.as_deref())
                .into_iter()
                .find(|c| c.pattern == *pattern)?;
            match found.found {
                Ok(patterns::Found::Automorphisms(gammas)) => self.first_holding(&gammas),
                _ => None,
            }
        };
        patterns::candidates(self.graph, maps)
            .into_iter()
            .map(|candidate| {
                let checked = match candidate.found {
                    Ok(patterns::Found::Automorphisms(gammas)) => {
                        self.first_holding(&gammas).expect("one at least")
                    }
                    Ok(patterns::Found::Components(alpha)) => Candidate {
                        cycles: cycles(self.graph, &alpha),
                        result: validate::events_for(self.graph, &alpha, self.id_count).and_then(
                            |pi| validate(self.graph, self.machine, self.procs, &alpha, pi),
                        ),
                    },
                    Err(why) => undirected(&candidate.pattern).unwrap_or(Candidate {
                        cycles: String::new(),
                        result: Err(why),
                    }),
                };
                (candidate.pattern, checked)
            })
            .collect()
    }

    /// When some generator fails: the largest subgroup that holds, found
    /// element by element where the graph's group is small enough to
    /// list (`maps`), else the group the validated candidates make; with
    /// how it was found.
    fn largest_subgroup(
        &self,
        generators: &[Candidate],
        patterns: &[(Pattern, Candidate)],
        maps: Option<&[Vec<u32>]>,
    ) -> (Option<Vec<Element>>, String) {
        let identity = Element::identity(self.graph);
        match maps {
            Some(maps) => {
                let holding: Vec<Element> = maps
                    .iter()
                    .filter_map(|gamma| self.element(gamma).ok())
                    .collect();
                let count = holding.len();
                (
                    closure(identity, &holding, MAX_ELEMENTS),
                    format!(
                        "{count} of the communication graph's {} automorphisms are symmetries of \
                         the system: the largest validated subgroup",
                        maps.len()
                    ),
                )
            }
            None => (
                closure(identity, &validated(generators, patterns), MAX_ELEMENTS),
                "the communication graph's group is too large to check element by element: the \
                 group the validated generators and patterns make"
                    .to_string(),
            ),
        }
    }
}

/// The events a graph automorphism exchanges, in cycle notation.
fn event_cycles(graph: &CommunicationGraph, gamma: &[u32], procs: &Processes) -> String {
    let n = graph.components;
    let m = graph.events.len();
    let mut seen = vec![false; m];
    let mut out = String::new();
    for start in 0..m {
        let image = |k: usize| gamma[n + k] as usize - n;
        if seen[start] || image(start) == start {
            continue;
        }
        let mut cycle = Vec::new();
        let mut k = start;
        while !seen[k] {
            seen[k] = true;
            cycle.push(procs.show_event(graph.events[k]));
            k = image(k);
        }
        out.push_str(&format!("({})", cycle.join(" ")));
    }
    out
}

/// A permutation of the components in cycle notation over their names:
/// `(Phil(0) Phil(1) Phil(2))(Fork(0) Fork(1) Fork(2))`; `()` for the
/// identity.
pub fn cycles(graph: &CommunicationGraph, alpha: &[u32]) -> String {
    let mut seen = vec![false; alpha.len()];
    let mut out = String::new();
    for start in 0..alpha.len() {
        if seen[start] || alpha[start] as usize == start {
            continue;
        }
        let mut cycle = Vec::new();
        let mut c = start;
        while !seen[c] {
            seen[c] = true;
            cycle.push(graph.names[c].clone());
            c = alpha[c] as usize;
        }
        out.push_str(&format!("({})", cycle.join(" ")));
    }
    if out.is_empty() {
        out.push_str("() on the components");
    }
    out
}
