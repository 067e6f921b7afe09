//! A [`Document`] as one SVG picture: a panel per stage, each the state's
//! graph (Section 7.1) with every component filled with the colour of its
//! cell in that stage's partition, a legend of the cells, and why the
//! stage split what it split; then the orderings and the permutation.
//!
//! Written by hand (no drawing library): components sit round a circle in
//! the algorithm's final order (in a column, when a circle would not fit
//! the page, references then arcs beside it), in the same place in every
//! panel, so from one panel to the next only the colours change, as the
//! cells do. References are arrows labelled with their variables
//! (`next=me`);
//! values several components share are listed under the drawing (`B =
//! #1.datum = #2.datum`), as the text drawing lists them, rather than
//! drawn as a clique.

use std::f64::consts::PI;

use super::{Document, PERMUTATION_EXPLAINED, Stage};
use crate::symmetry::palette::{NO_CELL, cell_colours};

/// The picture's width in pixels.
const WIDTH: f64 = 1000.0;
const MARGIN: f64 = 20.0;
/// Text sizes (monospace) and the width of one character of each.
const FONT: f64 = 12.0;
const CHAR: f64 = 7.2;
const SMALL: f64 = 10.0;
const SMALL_CHAR: f64 = 6.0;
const LINE: f64 = 16.0;
const BOX_HEIGHT: f64 = 24.0;
/// The longest line of words under a panel, in characters.
const WRAP: usize = 130;

/// The whole picture.
pub fn svg(doc: &Document) -> String {
    let layout = Layout::new(doc);
    let mut body = String::new();
    let mut y = MARGIN;
    body.push_str(&text(
        MARGIN,
        y + 16.0,
        16.0,
        "bold",
        "The representative algorithm, stage by stage",
    ));
    y += 30.0;
    // Labels in a column of their own: blanks are not a way to align
    // text every SVG reader honours.
    let value_x = MARGIN + 11.0 * CHAR;
    for (label, value) in &doc.heading {
        body.push_str(&text(MARGIN, y + FONT, FONT, "normal", label));
        for line in wrap(value, WRAP - 11) {
            body.push_str(&text(value_x, y + FONT, FONT, "normal", &line));
            y += LINE;
        }
    }
    body.push_str(&text(
        MARGIN,
        y + FONT,
        FONT,
        "normal",
        &format!("cell sizes, stage by stage: {}", doc.summary()),
    ));
    y += LINE + 10.0;
    let total = doc.stages.len();
    for (k, stage) in doc.stages.iter().enumerate() {
        y = panel(&mut body, doc, &layout, stage, (k + 1, total), y);
    }
    y = closing(&mut body, doc, layout.width, y);
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" \
         viewBox=\"0 0 {w} {h}\" font-family=\"monospace\">\n\
         <defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" \
         markerWidth=\"8\" markerHeight=\"8\" orient=\"auto-start-reverse\">\
         <path d=\"M 0 0 L 10 5 L 0 10 z\" fill=\"#333333\"/></marker></defs>\n\
         <rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n{body}</svg>\n",
        w = layout.width,
        h = (y + MARGIN).ceil()
    )
}

/// Where each component's box sits (its centre), relative to the top
/// left of a drawing, and the drawing's size.
struct Layout {
    centres: Vec<(f64, f64)>,
    widths: Vec<f64>,
    /// `Some(row of each component)` when the boxes stand in a column
    /// (references then drawn as arcs to the right of it).
    rows: Option<Vec<usize>>,
    /// The right edge of the column's widest box.
    column_right: f64,
    height: f64,
    /// The right edge of what is drawn.
    right: f64,
    /// The picture's width: the page's, or the drawing's if wider.
    width: f64,
}

/// A column's rows apart, and how far right each row between the ends
/// of a reference pushes its arc.
const ROW: f64 = 2.0 * BOX_HEIGHT;
const ARC_STEP: f64 = 14.0;

impl Layout {
    fn new(doc: &Document) -> Layout {
        let n = doc.texts.len();
        let widths: Vec<f64> = (0..n)
            .map(|c| label(doc, c).chars().count() as f64 * CHAR + 12.0)
            .collect();
        let widest = widths.iter().copied().fold(0.0, f64::max);
        // Round a circle whose arcs between neighbours are each at least
        // as long as the widest box, so no two boxes overlap.
        let radius = if n < 2 {
            0.0
        } else {
            ((widest + 24.0) * n as f64 / (2.0 * PI)).max(90.0)
        };
        let mut centres = vec![(0.0, 0.0); n];
        let places = doc.order.iter().enumerate().filter(|&(_, &c)| c < n);
        if 2.0 * radius + widest <= WIDTH - 2.0 * MARGIN {
            let centre = (MARGIN + radius + widest / 2.0, radius + BOX_HEIGHT);
            for (k, &c) in places {
                // From the top, clockwise, in the final order.
                let angle = 2.0 * PI * k as f64 / n as f64 - PI / 2.0;
                centres[c] = (
                    centre.0 + radius * angle.cos(),
                    centre.1 + radius * angle.sin(),
                );
            }
            return Layout {
                right: centre.0 + radius + widest / 2.0,
                centres,
                widths,
                rows: None,
                column_right: 0.0,
                height: 2.0 * radius + 2.0 * BOX_HEIGHT,
                width: WIDTH,
            };
        }
        // Too many or too wide for a circle on the page: a column in the
        // final order, left aligned, references arcs on its right (an arc
        // diagram), so none runs under a box.
        let mut rows = vec![0; n];
        for (k, &c) in places {
            rows[c] = k;
            centres[c] = (MARGIN + widths[c] / 2.0, BOX_HEIGHT + k as f64 * ROW);
        }
        let column_right = MARGIN + widest;
        let names = doc
            .graph
            .references()
            .map(|e| doc.graph.label(e).chars().count())
            .max()
            .unwrap_or(0) as f64;
        let right = column_right + 24.0 + ARC_STEP * n as f64 + names * SMALL_CHAR + 8.0;
        Layout {
            centres,
            widths,
            rows: Some(rows),
            column_right,
            height: n as f64 * ROW,
            right,
            width: WIDTH.max(right + MARGIN),
        }
    }

    /// The line or arc of a reference from `from` to `to`, and where its
    /// label goes (the left end of its baseline).
    fn reference(&self, from: usize, to: usize, name: &str) -> (String, (f64, f64)) {
        let (a, b) = (self.centres[from], self.centres[to]);
        let name_width = name.chars().count() as f64 * SMALL_CHAR;
        match &self.rows {
            None => {
                let start = boundary(a, b, self.widths[from]);
                let end = boundary(b, a, self.widths[to]);
                // Nearer the source than the target: the variable is the
                // source's, and lines crossing at a circle's centre keep
                // their labels apart.
                let at = (
                    start.0 + 0.35 * (end.0 - start.0),
                    start.1 + 0.35 * (end.1 - start.1),
                );
                (
                    format!(
                        "<line x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\"",
                        start.0, start.1, end.0, end.1
                    ),
                    (at.0 - name_width / 2.0, at.1 - 3.0),
                )
            }
            Some(rows) => {
                let start = (a.0 + self.widths[from] / 2.0, a.1);
                let end = (b.0 + self.widths[to] / 2.0, b.1);
                let apart = rows[from].abs_diff(rows[to]) as f64;
                let bulge = self.column_right + 24.0 + ARC_STEP * apart;
                // A cubic Bézier's farthest point (t = ½) is ¾ of the way
                // to its control points.
                let tip = 0.125 * (start.0 + end.0) + 0.75 * bulge;
                (
                    format!(
                        "<path d=\"M {:.1} {:.1} C {bulge:.1} {:.1}, {bulge:.1} {:.1}, {:.1} {:.1}\" \
                         fill=\"none\"",
                        start.0, start.1, start.1, end.1, end.0, end.1
                    ),
                    (tip + 4.0, (start.1 + end.1) / 2.0 + 3.0),
                )
            }
        }
    }
}

/// `#3 FreeNode(N2)`.
fn label(doc: &Document, c: usize) -> String {
    format!("#{} {}", c + 1, doc.texts[c])
}

/// One stage's panel from `y` down: heading, drawing, legend, words.
/// Returns where the next panel starts.
fn panel(
    out: &mut String,
    doc: &Document,
    layout: &Layout,
    stage: &Stage,
    (k, total): (usize, usize),
    mut y: f64,
) -> f64 {
    out.push_str(&rule(layout.width, y));
    y += 8.0;
    for line in wrap(&format!("Stage {k} of {total}. {}", stage.title()), WRAP) {
        out.push_str(&text(MARGIN, y + 14.0, 14.0, "bold", &line));
        y += 20.0;
    }
    let colours = cell_colours(stage.cells.len());
    let mut cell_of = vec![None; doc.texts.len()];
    for (j, cell) in stage.cells.iter().enumerate() {
        for &c in cell {
            if let Some(slot) = cell_of.get_mut(c) {
                *slot = Some(j);
            }
        }
    }
    out.push_str(&format!("<g transform=\"translate(0 {y})\">\n"));
    drawing(out, doc, layout, &cell_of, &colours);
    out.push_str("</g>\n");
    // The legend, a swatch per cell with its members: beside the drawing
    // where it fits, else below it.
    let legend: Vec<String> = stage
        .cells
        .iter()
        .enumerate()
        .map(|(j, cell)| {
            let members: Vec<String> = cell.iter().map(|&c| format!("#{}", c + 1)).collect();
            format!("cell {}: {}", j + 1, members.join(", "))
        })
        .collect();
    let legend_width =
        legend.iter().map(|l| l.chars().count()).max().unwrap_or(0) as f64 * CHAR + 20.0;
    let beside = layout.right + 40.0;
    let (x, mut legend_y) = if beside + legend_width <= layout.width - MARGIN {
        (beside, y + 8.0)
    } else {
        (MARGIN, y + layout.height + 8.0)
    };
    for (line, colour) in legend.iter().zip(&colours) {
        out.push_str(&format!(
            "<rect x=\"{x:.1}\" y=\"{:.1}\" width=\"14\" height=\"12\" fill=\"{colour}\" \
             stroke=\"#333333\"/>\n",
            legend_y + 2.0,
        ));
        out.push_str(&text(x + 20.0, legend_y + FONT, FONT, "normal", line));
        legend_y += LINE;
    }
    y = (y + layout.height + 8.0).max(legend_y + 4.0);
    let shared = shared_lines(doc);
    for line in &shared {
        out.push_str(&text(MARGIN, y + FONT, FONT, "normal", line));
        y += LINE;
    }
    y += 4.0;
    let mark = stage.mark().map(|m| format!("{m} ")).unwrap_or_default();
    let words = if stage.tables.is_empty() && !stage.sentences.is_empty() {
        stage
            .sentences
            .iter()
            .map(|s| format!("{mark}{s}"))
            .collect()
    } else {
        let mut words = vec![stage.outcome()];
        words.extend(stage.sentences.iter().map(|s| format!("• {s}")));
        words
    };
    for sentence in words {
        for line in wrap(&sentence, WRAP) {
            out.push_str(&text(MARGIN, y + FONT, FONT, "normal", &line));
            y += LINE;
        }
    }
    y + 12.0
}

/// The state's graph: an arrow per reference, a box per component filled
/// with its cell's colour.
fn drawing(
    out: &mut String,
    doc: &Document,
    layout: &Layout,
    cell_of: &[Option<usize>],
    colours: &[String],
) {
    let graph = &doc.graph;
    for e in graph.references() {
        let name = graph.label(e);
        let (shape, (x, y)) = layout.reference(e.from, e.to, &name);
        out.push_str(&format!(
            "{shape} stroke=\"#333333\" marker-end=\"url(#arrow)\"/>\n"
        ));
        out.push_str(&text(x, y, SMALL, "normal", &name));
    }
    for (c, &(x, y)) in layout.centres.iter().enumerate() {
        let w = layout.widths[c];
        let fill = cell_of[c].map_or(NO_CELL, |j| colours[j].as_str());
        out.push_str(&format!(
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{w:.1}\" height=\"{BOX_HEIGHT}\" rx=\"4\" \
             fill=\"{fill}\" stroke=\"#333333\"/>\n",
            x - w / 2.0,
            y - BOX_HEIGHT / 2.0
        ));
        out.push_str(&text(
            x - w / 2.0 + 6.0,
            y + FONT / 3.0,
            FONT,
            "normal",
            &label(doc, c),
        ));
    }
}

/// Where the line from `centre` towards `other` leaves a box of width
/// `width` centred at `centre`.
fn boundary(centre: (f64, f64), other: (f64, f64), width: f64) -> (f64, f64) {
    let (dx, dy) = (other.0 - centre.0, other.1 - centre.1);
    let (hw, hh) = (width / 2.0, BOX_HEIGHT / 2.0);
    let scale = match (dx.abs() > f64::EPSILON, dy.abs() > f64::EPSILON) {
        (false, false) => return centre,
        (true, false) => hw / dx.abs(),
        (false, true) => hh / dy.abs(),
        (true, true) => (hw / dx.abs()).min(hh / dy.abs()),
    };
    (centre.0 + dx * scale, centre.1 + dy * scale)
}

/// Each value several components share: `B = #1.datum = #2.datum`.
fn shared_lines(doc: &Document) -> Vec<String> {
    let graph = &doc.graph;
    graph
        .shared
        .iter()
        .map(|value| {
            let holders: Vec<String> = value
                .holders
                .iter()
                .map(|&(c, i)| format!("#{}.{}", c + 1, graph.variables[c].name(i)))
                .collect();
            format!("{} = {}", value.value_name, holders.join(" = "))
        })
        .collect()
}

/// The last panel: the order, the orderings and the permutation.
fn closing(out: &mut String, doc: &Document, width: f64, mut y: f64) -> f64 {
    out.push_str(&rule(width, y));
    y += 8.0;
    out.push_str(&text(
        MARGIN,
        y + 14.0,
        14.0,
        "bold",
        "The orderings and the permutation",
    ));
    y += 22.0;
    let order: Vec<String> = doc.order.iter().map(|&c| label(doc, c)).collect();
    let mut lines = wrap(&format!("order: {}", order.join(", ")), WRAP);
    for t in &doc.orderings {
        let nowhere = if t.nowhere.is_empty() {
            String::new()
        } else {
            format!(" | appearing nowhere, any order: {}", t.nowhere.join(", "))
        };
        lines.push(format!("{}: {}{nowhere}", t.ty, t.appeared.join(", ")));
    }
    lines.extend(wrap(PERMUTATION_EXPLAINED, WRAP));
    if doc.permutation.is_empty() {
        lines.push("  the identity: the state is its own representative".to_string());
    }
    lines.extend(doc.permutation.iter().map(|l| format!("  {l}")));
    lines.push(format!("  components (α): {}", doc.alpha_text()));
    lines.extend(wrap(&format!("unique: {}", doc.unique), WRAP));
    for line in lines {
        out.push_str(&text(MARGIN, y + FONT, FONT, "normal", &line));
        y += LINE;
    }
    y
}

/// A rule across a picture `width` wide at height `y`, between panels.
fn rule(width: f64, y: f64) -> String {
    format!(
        "<line x1=\"{MARGIN}\" y1=\"{y}\" x2=\"{}\" y2=\"{y}\" stroke=\"#999999\"/>\n",
        width - MARGIN
    )
}

/// A `<text>` at `(x, y)` (its baseline). Leading blanks become an
/// indent: not every SVG reader keeps blanks.
fn text(x: f64, y: f64, size: f64, weight: &str, content: &str) -> String {
    let shown = content.trim_start_matches(' ');
    let indent = (content.len() - shown.len()) as f64 * size * CHAR / FONT;
    format!(
        "<text x=\"{:.1}\" y=\"{y:.1}\" font-size=\"{size}\" font-weight=\"{weight}\" \
         xml:space=\"preserve\">{}</text>\n",
        x + indent,
        escape(shown)
    )
}

/// `text` cut into lines of at most `width` characters at blanks (a word
/// longer than that stands alone on its line).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        let needed = line.chars().count() + 1 + word.chars().count();
        if !line.is_empty() && needed > width {
            lines.push(std::mem::take(&mut line));
            line.push_str("  ");
        } else if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    lines.push(line);
    lines
}

/// `text` for XML.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_wrap_at_blanks_under_an_indent() {
        assert_eq!(
            wrap("one two three four", 9),
            ["one two", "  three", "  four"]
        );
        assert_eq!(wrap("short", 9), ["short"]);
    }

    #[test]
    fn an_edge_leaves_a_box_at_its_side() {
        assert_eq!(boundary((0.0, 0.0), (100.0, 0.0), 40.0), (20.0, 0.0));
        assert_eq!(
            boundary((0.0, 0.0), (0.0, -100.0), 40.0),
            (0.0, -BOX_HEIGHT / 2.0)
        );
        assert_eq!(escape("a -> b & <c>"), "a -&gt; b &amp; &lt;c&gt;");
    }
}
