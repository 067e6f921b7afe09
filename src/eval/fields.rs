//! How the declared fields of a channel or constructor spread over the
//! parts of its values.
//!
//! A field is usually one part: `c.1.true` has two fields and two parts.
//! But a field's type may be a set of dotted values (`datatype Y = X.A`
//! with `A = {x.y | x <- {0..1}, y <- {0..2}}`): FDR then reads `X.0.1`
//! as `X` with the one field `0.1`, built part by part (`X.0` still
//! lacks a part), and checks the whole field once its last part is in.

use super::value::{Set, Value};

/// The value sets of a head's declared fields and how many parts each
/// takes.
#[derive(Debug)]
pub(super) struct Fields {
    pub sets: Vec<Set>,
    /// Parts per declared field: the length of its dotted values when
    /// every one has the same length, else 1.
    widths: Vec<usize>,
    /// The parts a complete value has after its head.
    pub arity: usize,
}

/// Where a part falls: its declared field, its place within it, and the
/// field's width.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Place {
    pub field: usize,
    pub offset: usize,
    pub width: usize,
}

impl Place {
    /// Whether the part is the last of its field.
    pub fn closes_field(self) -> bool {
        self.offset + 1 == self.width
    }
}

impl Fields {
    pub fn new(sets: Vec<Set>) -> Fields {
        let widths: Vec<usize> = sets.iter().map(width).collect();
        let arity = widths.iter().sum();
        Fields {
            sets,
            widths,
            arity,
        }
    }

    /// The place of the part at `position` (0 for the first after the
    /// head); `None` past the last.
    pub fn place(&self, position: usize) -> Option<Place> {
        let mut start = 0;
        for (field, &width) in self.widths.iter().enumerate() {
            if position < start + width {
                return Some(Place {
                    field,
                    offset: position - start,
                    width,
                });
            }
            start += width;
        }
        None
    }

    /// The elements of field `field`'s set that start with `prefix`, with
    /// that prefix taken off (as one part, or a dotted rest).
    pub fn rests_after(&self, field: usize, prefix: &[Value]) -> Vec<Value> {
        let Some(values) = self.sets[field].as_finite() else {
            return Vec::new();
        };
        values
            .iter()
            .filter_map(|v| match v {
                Value::Dot(parts) if parts.len() > prefix.len() && parts.starts_with(prefix) => {
                    let rest = &parts[prefix.len()..];
                    Some(if rest.len() == 1 {
                        rest[0].clone()
                    } else {
                        Value::Dot(rest.into())
                    })
                }
                _ => None,
            })
            .collect()
    }
}

/// A field's width: the common length of its dotted values.
fn width(set: &Set) -> usize {
    let Some(values) = set.as_finite() else {
        return 1;
    };
    let mut lengths = values.iter().map(|v| match v {
        Value::Dot(parts) => parts.len(),
        _ => 1,
    });
    match lengths.next() {
        Some(first) if lengths.all(|l| l == first) => first,
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dot(a: i64, b: i64) -> Value {
        Value::Dot(vec![Value::Int(a), Value::Int(b)].into())
    }

    #[test]
    fn a_field_of_dotted_pairs_takes_two_parts() {
        let pairs = Set::from_values(vec![dot(0, 1), dot(1, 2)]);
        let ints = Set::from_values(vec![Value::Int(5)]);
        let fields = Fields::new(vec![ints, pairs]);
        assert_eq!(fields.arity, 3);
        let at = |p| fields.place(p).map(|pl| (pl.field, pl.offset));
        assert_eq!(
            [at(0), at(1), at(2), at(3)],
            [Some((0, 0)), Some((1, 0)), Some((1, 1)), None]
        );
        assert!(fields.place(2).unwrap().closes_field());
        assert_eq!(fields.rests_after(1, &[Value::Int(1)]), vec![Value::Int(2)]);
    }

    #[test]
    fn mixed_lengths_stay_one_part() {
        let mixed = Set::from_values(vec![dot(0, 1), Value::Int(3)]);
        assert_eq!(Fields::new(vec![mixed]).arity, 1);
    }
}
