//! The static half of combining moves by event: what each node of the
//! operator tree may leave out when it lists its moves, and where the
//! candidate events of each synchronisation come from.
//!
//! A node's moves on an event its parent synchronises (or links, or
//! renames onto such an event) are never listed: the parent asks for
//! them by event ([`super::combine`]). So each node has an *excluded* set
//! — the events its listing skips — and a synchronising node finds which
//! of its synchronised events are possible by asking one operand for the
//! events it *offers* within a set, then the others by event. Both sets
//! are fixed by the tree, so they are computed once, here; τ and ✓ are
//! never excluded nor synchronised.

use rustc_hash::FxHashMap;

use crate::process::{EventId, EventRelation, EventSet, TAU, TICK};

use super::Node;

/// A set of events as bits over event ids, with the operations the plan
/// needs (the process layer's [`EventSet`] is immutable and shared).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) struct Bits(Vec<u64>);

impl Bits {
    pub(super) fn empty(id_count: usize) -> Bits {
        Bits(vec![0; id_count.div_ceil(64)])
    }

    fn of(set: &EventSet, id_count: usize) -> Bits {
        let mut bits = Bits::empty(id_count);
        for e in set.iter() {
            bits.insert(e);
        }
        bits
    }

    /// Every visible event not in `set`.
    fn complement_of(set: &EventSet, id_count: usize) -> Bits {
        let mut bits = Bits::empty(id_count);
        for e in 0..id_count as EventId {
            if !set.contains(e) {
                bits.insert(e);
            }
        }
        bits.without_internal()
    }

    /// The events below a renaming whose images lie in `above`: all
    /// of them or any one, as `images` says (an event the renaming does
    /// not rename is its own image).
    fn below_renaming(
        relation: &EventRelation,
        above: &Bits,
        id_count: usize,
        images: Images,
    ) -> Bits {
        let mut below = Bits::empty(id_count);
        for e in 0..id_count as EventId {
            let image = relation.image(e);
            let inside = |&(_, to): &(EventId, EventId)| above.contains(to);
            let lies = match (image.is_empty(), images) {
                (true, _) => above.contains(e),
                (false, Images::All) => image.iter().all(inside),
                (false, Images::Any) => image.iter().any(inside),
            };
            if lies {
                below.insert(e);
            }
        }
        below
    }

    pub(super) fn insert(&mut self, e: EventId) {
        self.0[e as usize / 64] |= 1 << (e % 64);
    }

    #[inline]
    pub(super) fn contains(&self, e: EventId) -> bool {
        self.0
            .get(e as usize / 64)
            .is_some_and(|w| w & (1 << (e % 64)) != 0)
    }

    pub(super) fn is_empty(&self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }

    fn union(&self, other: &Bits) -> Bits {
        Bits(self.0.iter().zip(&other.0).map(|(a, b)| a | b).collect())
    }

    fn intersection(&self, other: &Bits) -> Bits {
        Bits(self.0.iter().zip(&other.0).map(|(a, b)| a & b).collect())
    }

    fn minus(&self, other: &Bits) -> Bits {
        Bits(self.0.iter().zip(&other.0).map(|(a, b)| a & !b).collect())
    }

    fn iter(&self) -> impl Iterator<Item = EventId> + '_ {
        self.0.iter().enumerate().flat_map(|(i, &w)| {
            (0..64)
                .filter(move |b| w & (1 << b) != 0)
                .map(move |b| (i * 64 + b) as EventId)
        })
    }

    /// τ and ✓ are never left out nor synchronised.
    fn without_internal(mut self) -> Bits {
        for e in [TAU, TICK] {
            if let Some(w) = self.0.get_mut(e as usize / 64) {
                *w &= !(1 << (e % 64));
            }
        }
        self
    }
}

/// Which of an event's images [`Bits::below_renaming`] asks about.
#[derive(Clone, Copy)]
enum Images {
    All,
    Any,
}

/// An index into [`Plan::sets`].
pub(super) type SetId = u32;
/// An index into [`Plan::offers`].
pub(super) type OfferId = u32;

/// How a node finds the events it offers within a fixed set.
#[derive(Debug)]
pub(super) enum Offer {
    /// The component's distinct events in the set.
    Leaf { slot: u32, set: SetId },
    /// The child's offers outside the hidden set.
    Hide { child: Option<OfferId> },
    /// The child's offers among the preimages of the set, renamed, kept
    /// when in the set.
    Rename {
        node: usize,
        child: Option<OfferId>,
        set: SetId,
    },
    /// Each operand's offers on events it performs alone, and the
    /// synchronised events all participants offer.
    Parallel {
        node: usize,
        free: Vec<Option<OfferId>>,
        sync: Option<Discover>,
    },
    /// The events in the set that a prioritised node performs: its
    /// child's whole offer is needed to judge each.
    Prioritise { node: usize, set: SetId },
    /// The left operand's offers on events it does not link, the right's
    /// on events nothing links to.
    Linked {
        left: Option<OfferId>,
        right: Option<OfferId>,
    },
}

/// Where the candidates of a parallel node's synchronised events (within
/// some set) come from.
#[derive(Debug)]
pub(super) enum Discover {
    /// `[| A |]`: every operand takes part in every synchronised event,
    /// so any one may be asked; the one with the fewest moves is.
    Any { plans: Vec<Option<OfferId>> },
    /// `[A || B]`: each event is asked of the first operand whose
    /// alphabet holds it (its plan covers exactly those events).
    First { plans: Vec<Option<OfferId>> },
}

/// The plan of a machine's operator tree.
#[derive(Debug, Default)]
pub(super) struct Plan {
    /// Per node: the components below it, `from..to`.
    pub ranges: Vec<(u32, u32)>,
    /// Per node: the node above it (the root's is itself).
    pub parent: Vec<usize>,
    /// Per node: its place among its parent's operands (a parallel
    /// node's may be millions: never searched for).
    pub child_index: Vec<u32>,
    /// Per slot: its leaf node.
    pub leaf: Vec<usize>,
    /// Per node: the events its listing leaves out.
    pub excluded: Vec<SetId>,
    /// Per slot: the events its component's listing leaves out.
    pub leaf_excluded: Vec<SetId>,
    /// Per node: how a parallel node discovers its synchronised events
    /// when it lists its moves.
    pub discover: Vec<Option<Discover>>,
    /// Per node: a linked node's plan for the events its left operand
    /// offers to link.
    pub link_offers: Vec<Option<OfferId>>,
    /// Per node: a renaming node's preimages (the events renamed onto each
    /// event), sorted.
    pub preimages: Vec<FxHashMap<EventId, Vec<EventId>>>,
    pub offers: Vec<Offer>,
    /// Per slot: its components' leaf plans ([`Offer::Leaf`]).
    pub leaf_offers: Vec<Vec<OfferId>>,
    /// Per leaf plan: the plans that read it (itself among them).
    pub readers: Vec<Vec<OfferId>>,
    /// Per plan: the components it reads whatever they have done (those
    /// below a prioritised node, whose whole offer it needs).
    pub always_reads: Vec<Vec<u32>>,
    pub sets: Vec<Bits>,
    set_ids: FxHashMap<Bits, SetId>,
    offer_ids: FxHashMap<(usize, SetId), OfferId>,
    id_count: usize,
}

impl Plan {
    /// The plan of the tree `nodes` (root first) over `slots` components.
    pub(super) fn new(nodes: &[Node], slots: usize, id_count: usize) -> Plan {
        let mut plan = Plan {
            ranges: vec![(0, 0); nodes.len()],
            parent: vec![0; nodes.len()],
            child_index: vec![0; nodes.len()],
            leaf: vec![0; slots],
            excluded: vec![0; nodes.len()],
            leaf_excluded: vec![0; slots],
            discover: (0..nodes.len()).map(|_| None).collect(),
            link_offers: vec![None; nodes.len()],
            preimages: vec![FxHashMap::default(); nodes.len()],
            id_count,
            ..Plan::default()
        };
        plan.range(nodes, 0);
        for (i, node) in nodes.iter().enumerate() {
            if let Node::Rename { relation, .. } = node {
                let inverse = &mut plan.preimages[i];
                for &(from, to) in relation.pairs() {
                    inverse.entry(to).or_default().push(from);
                }
            }
        }
        let nothing = Bits::empty(id_count);
        plan.exclude(nodes, 0, nothing);
        plan.index_reads(slots);
        plan
    }

    /// Which leaf plans and components each plan reads (plans are made
    /// children first, so each one's are known before its parent's).
    fn index_reads(&mut self, slots: usize) {
        let mut leaves: Vec<Vec<OfferId>> = Vec::with_capacity(self.offers.len());
        self.leaf_offers = vec![Vec::new(); slots];
        self.always_reads = Vec::with_capacity(self.offers.len());
        for (id, offer) in self.offers.iter().enumerate() {
            let id = id as OfferId;
            // Its own leaf plan or the components it always reads, and
            // the plans it asks.
            let (mut own, mut always, children): (Vec<OfferId>, Vec<u32>, Vec<OfferId>) =
                match offer {
                    Offer::Leaf { slot, .. } => {
                        self.leaf_offers[*slot as usize].push(id);
                        (vec![id], Vec::new(), Vec::new())
                    }
                    Offer::Prioritise { node, .. } => {
                        let (from, to) = self.ranges[*node];
                        (Vec::new(), (from..to).collect(), Vec::new())
                    }
                    Offer::Hide { child } | Offer::Rename { child, .. } => {
                        (Vec::new(), Vec::new(), child.iter().copied().collect())
                    }
                    Offer::Parallel { free, sync, .. } => {
                        let discovered = match sync {
                            Some(Discover::Any { plans } | Discover::First { plans }) => {
                                plans.as_slice()
                            }
                            None => &[],
                        };
                        let asked = free.iter().chain(discovered).flatten().copied();
                        (Vec::new(), Vec::new(), asked.collect())
                    }
                    Offer::Linked { left, right } => {
                        let asked = [left, right].into_iter().flatten().copied();
                        (Vec::new(), Vec::new(), asked.collect())
                    }
                };
            for child in children {
                own.extend_from_slice(&leaves[child as usize]);
                always.extend_from_slice(&self.always_reads[child as usize]);
            }
            own.sort_unstable();
            own.dedup();
            always.sort_unstable();
            always.dedup();
            leaves.push(own);
            self.always_reads.push(always);
        }
        self.readers = vec![Vec::new(); self.offers.len()];
        for (reader, read) in leaves.iter().enumerate() {
            for &leaf in read {
                self.readers[leaf as usize].push(reader as OfferId);
            }
        }
    }

    fn range(&mut self, nodes: &[Node], node: usize) -> (u32, u32) {
        let range = match &nodes[node] {
            Node::Leaf { slot } => {
                self.leaf[*slot as usize] = node;
                (*slot, slot + 1)
            }
            Node::Parallel { children, .. } => {
                for (i, &c) in children.iter().enumerate() {
                    self.parent[c] = node;
                    self.child_index[c] = i as u32;
                    self.range(nodes, c);
                }
                match &nodes[node] {
                    Node::Parallel { slots, .. } => *slots,
                    _ => unreachable!(),
                }
            }
            Node::Hide { child, .. }
            | Node::Rename { child, .. }
            | Node::Prioritise { child, .. } => {
                self.parent[*child] = node;
                self.range(nodes, *child)
            }
            Node::Linked {
                left, right, slots, ..
            } => {
                self.parent[*left] = node;
                self.parent[*right] = node;
                self.child_index[*right] = 1;
                self.range(nodes, *left);
                self.range(nodes, *right);
                *slots
            }
        };
        self.ranges[node] = range;
        range
    }

    fn set_id(&mut self, bits: Bits) -> SetId {
        if let Some(&id) = self.set_ids.get(&bits) {
            return id;
        }
        let id = self.sets.len() as SetId;
        self.sets.push(bits.clone());
        self.set_ids.insert(bits, id);
        id
    }

    /// Records what `node`'s listing leaves out (`excluded`), and so its
    /// children's, top down.
    fn exclude(&mut self, nodes: &[Node], node: usize, excluded: Bits) {
        let n = self.id_count;
        self.excluded[node] = self.set_id(excluded.clone());
        match &nodes[node] {
            Node::Leaf { slot } => {
                self.leaf_excluded[*slot as usize] = self.excluded[node];
            }
            Node::Hide { child, set } => {
                // A hidden event is a τ above: always listed.
                let child_excluded = excluded.minus(&Bits::of(set, n));
                self.exclude(nodes, *child, child_excluded);
            }
            Node::Prioritise { child, .. } => {
                // Whether a move may happen depends on every other move
                // the child offers: it lists them all.
                self.exclude(nodes, *child, Bits::empty(n));
            }
            Node::Rename { child, relation } => {
                // An event may be left out below when every event it
                // becomes is left out above.
                let child_excluded = Bits::below_renaming(relation, &excluded, n, Images::All);
                self.exclude(nodes, *child, child_excluded.without_internal());
            }
            Node::Parallel {
                children,
                alphabets,
                sync,
                ..
            } => {
                let sync = sync
                    .as_ref()
                    .map_or_else(|| Bits::empty(n), |s| Bits::of(s, n));
                let wanted = sync.minus(&excluded).without_internal();
                self.discover[node] = self.discover(nodes, node, &wanted);
                for (i, &c) in children.iter().enumerate() {
                    let mut child_excluded = excluded.union(&sync);
                    if let Some(alphabets) = alphabets {
                        child_excluded =
                            child_excluded.union(&Bits::complement_of(&alphabets[i], n));
                    }
                    self.exclude(nodes, c, child_excluded.without_internal());
                }
            }
            Node::Linked {
                left,
                right,
                relation,
                range,
                ..
            } => {
                let domain = Bits::empty(n);
                let mut domain = domain;
                for &(from, _) in relation.pairs() {
                    domain.insert(from);
                }
                let domain = domain.without_internal();
                self.link_offers[node] = self.offer(nodes, *left, &domain);
                let left_excluded = excluded.union(&domain).without_internal();
                let right_excluded = excluded.union(&Bits::of(range, n)).without_internal();
                self.exclude(nodes, *left, left_excluded);
                self.exclude(nodes, *right, right_excluded);
            }
        }
    }

    /// How parallel `node` finds which of its synchronised events within
    /// `wanted` all their participants offer; `None` when none can be.
    fn discover(&mut self, nodes: &[Node], node: usize, wanted: &Bits) -> Option<Discover> {
        let Node::Parallel {
            children,
            alphabets,
            ..
        } = &nodes[node]
        else {
            unreachable!("only parallel nodes synchronise")
        };
        if wanted.is_empty() {
            return None;
        }
        match alphabets {
            None => {
                let plans = children
                    .iter()
                    .map(|&c| self.offer(nodes, c, wanted))
                    .collect();
                Some(Discover::Any { plans })
            }
            Some(alphabets) => {
                let mut first: Vec<Bits> = vec![Bits::empty(self.id_count); children.len()];
                for e in wanted.iter() {
                    if let Some(i) = alphabets.iter().position(|a| a.contains(e)) {
                        first[i].insert(e);
                    }
                }
                let plans = children
                    .iter()
                    .zip(&first)
                    .map(|(&c, events)| self.offer(nodes, c, events))
                    .collect();
                Some(Discover::First { plans })
            }
        }
    }

    /// The plan by which `node` lists the events it offers within `set`;
    /// `None` when the set is empty.
    fn offer(&mut self, nodes: &[Node], node: usize, set: &Bits) -> Option<OfferId> {
        if set.is_empty() {
            return None;
        }
        let set_id = self.set_id(set.clone());
        if let Some(&id) = self.offer_ids.get(&(node, set_id)) {
            return Some(id);
        }
        let n = self.id_count;
        let offer = match &nodes[node] {
            Node::Leaf { slot } => Offer::Leaf {
                slot: *slot,
                set: set_id,
            },
            Node::Hide { child, set: hidden } => Offer::Hide {
                child: self.offer(nodes, *child, &set.minus(&Bits::of(hidden, n))),
            },
            Node::Prioritise { .. } => Offer::Prioritise { node, set: set_id },
            Node::Rename { child, relation } => {
                let preimage = Bits::below_renaming(relation, set, n, Images::Any);
                Offer::Rename {
                    node,
                    child: self.offer(nodes, *child, &preimage.without_internal()),
                    set: set_id,
                }
            }
            Node::Parallel {
                children,
                alphabets,
                sync,
                ..
            } => {
                let sync = sync
                    .as_ref()
                    .map_or_else(|| Bits::empty(n), |s| Bits::of(s, n));
                let free = children
                    .iter()
                    .enumerate()
                    .map(|(i, &c)| {
                        let mut own = set.minus(&sync);
                        if let Some(alphabets) = alphabets {
                            own = own.intersection(&Bits::of(&alphabets[i], n));
                        }
                        self.offer(nodes, c, &own)
                    })
                    .collect();
                let shared = set.intersection(&sync);
                Offer::Parallel {
                    node,
                    free,
                    sync: self.discover(nodes, node, &shared),
                }
            }
            Node::Linked {
                left,
                right,
                relation,
                range,
                ..
            } => {
                let mut domain = Bits::empty(n);
                for &(from, _) in relation.pairs() {
                    domain.insert(from);
                }
                Offer::Linked {
                    left: self.offer(nodes, *left, &set.minus(&domain)),
                    right: self.offer(nodes, *right, &set.minus(&Bits::of(range, n))),
                }
            }
        };
        let id = self.offers.len() as OfferId;
        self.offers.push(offer);
        self.offer_ids.insert((node, set_id), id);
        Some(id)
    }
}
