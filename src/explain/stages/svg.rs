//! A [`Document`] as an SVG picture: a panel per stage (or one stage, a
//! slide), each the state's graph (Section 7.1) with every component
//! filled with the colour of its cell in that stage's partition, a legend
//! of the cells, and why the stage split what it split; then the
//! orderings and the permutation. Sized for a projector: 1280 pixels wide,
//! text of 20 pixels at least; a slide is 1280 × 720 (16:9), its drawing
//! at the same place on every stage's slide, the legend and the words in
//! a column beside it where there is room; the state beside its
//! representative, the orderings and the permutation are the slide after
//! the last stage.
//!
//! A cell keeps its colour from stage to stage ([`Document::colours`]):
//! when one splits, the part split off takes a new colour and a thick
//! outline, and what is left of the cell a dashed one, so the eye sees
//! which cell split. Arrow labels are written over a white halo, placed
//! along their arrow clear of the labels already placed.
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

use super::{
    BY_HAND, CellColour, Document, PERMUTATION_EXPLAINED, SIZES_JOINED_BY, Shown, Stage, StageKind,
};
use crate::explain::palette::{NO_CELL, cell_colours};

/// The picture's width in pixels.
const WIDTH: f64 = 1280.0;
const MARGIN: f64 = 24.0;
/// Text sizes (monospace) and the width of one character of each.
const FONT: f64 = 20.0;
const CHAR: f64 = 12.0;
/// Arrows' labels: as large as the rest, a room reads them too.
const SMALL: f64 = 20.0;
const SMALL_CHAR: f64 = 12.0;
const LINE: f64 = 27.0;
const BOX_HEIGHT: f64 = 38.0;
/// Headings' sizes.
const TITLE: f64 = 28.0;
const SUBTITLE: f64 = 24.0;
/// The longest line of words under a panel, in characters.
const WRAP: usize = 102;

/// The picture of the stages `shown` asks for: the whole as one tall
/// page, or one slide.
pub fn svg(doc: &Document, shown: Shown) -> String {
    let layout = Layout::new(doc);
    let colours = doc.colours();
    let palette = cell_colours(
        colours
            .iter()
            .flatten()
            .map(|c| c.colour + 1)
            .max()
            .unwrap_or(0),
    );
    let mut body = String::new();
    let height = match shown {
        Shown::All => {
            let mut y = heading(&mut body, doc, MARGIN);
            let total = doc.stages.len();
            for (k, stage) in doc.stages.iter().enumerate() {
                let cells = (colours[k].as_slice(), palette.as_slice());
                y = panel(&mut body, doc, &layout, (stage, cells), (k + 1, total), y);
            }
            let y = closing(&mut body, doc, layout.width, y);
            by_hand(&mut body, doc, layout.width, y) + MARGIN
        }
        Shown::Stage(k) => {
            let cells = (colours[k].as_slice(), palette.as_slice());
            slide(&mut body, doc, &layout, cells, k).max(SLIDE_HEIGHT)
        }
        Shown::Closing => {
            let y = slide_top(&mut body, doc, None);
            let y = state_beside_representative(&mut body, doc, layout.width, y);
            closing(&mut body, doc, layout.width, y).max(SLIDE_HEIGHT - MARGIN) + MARGIN
        }
        Shown::ByHand => {
            let y = slide_top(&mut body, doc, None);
            by_hand(&mut body, doc, layout.width, y).max(SLIDE_HEIGHT - MARGIN) + MARGIN
        }
    };
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" \
         viewBox=\"0 0 {w} {h}\" font-family=\"monospace\">\n\
         <defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" \
         markerWidth=\"8\" markerHeight=\"8\" orient=\"auto-start-reverse\">\
         <path d=\"M 0 0 L 10 5 L 0 10 z\" fill=\"#333333\"/></marker></defs>\n\
         <rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n{body}</svg>\n",
        w = layout.width,
        h = height.ceil()
    )
}

/// A slide's height: 16:9 at [`WIDTH`].
const SLIDE_HEIGHT: f64 = 720.0;

/// The fewest characters a column beside the drawing holds for the
/// legend and the words to go there rather than under it.
const COLUMN_CHARS: usize = 34;

/// A slide's first line: whose stages these are, and where stage `k`
/// (from 0; none on the closing slide) stands among them. Returns where
/// what follows starts.
fn slide_top(body: &mut String, doc: &Document, k: Option<usize>) -> f64 {
    let mut y = MARGIN;
    for line in top_lines(doc, k) {
        body.push_str(&text(MARGIN, y + FONT, FONT, "normal", &line));
        y += LINE;
    }
    y + 10.0
}

fn top_lines(doc: &Document, k: Option<usize>) -> Vec<String> {
    let process = doc.heading.first().map_or("", |(_, p)| p.as_str());
    let sizes: Vec<String> = doc
        .stages
        .iter()
        .enumerate()
        .map(|(j, stage)| match Some(j) == k {
            true => format!("[{}]", super::sizes(&stage.cells)),
            false => super::sizes(&stage.cells),
        })
        .collect();
    wrap(
        &format!("{process} · cell sizes {}", sizes.join(SIZES_JOINED_BY)),
        WRAP,
    )
}

/// Stage `k`'s title, in lines.
fn title_lines(doc: &Document, k: usize) -> Vec<String> {
    wrap(
        &format!(
            "Stage {} of {}. {}",
            k + 1,
            doc.stages.len(),
            doc.stages[k].title()
        ),
        WRAP - 20,
    )
}

/// Stage `k` (from 0) as a slide: the drawing at the same place on every
/// stage's slide (below the room the longest title needs), the legend,
/// the shared values and the words in a column beside it where there is
/// room, else under it. Returns the height it needs.
fn slide(
    body: &mut String,
    doc: &Document,
    layout: &Layout,
    (colours, palette): (&[CellColour], &[String]),
    k: usize,
) -> f64 {
    let stage = &doc.stages[k];
    let stages = 0..doc.stages.len();
    let top = stages.clone().map(|j| top_lines(doc, Some(j)).len()).max();
    let titles = stages.map(|j| title_lines(doc, j).len()).max();
    slide_top(body, doc, Some(k));
    let mut y = MARGIN + top.unwrap_or(1) as f64 * LINE + 10.0;
    body.push_str(&rule(layout.width, y));
    y += 10.0;
    let drawing_top = y + titles.unwrap_or(1) as f64 * (SUBTITLE + 8.0);
    for line in title_lines(doc, k) {
        body.push_str(&text(MARGIN, y + SUBTITLE, SUBTITLE, "bold", &line));
        y += SUBTITLE + 8.0;
    }
    body.push_str(&format!("<g transform=\"translate(0 {drawing_top})\">\n"));
    drawing(
        body,
        doc,
        layout,
        &cells_coloured(doc, stage, colours),
        palette,
    );
    body.push_str("</g>\n");
    let legend = legend_lines(stage, colours);
    let words: Vec<String> = shared_lines(doc)
        .into_iter()
        .chain(stage_words(stage))
        .collect();
    // Beside the drawing, all in a column where there is one; else the
    // legend beside it if it fits and the words under it: whichever fits
    // the slide, the column first.
    let column_x = layout.right + 40.0;
    let column_chars = ((layout.width - MARGIN - column_x - 28.0) / CHAR).max(0.0) as usize;
    let drawing_bottom = drawing_top + layout.height + 8.0;
    let cells = (colours, palette);
    let mut beside = String::new();
    let in_column = (column_chars >= COLUMN_CHARS).then(|| {
        let y = put_legend(&mut beside, (column_x, drawing_top + 8.0), &legend, cells);
        let lines = wrapped(&words, column_chars + 2);
        put_lines(&mut beside, column_x, y + 8.0, &lines).max(drawing_bottom) + 12.0
    });
    let mut under = String::new();
    let legend_chars = legend.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    let legend_end = if column_x + legend_chars as f64 * CHAR + 30.0 <= layout.width - MARGIN {
        put_legend(&mut under, (column_x, drawing_top + 8.0), &legend, cells).max(drawing_bottom)
    } else {
        put_legend(&mut under, (MARGIN, drawing_bottom), &legend, cells)
    };
    let under_end = put_lines(&mut under, MARGIN, legend_end + 4.0, &wrapped(&words, WRAP)) + 12.0;
    match in_column {
        Some(end) if end <= SLIDE_HEIGHT - MARGIN || end <= under_end => {
            body.push_str(&beside);
            end
        }
        _ => {
            body.push_str(&under);
            under_end
        }
    }
}

/// Each line of `lines` cut at `width` characters.
fn wrapped(lines: &[String], width: usize) -> Vec<String> {
    lines.iter().flat_map(|line| wrap(line, width)).collect()
}

/// `lines` from `(x, y)` down; where the next line would go.
fn put_lines(body: &mut String, x: f64, mut y: f64, lines: &[String]) -> f64 {
    for line in lines {
        body.push_str(&text(x, y + FONT, FONT, "normal", line));
        y += LINE;
    }
    y
}

/// The state beside its representative from `y` down: each component
/// and the component of the representative it becomes.
fn state_beside_representative(out: &mut String, doc: &Document, width: f64, mut y: f64) -> f64 {
    out.push_str(&rule(width, y));
    y += 10.0;
    out.push_str(&text(
        MARGIN,
        y + SUBTITLE,
        SUBTITLE,
        "bold",
        "The state and its representative",
    ));
    y += SUBTITLE + 10.0;
    let lines: Vec<String> = doc
        .texts
        .iter()
        .enumerate()
        .map(|(c, state)| {
            let image = doc.alpha[c];
            format!(
                "#{} {state}  ↦  #{} {}",
                c + 1,
                image + 1,
                doc.representative[image]
            )
        })
        .collect();
    put_lines(out, MARGIN, y, &wrapped(&lines, WRAP))
}

/// The whole export's heading from `y`: the title, the process, the
/// trace, the types and the group, and the cell sizes stage by stage;
/// where the next panel starts.
fn heading(body: &mut String, doc: &Document, mut y: f64) -> f64 {
    body.push_str(&text(
        MARGIN,
        y + TITLE,
        TITLE,
        "bold",
        "The representative algorithm, stage by stage",
    ));
    y += TITLE + 14.0;
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
    y + LINE + 10.0
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
const ARC_STEP: f64 = 20.0;

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
        let round = round_order(doc);
        if 2.0 * radius + widest <= WIDTH - 2.0 * MARGIN {
            // A slide is wide but not tall, and wants a column beside
            // the drawing for its words: the circle is flattened into an
            // ellipse as far as its boxes stay apart, narrowed first.
            let column = 40.0 + 28.0 + COLUMN_CHARS as f64 * CHAR + MARGIN;
            let narrow = ((WIDTH - MARGIN - column - widest) / 2.0).max(0.0);
            let (mut across, mut down) = (radius.min(narrow), radius.min(FLATTENED / 2.0));
            let mut centres = round_centres(&round, across, down, widest);
            while (across < radius || down < radius) && overlapping(&centres, &widths) {
                if across < radius {
                    across = (across + 10.0).min(radius);
                } else {
                    down = (down + 10.0).min(radius);
                }
                centres = round_centres(&round, across, down, widest);
            }
            return Layout {
                right: MARGIN + 2.0 * across + widest,
                centres,
                widths,
                rows: None,
                column_right: 0.0,
                height: 2.0 * down + 2.0 * BOX_HEIGHT,
                width: WIDTH,
            };
        }
        let mut centres = vec![(0.0, 0.0); n];
        // Too many or too wide for a circle on the page: a column in the
        // final order, left aligned, references arcs on its right (an arc
        // diagram), so none runs under a box.
        let mut rows = vec![0; n];
        let places = doc.order.iter().enumerate().filter(|&(_, &c)| c < n);
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
    /// label may go (the left end of its baseline), best first.
    fn reference(&self, from: usize, to: usize, name: &str) -> (String, Vec<(f64, f64)>) {
        let (a, b) = (self.centres[from], self.centres[to]);
        let name_width = name.chars().count() as f64 * SMALL_CHAR;
        match &self.rows {
            None => {
                let start = boundary(a, b, self.widths[from]);
                let end = boundary(b, a, self.widths[to]);
                // Nearer the source than the target first: the variable
                // is the source's, and lines crossing at a circle's
                // centre keep their labels apart. Then further along, and
                // on either side of the line.
                let places = [0.3, 0.5, 0.2, 0.65, 0.4]
                    .into_iter()
                    .flat_map(|t| {
                        let at = (
                            start.0 + t * (end.0 - start.0),
                            start.1 + t * (end.1 - start.1),
                        );
                        [
                            (at.0 - name_width / 2.0, at.1 - 6.0),
                            (at.0 - name_width / 2.0, at.1 + SMALL + 2.0),
                        ]
                    })
                    .collect();
                (
                    format!(
                        "<line x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\"",
                        start.0, start.1, end.0, end.1
                    ),
                    places,
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
                let middle = (start.1 + end.1) / 2.0;
                let places = [0.0, -SMALL - 4.0, SMALL + 4.0]
                    .into_iter()
                    .map(|dy| (tip + 6.0, middle + 6.0 + dy))
                    .collect();
                (
                    format!(
                        "<path d=\"M {:.1} {:.1} C {bulge:.1} {:.1}, {bulge:.1} {:.1}, {:.1} {:.1}\" \
                         fill=\"none\"",
                        start.0, start.1, start.1, end.1, end.0, end.1
                    ),
                    places,
                )
            }
        }
    }
}

/// The most a ring's centres span from top to bottom, where its boxes
/// can stay apart: what leaves a slide room for its words.
const FLATTENED: f64 = 300.0;

/// The centres of the components going `round` an ellipse of radii
/// `across` and `down`, its top left at the drawing's margin.
fn round_centres(round: &[usize], across: f64, down: f64, widest: f64) -> Vec<(f64, f64)> {
    let n = round.len();
    let centre = (MARGIN + across + widest / 2.0, down + BOX_HEIGHT);
    let mut centres = vec![(0.0, 0.0); n];
    for (k, &c) in round.iter().enumerate() {
        // From the top, clockwise, each reference's ends neighbours where
        // it can be: a ring drawn as a ring.
        let angle = 2.0 * PI * k as f64 / n as f64 - PI / 2.0;
        centres[c] = (
            centre.0 + across * angle.cos(),
            centre.1 + down * angle.sin(),
        );
    }
    centres
}

/// Whether two of the boxes at `centres` (of `widths`) overlap or come
/// closer than a label's height.
fn overlapping(centres: &[(f64, f64)], widths: &[f64]) -> bool {
    let areas: Vec<Area> = centres
        .iter()
        .zip(widths)
        .map(|(&at, &w)| Area::around(at, w + 8.0, BOX_HEIGHT + SMALL + 8.0))
        .collect();
    areas
        .iter()
        .enumerate()
        .any(|(i, a)| areas[i + 1..].iter().any(|b| a.overlaps(b)))
}

/// The order the components go round the circle: from the first in the
/// algorithm's final order, along its references while they lead to a
/// component not yet placed, then on from the next in the final order;
/// so a list or a ring lies along the circle, its edges between
/// neighbours and crossing none.
fn round_order(doc: &Document) -> Vec<usize> {
    let n = doc.texts.len();
    let mut placed = vec![false; n];
    let mut round = Vec::with_capacity(n);
    for &first in doc.order.iter().filter(|&&c| c < n) {
        let mut at = first;
        while !placed[at] {
            placed[at] = true;
            round.push(at);
            match doc
                .graph
                .references()
                .find(|e| e.from == at && e.to < n && !placed[e.to])
            {
                Some(e) => at = e.to,
                None => break,
            }
        }
    }
    round
}

fn label(doc: &Document, c: usize) -> String {
    format!("#{} {}", c + 1, doc.texts[c])
}

/// One stage's panel of the whole picture from `y` down: heading,
/// drawing, legend, words. Returns where the next panel starts.
fn panel(
    out: &mut String,
    doc: &Document,
    layout: &Layout,
    (stage, (colours, palette)): (&Stage, (&[CellColour], &[String])),
    (k, total): (usize, usize),
    mut y: f64,
) -> f64 {
    out.push_str(&rule(layout.width, y));
    y += 10.0;
    for line in wrap(
        &format!("Stage {k} of {total}. {}", stage.title()),
        WRAP - 20,
    ) {
        out.push_str(&text(MARGIN, y + SUBTITLE, SUBTITLE, "bold", &line));
        y += SUBTITLE + 8.0;
    }
    out.push_str(&format!("<g transform=\"translate(0 {y})\">\n"));
    drawing(
        out,
        doc,
        layout,
        &cells_coloured(doc, stage, colours),
        palette,
    );
    out.push_str("</g>\n");
    // The legend: beside the drawing where it fits, else below it.
    let legend = legend_lines(stage, colours);
    let legend_width =
        legend.iter().map(|l| l.chars().count()).max().unwrap_or(0) as f64 * CHAR + 30.0;
    let beside = layout.right + 40.0;
    let at = if beside + legend_width <= layout.width - MARGIN {
        (beside, y + 8.0)
    } else {
        (MARGIN, y + layout.height + 8.0)
    };
    let legend_end = put_legend(out, at, &legend, (colours, palette));
    y = (y + layout.height + 8.0).max(legend_end + 4.0);
    y = put_lines(out, MARGIN, y, &shared_lines(doc)) + 4.0;
    put_lines(out, MARGIN, y, &wrapped(&stage_words(stage), WRAP)) + 12.0
}

/// Each component's cell colour in `stage`.
fn cells_coloured(
    doc: &Document,
    stage: &Stage,
    colours: &[CellColour],
) -> Vec<Option<CellColour>> {
    let mut cell_of = vec![None; doc.texts.len()];
    for (j, cell) in stage.cells.iter().enumerate() {
        for &c in cell {
            if let Some(slot) = cell_of.get_mut(c) {
                *slot = Some(colours[j]);
            }
        }
    }
    cell_of
}

/// The legend's lines, a cell each with its members, the parts of a
/// split marked as the stage's words name them: a round of step 2 says
/// of every new cell that it split off (one of them keeps the old cell's
/// colour), step 3 of the one member it split off from the rest.
fn legend_lines(stage: &Stage, colours: &[CellColour]) -> Vec<String> {
    let step_3 = matches!(stage.kind, StageKind::Individualise { .. });
    stage
        .cells
        .iter()
        .zip(colours)
        .enumerate()
        .map(|(j, (cell, colour))| {
            let members: Vec<String> = cell.iter().map(|&c| format!("#{}", c + 1)).collect();
            let note = match (colour.new, colour.split, step_3) {
                (true, _, _) | (_, true, false) => " (split off)",
                (_, true, true) => " (the rest)",
                _ => "",
            };
            format!("cell {}{note}: {}", j + 1, members.join(", "))
        })
        .collect()
}

/// The legend from `(x, y)` down, a swatch of each cell's colour before
/// its line; where the next line would go.
fn put_legend(
    out: &mut String,
    (x, mut y): (f64, f64),
    legend: &[String],
    (colours, palette): (&[CellColour], &[String]),
) -> f64 {
    for (line, colour) in legend.iter().zip(colours) {
        out.push_str(&format!(
            "<rect x=\"{x:.1}\" y=\"{:.1}\" width=\"20\" height=\"18\" fill=\"{}\" {}/>\n",
            y + 3.0,
            palette[colour.colour],
            outline(*colour)
        ));
        out.push_str(&text(x + 28.0, y + FONT, FONT, "normal", line));
        y += LINE;
    }
    y
}

/// What a stage did, in sentences: its outcome and the reasons.
fn stage_words(stage: &Stage) -> Vec<String> {
    let mark = stage.mark().map(|m| format!("{m} ")).unwrap_or_default();
    if stage.tables.is_empty() && !stage.sentences.is_empty() {
        stage
            .sentences
            .iter()
            .map(|s| format!("{mark}{s}"))
            .collect()
    } else {
        let mut words = vec![stage.outcome()];
        words.extend(stage.sentences.iter().map(|s| format!("• {s}")));
        words
    }
}

/// The state's graph: an arrow per reference, a box per component filled
/// with its cell's colour.
fn drawing(
    out: &mut String,
    doc: &Document,
    layout: &Layout,
    cell_of: &[Option<CellColour>],
    palette: &[String],
) {
    let graph = &doc.graph;
    // The boxes, and each label placed so far: a label goes where it
    // overlaps none of them.
    let mut taken: Vec<Area> = layout
        .centres
        .iter()
        .zip(&layout.widths)
        .map(|(&(x, y), &w)| Area::around((x, y), w, BOX_HEIGHT))
        .collect();
    let mut lines = String::new();
    let mut labels = String::new();
    for e in graph.references() {
        let name = graph.label(e);
        let (shape, places) = layout.reference(e.from, e.to, &name);
        lines.push_str(&format!(
            "{shape} stroke=\"#333333\" stroke-width=\"1.5\" marker-end=\"url(#arrow)\"/>\n"
        ));
        let width = name.chars().count() as f64 * SMALL_CHAR;
        let area = |(x, y): (f64, f64)| Area {
            left: x,
            top: y - SMALL,
            right: x + width,
            bottom: y + 4.0,
        };
        let (x, y) = places
            .iter()
            .copied()
            .find(|&at| taken.iter().all(|t| !t.overlaps(&area(at))))
            .unwrap_or(places[0]);
        taken.push(area((x, y)));
        labels.push_str(&haloed(x, y, SMALL, &name));
    }
    // Lines under boxes, labels over both.
    out.push_str(&lines);
    for (c, &(x, y)) in layout.centres.iter().enumerate() {
        let w = layout.widths[c];
        let fill = cell_of[c].map_or(NO_CELL, |cell| palette[cell.colour].as_str());
        let stroke = cell_of[c].map_or_else(|| "stroke=\"#333333\"".to_string(), outline);
        out.push_str(&format!(
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{w:.1}\" height=\"{BOX_HEIGHT}\" rx=\"5\" \
             fill=\"{fill}\" {stroke}/>\n",
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
    out.push_str(&labels);
}

/// A box's outline: thick for a cell that split off in this stage, thick
/// and dashed for what is left of the cell it split from, thin else.
fn outline(cell: CellColour) -> String {
    match (cell.new, cell.split) {
        (true, _) => "stroke=\"#000000\" stroke-width=\"4\"".to_string(),
        (_, true) => "stroke=\"#000000\" stroke-width=\"3\" stroke-dasharray=\"8 5\"".to_string(),
        _ => "stroke=\"#333333\"".to_string(),
    }
}

/// A rectangle of the picture, to keep labels apart.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Area {
    left: f64,
    top: f64,
    right: f64,
    bottom: f64,
}

impl Area {
    fn around((x, y): (f64, f64), width: f64, height: f64) -> Area {
        Area {
            left: x - width / 2.0,
            top: y - height / 2.0,
            right: x + width / 2.0,
            bottom: y + height / 2.0,
        }
    }

    fn overlaps(&self, other: &Area) -> bool {
        self.left < other.right
            && other.left < self.right
            && self.top < other.bottom
            && other.top < self.bottom
    }
}

/// Text over a white halo, readable where it crosses a line.
fn haloed(x: f64, y: f64, size: f64, content: &str) -> String {
    format!(
        "<text x=\"{x:.1}\" y=\"{y:.1}\" font-size=\"{size}\" stroke=\"#ffffff\" \
         stroke-width=\"5\" stroke-linejoin=\"round\" paint-order=\"stroke\" \
         xml:space=\"preserve\">{}</text>\n",
        escape(content)
    )
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
    y += 10.0;
    out.push_str(&text(
        MARGIN,
        y + SUBTITLE,
        SUBTITLE,
        "bold",
        "The orderings and the permutation",
    ));
    y += SUBTITLE + 10.0;
    let mut lines = wrap(&format!("{}.", doc.step3()), WRAP);
    let order: Vec<String> = doc.order.iter().map(|&c| label(doc, c)).collect();
    lines.extend(wrap(&format!("order: {}", order.join(", ")), WRAP));
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
    put_lines(out, MARGIN, y, &lines)
}

/// Step 3 by hand, where it was made, from `y` down: what each split
/// split off both ways, the two representatives and the permutation
/// between them.
fn by_hand(out: &mut String, doc: &Document, width: f64, mut y: f64) -> f64 {
    if doc.by_hand.is_empty() {
        return y;
    }
    out.push_str(&rule(width, y));
    y += 10.0;
    out.push_str(&text(MARGIN, y + SUBTITLE, SUBTITLE, "bold", BY_HAND));
    y += SUBTITLE + 10.0;
    put_lines(out, MARGIN, y, &doc.by_hand)
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
