//! A validated group of structural symmetries, its elements enumerated
//! once, and the search's canonicaliser under it: a state's
//! representative is its least image over the whole group (exact: one
//! representative per orbit), found by trying every element.

use rustc_hash::FxHashSet;

use crate::eval::EvalResult;
use crate::lts::machine::Machine;
use crate::lts::search::Canonicaliser;
use crate::process::{ProcId, Processes};

use super::graph::CommunicationGraph;
use super::validate::Element;

/// The most elements a group may have to be enumerated and reduced by
/// (the least image over the group is its order's work per state).
pub const MAX_ELEMENTS: usize = 10_000;

/// The closure of `generators` under composition, the identity first;
/// `None` past `limit` elements.
pub fn closure(identity: Element, generators: &[Element], limit: usize) -> Option<Vec<Element>> {
    let mut seen: FxHashSet<Element> = FxHashSet::default();
    seen.insert(identity.clone());
    let mut elements = vec![identity];
    let mut k = 0;
    while k < elements.len() {
        for g in generators {
            let next = elements[k].then(g);
            if seen.insert(next.clone()) {
                if elements.len() == limit {
                    return None;
                }
                elements.push(next);
            }
        }
        k += 1;
    }
    Some(elements)
}

/// The closure of vertex maps under composition (for the graph's whole
/// automorphism group), the identity first; `None` past `limit`.
pub fn map_closure(n: usize, generators: &[Vec<u32>], limit: usize) -> Option<Vec<Vec<u32>>> {
    let identity: Vec<u32> = (0..n as u32).collect();
    let mut seen: FxHashSet<Vec<u32>> = FxHashSet::default();
    seen.insert(identity.clone());
    let mut maps = vec![identity];
    let mut k = 0;
    while k < maps.len() {
        for g in generators {
            let next: Vec<u32> = maps[k].iter().map(|&v| g[v as usize]).collect();
            if seen.insert(next.clone()) {
                if maps.len() == limit {
                    return None;
                }
                maps.push(next);
            }
        }
        k += 1;
    }
    Some(maps)
}

/// The search's canonicaliser under an enumerated group.
pub struct StructuralReduction {
    elements: Vec<Element>,
    /// Per component: each LTS state's local number in the machine.
    local_of: Vec<Vec<u32>>,
    /// Per component: each local number's LTS state (`u32::MAX` for a
    /// state its LTS does not hold: a marker of termination).
    state_of: Vec<Vec<u32>>,
    /// The LTSs' states, to number new local states.
    states: Vec<Vec<ProcId>>,
    /// Per element: the component each place of an image comes from
    /// (α⁻¹), so an image is built place by place and dropped at the
    /// first place where it is greater than the best so far.
    sources: Vec<Vec<u32>>,
    image: Vec<u32>,
    best: Vec<u32>,
    /// The element the last representative was made with.
    chosen: usize,
}

impl StructuralReduction {
    /// Reduction by `elements` (the identity among them) of `machine`,
    /// whose components' LTSs `graph` holds: every LTS state numbered in
    /// the machine now.
    pub fn new(elements: Vec<Element>, graph: &CommunicationGraph, machine: &mut Machine) -> Self {
        let n = graph.components;
        let mut local_of = Vec::with_capacity(n);
        let mut state_of: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (c, lts) in graph.ltss.iter().enumerate() {
            let locals: Vec<u32> = lts.states.iter().map(|&p| machine.local_of(c, p)).collect();
            for (s, &local) in locals.iter().enumerate() {
                let map = &mut state_of[c];
                if map.len() <= local as usize {
                    map.resize(local as usize + 1, u32::MAX);
                }
                map[local as usize] = s as u32;
            }
            local_of.push(locals);
        }
        StructuralReduction {
            sources: elements.iter().map(sources_of).collect(),
            elements,
            local_of,
            state_of,
            states: graph.ltss.iter().map(|l| l.states.clone()).collect(),
            image: Vec::new(),
            best: Vec::new(),
            chosen: 0,
        }
    }

    /// The subgroup of the elements `keep` accepts, which must be a
    /// subgroup (the stabiliser of something the group acts on).
    pub fn keeping(&self, mut keep: impl FnMut(&Element) -> bool) -> StructuralReduction {
        let elements: Vec<Element> = self
            .elements
            .iter()
            .enumerate()
            .filter(|&(g, e)| g == 0 || keep(e))
            .map(|(_, e)| e.clone())
            .collect();
        StructuralReduction {
            sources: elements.iter().map(sources_of).collect(),
            elements,
            local_of: self.local_of.clone(),
            state_of: self.state_of.clone(),
            states: self.states.clone(),
            image: Vec::new(),
            best: Vec::new(),
            chosen: 0,
        }
    }

    /// Whether some element moves a component (otherwise no state has
    /// another image).
    pub fn moves_a_component(&self) -> bool {
        self.elements
            .iter()
            .any(|e| e.alpha.iter().enumerate().any(|(c, &a)| a as usize != c))
    }

    pub fn order(&self) -> usize {
        self.elements.len()
    }

    pub fn elements(&self) -> &[Element] {
        &self.elements
    }

    /// Element `g` applied to `row` (the components), into `out`.
    pub fn apply(&self, machine: &mut Machine, g: usize, row: &[u32], out: &mut [u32]) {
        for (d, place) in out.iter_mut().enumerate() {
            *place = self.image_at(machine, g, row, d);
        }
    }

    /// Place `d` of element `g`'s image of `row`: the state there of the
    /// component `g` moves to `d`.
    fn image_at(&self, machine: &mut Machine, g: usize, row: &[u32], d: usize) -> u32 {
        let c = self.sources[g][d] as usize;
        let local = row[c];
        match self.state_of[c].get(local as usize).copied() {
            Some(s) if s != u32::MAX => self.local_of[d][self.elements[g].phi.get(c, s) as usize],
            // A marker (or Ω) every component has alike.
            _ => machine.local_of(d, machine.process_state(c, local)),
        }
    }

    /// The least image of `row` over the group into `out`, and the
    /// element that gives it. Each image is built place by place and
    /// dropped at the first place that makes it greater than the best.
    pub fn representative(&mut self, machine: &mut Machine, row: &[u32], out: &mut [u32]) -> usize {
        let chosen = self.least(machine, row);
        out.copy_from_slice(&self.best);
        chosen
    }

    /// `row` replaced by its least image over the group; the element
    /// that gives it.
    pub fn canonicalise_row(&mut self, machine: &mut Machine, row: &mut [u32]) -> usize {
        let chosen = self.least(machine, row);
        row.copy_from_slice(&self.best);
        chosen
    }

    /// The least image of `row`, left in `best`, and its element.
    fn least(&mut self, machine: &mut Machine, row: &[u32]) -> usize {
        let n = row.len();
        self.image.resize(n, 0);
        self.best.clear();
        self.best.extend_from_slice(row);
        let mut chosen = 0;
        for g in 1..self.elements.len() {
            let mut image = std::mem::take(&mut self.image);
            let mut less = false;
            let mut greater = false;
            for (d, place) in image.iter_mut().enumerate() {
                *place = self.image_at(machine, g, row, d);
                if !less {
                    match (*place).cmp(&self.best[d]) {
                        std::cmp::Ordering::Less => less = true,
                        std::cmp::Ordering::Greater => {
                            greater = true;
                            break;
                        }
                        std::cmp::Ordering::Equal => {}
                    }
                }
            }
            if less && !greater {
                std::mem::swap(&mut self.best, &mut image);
                chosen = g;
            }
            self.image = image;
        }
        self.chosen = chosen;
        chosen
    }

    /// The element the last representative was made with.
    pub fn chosen(&self) -> usize {
        self.chosen
    }

    /// The element that is `g`'s inverse.
    pub fn inverse(&self, g: usize) -> usize {
        let inverse = self.elements[g].inverse();
        self.elements
            .iter()
            .position(|e| *e == inverse)
            .expect("a group holds every inverse")
    }

    /// The element `g` then `h`.
    pub fn compose(&self, g: usize, h: usize) -> usize {
        let composed = self.elements[g].then(&self.elements[h]);
        self.elements
            .iter()
            .position(|e| *e == composed)
            .expect("a group is closed")
    }

    /// The image of event `e` under element `g`.
    pub fn permute_event(&self, g: usize, e: crate::process::EventId) -> crate::process::EventId {
        match e {
            crate::process::TAU | crate::process::TICK => e,
            e => self.elements[g].pi.image(e),
        }
    }

    /// The LTS states of component `c` (for showing).
    pub fn component_states(&self, c: usize) -> &[ProcId] {
        &self.states[c]
    }
}

/// Per place of an image under `element`: the component it comes from.
fn sources_of(element: &Element) -> Vec<u32> {
    let mut sources = vec![0; element.alpha.len()];
    for (c, &d) in element.alpha.iter().enumerate() {
        sources[d as usize] = c as u32;
    }
    sources
}

impl Canonicaliser for StructuralReduction {
    fn canonicalise(
        &mut self,
        machine: &mut Machine,
        _procs: &mut Processes,
        row: &mut [u32],
    ) -> EvalResult<()> {
        let n = machine.components();
        self.canonicalise_row(machine, &mut row[..n]);
        Ok(())
    }
}
