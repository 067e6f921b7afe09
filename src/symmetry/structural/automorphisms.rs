//! The automorphism group of a coloured graph, by individualisation and
//! refinement (McKay's method, as nauty does it, in its plain form).
//!
//! A partition of the vertices is refined until *equitable* (every
//! vertex of a cell has as many neighbours in each cell as the others);
//! the first cell with several vertices then has each vertex in turn
//! split off (*individualised*) and the partition refined again, down to
//! a partition of single vertices (a *leaf*, a labelling). The first
//! path (always the first vertex) gives the first leaf; for each level,
//! from the deepest up, every other vertex of that level's cell not yet
//! known to be in the chosen vertex's orbit is individualised instead,
//! and its subtree searched for a leaf the first one maps onto: the map
//! between them is an automorphism fixing the path above. The orbits at
//! each level multiply to the group's order. Subtrees whose partitions
//! differ in shape from the first path's are skipped (no leaf there can
//! match).

use num_bigint::BigUint;

use crate::budget::{Meter, Pulse, Stopped};

use super::graph::CommunicationGraph;

/// A graph's automorphisms: generators, the group's order and the
/// orbits of its vertices.
#[derive(Debug, Clone)]
pub struct Automorphisms {
    /// Each generator as a map of vertices (`map[v]`: where `v` goes).
    pub generators: Vec<Vec<u32>>,
    pub order: BigUint,
    /// The orbits of the vertices (each sorted; in order of their first
    /// vertex).
    pub orbits: Vec<Vec<u32>>,
}

/// An ordered partition: the vertices cell after cell.
#[derive(Debug, Clone)]
struct Partition {
    order: Vec<u32>,
    /// Per vertex: its place in `order`.
    at: Vec<u32>,
    /// Per vertex: the place its cell starts.
    cell: Vec<u32>,
    /// Per place that starts a cell: where the cell ends.
    end: Vec<u32>,
}

impl Partition {
    /// The vertices by colour, a cell per colour.
    fn by_colour(colours: &[u32]) -> Partition {
        let n = colours.len();
        let mut order: Vec<u32> = (0..n as u32).collect();
        order.sort_by_key(|&v| (colours[v as usize], v));
        let mut p = Partition {
            order,
            at: vec![0; n],
            cell: vec![0; n],
            end: vec![0; n],
        };
        let mut start = 0;
        for i in 0..=n {
            let boundary = i == n
                || (i > 0 && colours[p.order[i] as usize] != colours[p.order[i - 1] as usize]);
            if boundary && i > start {
                p.end[start] = i as u32;
                for k in start..i {
                    p.cell[p.order[k] as usize] = start as u32;
                }
                start = i;
            }
        }
        for (k, &v) in p.order.iter().enumerate() {
            p.at[v as usize] = k as u32;
        }
        p
    }

    fn cell_starts(&self) -> Vec<u32> {
        let mut starts = Vec::new();
        let mut k = 0;
        while k < self.order.len() {
            starts.push(k as u32);
            k = self.end[k] as usize;
        }
        starts
    }

    /// The first cell with several vertices.
    fn first_wide(&self) -> Option<u32> {
        let mut k = 0;
        while k < self.order.len() {
            let end = self.end[k] as usize;
            if end - k > 1 {
                return Some(k as u32);
            }
            k = end;
        }
        None
    }

    fn members(&self, start: u32) -> &[u32] {
        &self.order[start as usize..self.end[start as usize] as usize]
    }

    /// The cells' sizes in order: two partitions whose shapes differ
    /// lead to no leaves that match.
    fn shape(&self) -> Vec<u32> {
        self.cell_starts()
            .iter()
            .map(|&s| self.end[s as usize] - s)
            .collect()
    }

    /// Whether the cells' sizes in order are `shape` (without making
    /// the list).
    fn has_shape(&self, shape: &[u32]) -> bool {
        let mut k = 0;
        let mut cells = shape.iter();
        while k < self.order.len() {
            let end = self.end[k] as usize;
            if cells.next() != Some(&((end - k) as u32)) {
                return false;
            }
            k = end;
        }
        cells.next().is_none()
    }

    /// Splits `v` off the front of its cell; the new cell's start.
    fn individualise(&mut self, v: u32) -> u32 {
        let start = self.cell[v as usize] as usize;
        let end = self.end[start] as usize;
        let at = self.at[v as usize] as usize;
        self.order.swap(start, at);
        let moved = self.order[at];
        self.at[moved as usize] = at as u32;
        self.at[v as usize] = start as u32;
        self.end[start] = start as u32 + 1;
        self.end[start + 1] = end as u32;
        for k in start + 1..end {
            self.cell[self.order[k] as usize] = start as u32 + 1;
        }
        start as u32
    }

    /// Refines until equitable, splitting by the cells in `splitters`
    /// first (and the cells a split makes). A split moves only the
    /// vertices the splitter touches (the rest stay where they are), and
    /// queues every piece but the largest when the cell was not queued
    /// already (Hopcroft's rule): a ring's refinement, which runs round
    /// the ring a vertex at a time, stays near linear.
    fn refine(&mut self, graph: &CommunicationGraph, splitters: Vec<u32>, counts: &mut [u32]) {
        let mut queue: std::collections::VecDeque<u32> = splitters.into();
        let mut queued = vec![false; self.order.len()];
        for &s in &queue {
            queued[s as usize] = true;
        }
        let mut touched: Vec<u32> = Vec::new();
        let mut members: Vec<u32> = Vec::new();
        while let Some(s) = queue.pop_front() {
            queued[s as usize] = false;
            members.clear();
            members.extend_from_slice(self.members(s));
            for &v in &members {
                for &w in &graph.adjacency[v as usize] {
                    if counts[w as usize] == 0 {
                        touched.push(w);
                    }
                    counts[w as usize] += 1;
                }
            }
            // The touched vertices cell by cell, by count within each.
            touched.sort_unstable_by_key(|&w| (self.cell[w as usize], counts[w as usize]));
            let mut k = 0;
            while k < touched.len() {
                let c = self.cell[touched[k] as usize];
                let mut j = k;
                while j < touched.len() && self.cell[touched[j] as usize] == c {
                    j += 1;
                }
                self.split(c, &touched[k..j], counts, (&mut queue, &mut queued));
                k = j;
            }
            for &w in &touched {
                counts[w as usize] = 0;
            }
            touched.clear();
        }
    }

    /// Splits the cell starting at `a` by the counts of its `touched`
    /// members (sorted by count; the others count 0), queueing the new
    /// cells.
    fn split(
        &mut self,
        a: u32,
        touched: &[u32],
        counts: &[u32],
        (queue, queued): (&mut std::collections::VecDeque<u32>, &mut [bool]),
    ) {
        let (a, b) = (a as usize, self.end[a as usize] as usize);
        let size = b - a;
        let uniform = counts[touched[0] as usize] == counts[touched[touched.len() - 1] as usize];
        if size == 1 || (touched.len() == size && uniform) {
            return;
        }
        // The touched members to the back of the cell, in count order.
        let back = b - touched.len();
        for (i, &w) in touched.iter().enumerate() {
            let to = back + i;
            let from = self.at[w as usize] as usize;
            let other = self.order[to];
            self.order.swap(from, to);
            self.at[other as usize] = from as u32;
            self.at[w as usize] = to as u32;
        }
        // The pieces: the untouched front (if any), then a run per count.
        let mut starts = Vec::new();
        if back > a {
            starts.push(a);
        }
        for k in back..b {
            if k == back || counts[self.order[k] as usize] != counts[self.order[k - 1] as usize] {
                starts.push(k);
            }
        }
        starts.push(b);
        let was_queued = queued[a];
        let largest = (0..starts.len() - 1)
            .max_by_key(|&r| (starts[r + 1] - starts[r], std::cmp::Reverse(r)))
            .expect("a piece");
        for r in 0..starts.len() - 1 {
            let (x, y) = (starts[r], starts[r + 1]);
            self.end[x] = y as u32;
            if x != a {
                for k in x..y {
                    self.cell[self.order[k] as usize] = x as u32;
                }
            }
            if !queued[x] && (was_queued || r != largest) {
                queued[x] = true;
                queue.push_back(x as u32);
            }
        }
    }
}

/// The search's bookkeeping.
struct AutomorphismSearch<'g> {
    graph: &'g CommunicationGraph,
    counts: Vec<u32>,
    first_leaf: Vec<u32>,
    /// The first path's partitions' shapes, by depth.
    shapes: Vec<Vec<u32>>,
    generators: Vec<Vec<u32>>,
    /// How many leaves were looked at, against the budget.
    leaves: u64,
    /// The search tree grows with the graph's symmetry (exponentially,
    /// where a wide cell's vertices are alike): the meter is read by
    /// the clock at every node of it.
    meter: &'g Meter,
    pulse: Pulse,
    stopped: Option<Stopped>,
}

/// The most leaves the search looks at before it answers with what it
/// has found (a group it could not finish is still a group of
/// automorphisms: validation checks each element anyway).
pub const MAX_LEAVES: u64 = 1_000_000;

/// The automorphisms of `graph`, within `meter`'s budget.
pub fn automorphisms(graph: &CommunicationGraph, meter: &Meter) -> Result<Automorphisms, Stopped> {
    let n = graph.vertices();
    let mut counts = vec![0; n];
    let mut root = Partition::by_colour(&graph.colours);
    let all = root.cell_starts();
    root.refine(graph, all, &mut counts);
    // The first path.
    let mut path: Vec<(Partition, u32, u32)> = Vec::new();
    let mut shapes = vec![root.shape()];
    let mut p = root;
    let mut pulse = Pulse::default();
    while let Some(cell) = p.first_wide() {
        pulse.beat(meter)?;
        let v = p.members(cell)[0];
        path.push((p.clone(), cell, v));
        let start = p.individualise(v);
        p.refine(graph, vec![start], &mut counts);
        shapes.push(p.shape());
    }
    let mut search = AutomorphismSearch {
        graph,
        counts,
        first_leaf: p.order.clone(),
        shapes,
        generators: Vec::new(),
        leaves: 1,
        meter,
        pulse,
        stopped: None,
    };
    let mut order = BigUint::from(1u32);
    for level in (0..path.len()).rev() {
        let (partition, cell, v) = &path[level];
        let prefix: Vec<u32> = path[..level].iter().map(|&(_, _, v)| v).collect();
        let mut known = orbit(&search.generators, &prefix, *v, n);
        for &u in partition.members(*cell) {
            if known[u as usize] {
                continue;
            }
            let mut q = partition.clone();
            let start = q.individualise(u);
            q.refine(graph, vec![start], &mut search.counts);
            if let Some(gamma) = search.find(q, level + 1) {
                search.generators.push(gamma);
                known = orbit(&search.generators, &prefix, *v, n);
            }
            if let Some(stop) = search.stopped {
                return Err(stop);
            }
        }
        order *= known.iter().filter(|&&k| k).count();
    }
    let orbits = vertex_orbits(n, &search.generators);
    Ok(Automorphisms {
        generators: search.generators,
        order,
        orbits,
    })
}

impl AutomorphismSearch<'_> {
    /// A leaf below `p` (at `depth` on its path) the first leaf maps
    /// onto by an automorphism, and that automorphism.
    fn find(&mut self, p: Partition, depth: usize) -> Option<Vec<u32>> {
        if self.stopped.is_some() {
            return None;
        }
        if let Err(stop) = self.pulse.beat(self.meter) {
            self.stopped = Some(stop);
            return None;
        }
        if self.leaves >= MAX_LEAVES || !self.shapes.get(depth).is_some_and(|s| p.has_shape(s)) {
            return None;
        }
        let Some(cell) = p.first_wide() else {
            self.leaves += 1;
            let mut gamma = vec![0; p.order.len()];
            for (k, &v) in self.first_leaf.iter().enumerate() {
                gamma[v as usize] = p.order[k];
            }
            return self.is_automorphism(&gamma).then_some(gamma);
        };
        for &w in p.members(cell) {
            let mut q = p.clone();
            let start = q.individualise(w);
            q.refine(self.graph, vec![start], &mut self.counts);
            if let Some(gamma) = self.find(q, depth + 1) {
                return Some(gamma);
            }
        }
        None
    }

    fn is_automorphism(&self, gamma: &[u32]) -> bool {
        let g = self.graph;
        (0..gamma.len()).all(|v| {
            g.colours[v] == g.colours[gamma[v] as usize]
                && g.adjacency[v].len() == g.adjacency[gamma[v] as usize].len()
                && g.adjacency[v]
                    .iter()
                    .all(|&w| g.joined(gamma[v], gamma[w as usize]))
        })
    }
}

/// The orbit of `v` under the generators that fix every vertex of
/// `prefix`, as a mark per vertex (of `n`).
fn orbit(generators: &[Vec<u32>], prefix: &[u32], v: u32, n: usize) -> Vec<bool> {
    let fixing: Vec<&Vec<u32>> = generators
        .iter()
        .filter(|g| prefix.iter().all(|&p| g[p as usize] == p))
        .collect();
    let mut seen = vec![false; n];
    seen[v as usize] = true;
    let mut frontier = vec![v];
    while let Some(x) = frontier.pop() {
        for g in &fixing {
            let y = g[x as usize];
            if !seen[y as usize] {
                seen[y as usize] = true;
                frontier.push(y);
            }
        }
    }
    seen
}

/// The orbits of every vertex under the group the generators make.
fn vertex_orbits(n: usize, generators: &[Vec<u32>]) -> Vec<Vec<u32>> {
    let mut parent: Vec<u32> = (0..n as u32).collect();
    fn root(parent: &mut [u32], mut x: u32) -> u32 {
        while parent[x as usize] != x {
            parent[x as usize] = parent[parent[x as usize] as usize];
            x = parent[x as usize];
        }
        x
    }
    for g in generators {
        for v in 0..n as u32 {
            let (a, b) = (root(&mut parent, v), root(&mut parent, g[v as usize]));
            if a != b {
                parent[a.max(b) as usize] = a.min(b);
            }
        }
    }
    let mut orbits: Vec<Vec<u32>> = Vec::new();
    let mut index: rustc_hash::FxHashMap<u32, usize> = rustc_hash::FxHashMap::default();
    for v in 0..n as u32 {
        let r = root(&mut parent, v);
        let k = *index.entry(r).or_insert_with(|| {
            orbits.push(Vec::new());
            orbits.len() - 1
        });
        orbits[k].push(v);
    }
    orbits
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::budget::Budget;
    use crate::lts::machine::Machine;
    use crate::process::Processes;
    use crate::script::Script;

    #[test]
    fn the_search_answers_within_its_budget() {
        let script = "channel c : {0..5}.{0..5}
                      Node(i) = c!i!((i + 1) % 6) -> Node(i) [] c?j!i -> Node(i)
                      Ring = || i : {0..5} @ [{| c.i, c.j.i | j <- {0..5} |}] Node(i)";
        let mut script = Script::load_str("ring.csp", script).expect("loads");
        let func = script.add_expr("<process>", "Ring").expect("resolves");
        crate::stack::with_large_stack(|| {
            let (mut procs, root) = Processes::with_root(&script, func).expect("a process");
            let machine = Machine::new(&mut procs, root).expect("a machine");
            let graph = CommunicationGraph::of(&machine, &mut procs).expect("a graph");
            let open = Budget::default().meter();
            let found = automorphisms(&graph, &open).expect("within the budget");
            // The ring's rotations and reflections at least.
            assert!(found.order >= BigUint::from(12u32), "{}", found.order);
            let past = Budget {
                timeout: Some(std::time::Duration::ZERO),
                ..Budget::default()
            }
            .meter();
            assert_eq!(
                automorphisms(&graph, &past).map(|a| a.order),
                Err(Stopped::Timeout)
            );
        });
    }
}
