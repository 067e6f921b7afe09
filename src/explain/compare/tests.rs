//! The comparison's unit tests.

use super::*;
use crate::explain::variables::Variable;

/// An explanation whose trace is `steps`, for the cause alone.
fn explained(steps: Vec<Step>, unique_identities: bool) -> Explanation {
    Explanation {
        state: vec![0, 0, 0],
        representative: vec![0, 0, 0],
        permutation: Permutation::default(),
        alpha: vec![0, 1, 2],
        trace: Trace {
            steps,
            ..Trace::default()
        },
        unique_identities,
        values_read: true,
    }
}

fn variables(identities: [Option<usize>; 3]) -> Vec<ComponentVariables> {
    identities
        .iter()
        .enumerate()
        .map(|(c, &identity)| ComponentVariables {
            component: c,
            variables: vec![Variable {
                name: "me".to_string(),
                value: Atom::new(0, c),
                value_name: format!("N{c}"),
            }],
            identity,
        })
        .collect()
}

fn exact() -> OwnedInput {
    OwnedInput {
        exact: vec![true; 3],
        ..OwnedInput::default()
    }
}

#[test]
fn a_split_of_a_cell_not_fully_symmetric_where_the_traces_part() {
    let split = |fully_symmetric, component| Step::Individualise {
        cell: 0,
        members: vec![0, 1, 2],
        component,
        by_hand: false,
        fully_symmetric,
        cells: vec![vec![component], vec![]],
    };
    let shapes = || Step::Shapes {
        cells: vec![vec![0, 1, 2]],
    };
    let left = explained(vec![shapes(), split(Some(false), 0)], true);
    let right = explained(vec![shapes(), split(Some(false), 2)], true);
    let v = variables([Some(0); 3]);
    let inputs = [exact(), exact()];
    assert_eq!(
        cause(
            (&left, &right),
            Some(1),
            (&v, &v),
            &inputs,
            &[vec![0, 1, 2]]
        ),
        Cause::Split {
            cell: 0,
            left_component: 0,
            right_component: 2,
            fully_symmetric: Some(false),
            alike_choices: Vec::new(),
        }
    );
    // A fully symmetric split cannot be the cause: with identities
    // broken, they are.
    let left = explained(vec![shapes(), split(Some(true), 0)], false);
    let right = explained(vec![shapes(), split(Some(true), 2)], true);
    let v = variables([Some(0), None, Some(0)]);
    assert_eq!(
        cause(
            (&left, &right),
            Some(1),
            (&v, &v),
            &inputs,
            &[vec![0, 1], vec![2]]
        ),
        Cause::Identities {
            sets: vec![vec![0, 1]]
        }
    );
    // Identities held and every state exact but for one: values the
    // algorithm does not read.
    let left = explained(vec![shapes()], true);
    let v = variables([Some(0); 3]);
    let mut hidden = exact();
    hidden.exact[1] = false;
    assert_eq!(
        cause(
            (&left, &left),
            None,
            (&v, &v),
            &[exact(), hidden],
            &[vec![0, 1, 2]]
        ),
        Cause::UnreadValues {
            components: vec![1]
        }
    );
}

#[test]
fn invariant_cells_keep_symmetric_sets_exactness_and_exact_shapes_apart() {
    let input = |ranks: Vec<u32>, exact: Vec<bool>| OwnedInput {
        ranks,
        exact,
        ..OwnedInput::default()
    };
    // Components 0–2 one symmetric set, 3 another. In the right state
    // component 1's map gives it another shape: not compared.
    let left = input(vec![5, 7, 5, 1], vec![true, false, true, true]);
    let right = input(vec![5, 9, 5, 1], vec![true, false, true, true]);
    let (l, r) = invariant_cells(&left, &right, &[vec![0, 1, 2], vec![3]]);
    assert_eq!(l, vec![vec![0, 2], vec![1], vec![3]]);
    assert_eq!(r, l);
    // Shapes that differ between exact states: cells of their own,
    // empty on the other side.
    let right = input(vec![5, 9, 6, 1], vec![true, false, true, true]);
    let (l, r) = invariant_cells(&left, &right, &[vec![0, 1, 2], vec![3]]);
    assert_eq!(l, vec![vec![0, 2], vec![], vec![1], vec![3]]);
    assert_eq!(r, vec![vec![0], vec![2], vec![1], vec![3]]);
}
