//! Text cut to its column: padded, or cut with `…` at each cut end,
//! shown from where the view is scrolled sideways, and how far the
//! longest text ran past its column.

use std::cell::Cell;

/// Texts cut to their columns, shown from `from` characters in (the
/// view scrolled sideways), and how far the longest ran past its column
/// — for the pane to say so and to scroll no further.
pub(super) struct Cut {
    from: usize,
    pub(super) overflow: Cell<usize>,
}

impl Cut {
    pub(super) fn new(from: usize) -> Cut {
        Cut {
            from,
            overflow: Cell::new(0),
        }
    }

    /// `text` in `width` characters: padded, or cut, each cut end marked
    /// `…`.
    pub(super) fn fit(&self, text: &str, width: usize) -> String {
        let count = text.chars().count();
        if count <= width {
            return format!("{text:<width$}");
        }
        let over = count - width;
        self.overflow.set(self.overflow.get().max(over));
        let from = self.from.min(over);
        let mut shown: Vec<char> = text.chars().skip(from).take(width).collect();
        if let Some(first) = shown.first_mut().filter(|_| from > 0) {
            *first = '…';
        }
        if let Some(last) = shown.last_mut().filter(|_| from < over) {
            *last = '…';
        }
        shown.into_iter().collect()
    }
}
