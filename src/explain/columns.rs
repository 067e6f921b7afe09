//! What each entry of an n-value counts, for heading the columns of the
//! n-value table (Example 37): entry `n_{i,j,k}` of a component counts
//! the components of cell `j` whose variable `k` holds the value of the
//! component's variable `i`, written `me→c2.next` (variable `me`, cell
//! 2's `next`). The layout is [`crate::symmetry::rep::n_value_entries`], the one
//! the algorithm prints its n-values in.

use super::variables::ComponentVariables;
use crate::symmetry::rep::n_value_entries;
use crate::symmetry::spec::Atom;

/// One entry of an n-value: `n_{i,j,k}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    /// `i`: the counting component's variable.
    pub variable: usize,
    /// `j`: the cell counted in (of the partition the n-values were
    /// computed against).
    pub cell: usize,
    /// `k`: the variable of cell `j`'s components compared with `i`.
    pub cell_variable: usize,
    pub variable_name: String,
    pub cell_variable_name: String,
}

impl Column {
    /// The column's heading, `me→c2.next` (cells numbered from 1).
    pub fn label(&self) -> String {
        format!(
            "{}→c{}.{}",
            self.variable_name,
            self.cell + 1,
            self.cell_variable_name
        )
    }
}

/// The columns of the n-values of one cell's components (they share a
/// shape, so they share the layout), grouped by variable `i` as
/// [`crate::symmetry::rep::NValue::groups`] is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CellColumns {
    pub cell: usize,
    pub groups: Vec<Vec<Column>>,
}

impl CellColumns {
    /// Every column, in the order of a flattened n-value.
    pub fn flat(&self) -> impl Iterator<Item = &Column> {
        self.groups.iter().flatten()
    }

    /// The headings as one line, groups separated as the paper separates
    /// them: `me→c1.me, me→c2.me; datum→c2.datum; …`.
    pub fn header(&self) -> String {
        self.groups
            .iter()
            .map(|g| g.iter().map(Column::label).collect::<Vec<_>>().join(", "))
            .collect::<Vec<_>>()
            .join("; ")
    }
}

/// The columns of the n-values computed against `cells` (an ordered
/// partition of the components), one [`CellColumns`] per cell.
pub fn columns(cells: &[Vec<usize>], variables: &[ComponentVariables]) -> Vec<CellColumns> {
    let values: Vec<Vec<Atom>> = cells
        .iter()
        .map(|cell| variables[cell[0]].values().collect())
        .collect();
    let layout: Vec<&[Atom]> = values.iter().map(Vec::as_slice).collect();
    cells
        .iter()
        .enumerate()
        .map(|(cell, members)| {
            let own = &variables[members[0]];
            let groups = own
                .variables
                .iter()
                .enumerate()
                .map(|(i, variable)| {
                    n_value_entries(variable.value.ty(), &layout)
                        .map(|(j, k)| Column {
                            variable: i,
                            cell: j,
                            cell_variable: k,
                            variable_name: variable.name.clone(),
                            cell_variable_name: variables[cells[j][0]].name(k).to_string(),
                        })
                        .collect()
                })
                .collect();
            CellColumns { cell, groups }
        })
        .collect()
}
