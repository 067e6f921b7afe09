//! The event table and the event sets and relations operators use.
//!
//! Every event of the script (`Events`) is interned once into a dense
//! [`EventId`]; τ and ✓ are the reserved ids 0 and 1. Sets are bit sets
//! over the ids and relations (renamings, links) are lists of id pairs,
//! each interned once, so operators refer to them by a small id and the
//! explorer works on integers only.

use std::sync::Arc;

use indexmap::IndexSet;
use rustc_hash::FxBuildHasher;

use crate::eval::Value;

/// An interned event. Ids follow the order of `Events` (FDR's value
/// order) after the two reserved ones.
pub type EventId = u32;

/// The internal action.
pub const TAU: EventId = 0;
/// Successful termination.
pub const TICK: EventId = 1;

/// Every event of a script, by id and by value.
///
/// The values are in FDR's order, so an event's id is found by binary
/// search: no second copy of millions of events in a hash map.
#[derive(Debug, Default)]
pub struct EventTable {
    values: Vec<Value>,
    /// Each channel with the ids of its events, `first..end`: `Events`
    /// is in value order, so a channel's events are consecutive.
    channels: Vec<(Value, std::ops::Range<EventId>)>,
}

/// Events entered between two calls of the pace given to
/// [`EventTable::new`].
const EVENTS_PER_PACE: usize = 1 << 16;

impl EventTable {
    /// The table of `events`, sorted and without duplicates; `pace` is
    /// asked every so many events, and its error ends the work.
    pub fn new<E>(events: Vec<Value>, pace: &dyn Fn() -> Result<(), E>) -> Result<EventTable, E> {
        debug_assert!(events.windows(2).all(|w| w[0] < w[1]), "sorted, once each");
        let mut channels: Vec<(Value, std::ops::Range<EventId>)> = Vec::new();
        for (i, event) in events.iter().enumerate() {
            if i % EVENTS_PER_PACE == EVENTS_PER_PACE - 1 {
                pace()?;
            }
            let id = (i + 2) as EventId;
            let channel = match event {
                Value::Named(parts) => &parts[0],
                other => other,
            };
            match channels.last_mut() {
                Some((last, range)) if last == channel => range.end = id + 1,
                _ => channels.push((channel.clone(), id..id + 1)),
            }
        }
        Ok(EventTable {
            values: events,
            channels,
        })
    }

    /// Each channel (as a value) with the range of its events' ids.
    pub fn channels(&self) -> &[(Value, std::ops::Range<EventId>)] {
        &self.channels
    }

    /// The id of a complete event, if it is one.
    pub fn id(&self, event: &Value) -> Option<EventId> {
        self.values
            .binary_search(event)
            .ok()
            .map(|i| (i + 2) as EventId)
    }

    /// The value of a visible event (`None` for τ and ✓).
    pub fn value(&self, id: EventId) -> Option<&Value> {
        id.checked_sub(2).map(|i| &self.values[i as usize])
    }

    /// Ids a bit set must cover: the visible events and the two reserved.
    pub fn id_count(&self) -> usize {
        self.values.len() + 2
    }
}

/// A set of events as bits over event ids.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct EventSet {
    words: Arc<[u64]>,
}

impl EventSet {
    pub fn from_ids(ids: impl IntoIterator<Item = EventId>, id_count: usize) -> EventSet {
        let mut words = vec![0u64; id_count.div_ceil(64)];
        for id in ids {
            words[id as usize / 64] |= 1 << (id % 64);
        }
        EventSet {
            words: words.into(),
        }
    }

    /// How many of the ids `range` holds are in the set.
    pub fn count_in(&self, range: std::ops::Range<EventId>) -> usize {
        range.filter(|&id| self.contains(id)).count()
    }

    #[inline]
    pub fn contains(&self, id: EventId) -> bool {
        self.words
            .get(id as usize / 64)
            .is_some_and(|w| w & (1 << (id % 64)) != 0)
    }

    pub fn iter(&self) -> impl Iterator<Item = EventId> + '_ {
        self.words.iter().enumerate().flat_map(|(i, &w)| {
            (0..64)
                .filter(move |b| w & (1 << b) != 0)
                .map(move |b| (i * 64 + b) as EventId)
        })
    }

    pub fn len(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.words.iter().all(|&w| w == 0)
    }
}

/// A relation on events (a renaming or the links of a linked parallel):
/// sorted, deduplicated pairs, with the image of each event.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct EventRelation {
    pairs: Arc<[(EventId, EventId)]>,
}

impl EventRelation {
    pub fn new(mut pairs: Vec<(EventId, EventId)>) -> EventRelation {
        pairs.sort_unstable();
        pairs.dedup();
        EventRelation {
            pairs: pairs.into(),
        }
    }

    pub fn pairs(&self) -> &[(EventId, EventId)] {
        &self.pairs
    }

    /// The events `a` is related to (in order).
    pub fn image(&self, a: EventId) -> &[(EventId, EventId)] {
        let start = self.pairs.partition_point(|&(x, _)| x < a);
        let end = self.pairs.partition_point(|&(x, _)| x <= a);
        &self.pairs[start..end]
    }

    /// Whether `a` is related to anything.
    pub fn in_domain(&self, a: EventId) -> bool {
        !self.image(a).is_empty()
    }

    /// Whether anything is related to `b`.
    pub fn in_range(&self, b: EventId) -> bool {
        self.pairs.iter().any(|&(_, y)| y == b)
    }
}

/// Interns values of type `T` to dense ids: an id is the value's place
/// in an index set, which holds each value once and keeps its hash, so
/// that growing never hashes the values again (a process term's hash
/// walks every value in it).
#[derive(Debug)]
pub struct Interner<T> {
    items: IndexSet<T, FxBuildHasher>,
}

impl<T> Default for Interner<T> {
    fn default() -> Self {
        Interner {
            items: IndexSet::default(),
        }
    }
}

impl<T: Eq + std::hash::Hash> Interner<T> {
    pub fn intern(&mut self, item: T) -> u32 {
        self.items.insert_full(item).0 as u32
    }

    pub fn get(&self, id: u32) -> &T {
        &self.items[id as usize]
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bit_set_holds_exactly_its_ids() {
        let set = EventSet::from_ids([2, 65, 130], 200);
        assert!(set.contains(2) && set.contains(65) && set.contains(130));
        assert!(!set.contains(3) && !set.contains(64) && !set.contains(1000));
        assert_eq!(set.iter().collect::<Vec<_>>(), vec![2, 65, 130]);
        assert_eq!(set.len(), 3);
    }

    #[test]
    fn a_relation_gives_the_image_of_each_event() {
        let r = EventRelation::new(vec![(5, 7), (3, 4), (5, 6), (5, 6)]);
        assert_eq!(r.image(5), &[(5, 6), (5, 7)]);
        assert_eq!(r.image(4), &[]);
        assert!(r.in_domain(3) && r.in_range(7) && !r.in_range(5));
    }
}
