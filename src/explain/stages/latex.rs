//! A [`Document`] as LaTeX: a complete article that compiles as it is
//! with pdflatex and the packages of TeX Live's latex-base and
//! latex-recommended collections (`amssymb`, `booktabs`, `graphicx`),
//! its stages between two comment lines so they can be copied into
//! slides or a handout. Component states are typewriter text (they are
//! CSP); an n-value table's column heads stand upright over narrow
//! columns, and a table wider than the page is scaled down to fit it
//! (`\fitwidth`, defined in the preamble with graphicx alone).

use super::{BY_HAND, COLUMNS_EXPLAINED, Document, PERMUTATION_EXPLAINED, Shown, Stage};
use crate::symmetry::rep::NValue;

/// The preamble every export shares: the document class, then packages
/// from TeX Live's latex-base and latex-recommended alone (beamer itself
/// needs pgf besides), and
/// `\fitwidth`, a box scaled down to the line when it is wider.
fn preamble(class: &str, format: &str) -> String {
    // beamer draws with pgf, which TeX Live keeps in its pictures
    // collection (Debian's texlive-pictures).
    let beside = if class == "beamer" {
        " (beamer also needs pgf, from TeX Live's pictures collection)"
    } else {
        ""
    };
    // Slides are 16:9. The fonts are Computer Modern's in TeX's own
    // encoding, whose vector outlines latex-base carries (the T1
    // encoding's are bitmaps without cm-super or lmodern), each glyph
    // mapped to Unicode so that text copied from the PDF keeps its
    // ligatures (an item's bullet too, which would otherwise come from
    // another encoding's bitmaps). A table too wide for the line is
    // scaled to it, on a
    // line of its own below a little space.
    let options = if class == "beamer" {
        "[aspectratio=169]"
    } else {
        ""
    };
    format!(
        "% The representative algorithm, stage by stage (symcsp rep --stages --format {format})\n\
         % Compiles with pdflatex and TeX Live's latex-base and latex-recommended packages{beside}.\n\
         \\ifdefined\\pdfgentounicode\\input{{glyphtounicode}}\\pdfgentounicode=1\\fi\n\
         \\documentclass{options}{{{class}}}\n\
         \\usepackage[utf8]{{inputenc}}\n\
         \\usepackage{{amssymb,booktabs,graphicx}}\n\
         \\def\\labelitemi{{$\\bullet$}}\n\
         \\newsavebox{{\\widebox}}\n\
         \\newcommand{{\\fitwidth}}[1]{{\\par\\smallskip\\noindent\\sbox{{\\widebox}}{{#1}}\
         \\ifdim\\wd\\widebox>\\linewidth\\resizebox{{\\linewidth}}{{!}}{{\\usebox{{\\widebox}}}}\
         \\else\\usebox{{\\widebox}}\\fi\\par}}\n"
    )
}

/// The whole document: an article, its stages between two comment lines.
pub fn latex(doc: &Document, shown: Shown) -> String {
    let mut out = preamble("article", "latex");
    out.push_str(
        "\\usepackage[margin=2cm]{geometry}\n\
         \\begin{document}\n\
         % ---- the stages: from here ----\n\
         \\section*{The representative algorithm, stage by stage}\n\n",
    );
    out.push_str(&heading(doc));
    out.push_str("\\subsection*{The state and its representative}\n\n");
    out.push_str(&state_table(doc));
    let total = doc.stages.len();
    for (k, stage) in doc.stages.iter().enumerate() {
        if !shown.includes(k) {
            continue;
        }
        out.push_str(&format!(
            "\n\\subsection*{{Stage {} of {total}. {}}}\n\n",
            k + 1,
            escape(&stage.title())
        ));
        out.push_str(&tables(doc, stage, None));
        out.push_str(&outcome(doc, stage));
    }
    if shown.closes() {
        out.push_str("\n\\subsection*{The orderings and the permutation}\n\n");
        out.push_str(&closing(doc));
    }
    if shown.by_hand() && !doc.by_hand.is_empty() {
        out.push_str(&format!("\n\\subsection*{{{BY_HAND}}}\n\n{}", by_hand(doc)));
    }
    out.push_str(DOCUMENT_END);
    out
}

/// The most n-value columns a beamer frame's table holds: wider tables
/// are folded into several, each with the cell and component columns,
/// between two variables where they can be ([`column_parts`]).
const FRAME_COLUMNS: usize = 13;

/// Slides: a beamer frame per stage, after a frame with the heading and
/// the state beside its representative, and before one with the
/// orderings and the permutation. A round of step 2 takes two frames:
/// its n-value tables (folded to fit), then what split and the cells
/// after it. One slide (`shown`) gives its frames alone: a stage's, the
/// orderings' ([`Shown::Closing`]) or step 3 by hand's.
pub fn beamer(doc: &Document, shown: Shown) -> String {
    let mut out = preamble("beamer", "beamer");
    out.push_str(
        "\\setbeamertemplate{navigation symbols}{}\n\
         \\setbeamertemplate{frametitle continuation}{}\n\
         \\begin{document}\n",
    );
    if shown == Shown::All {
        out.push_str(
            "\\begin{frame}[allowframebreaks]{The representative algorithm, stage by stage}\n\
             \\small\n",
        );
        out.push_str(&heading(doc));
        out.push_str("\\end{frame}\n\n");
        out.push_str(
            "\\begin{frame}[allowframebreaks]{The state and its representative}\n\\small\n",
        );
        out.push_str(&state_table(doc));
        out.push_str("\\end{frame}\n\n");
    }
    let total = doc.stages.len();
    for (k, stage) in doc.stages.iter().enumerate() {
        if !shown.includes(k) {
            continue;
        }
        let title = format!("Stage {} of {total}", k + 1);
        let heading = format!("\\textbf{{{}}}\n\n", escape(&stage.title()));
        if stage.tables.is_empty() {
            out.push_str(&frame(&title, &(heading + &outcome(doc, stage))));
        } else {
            out.push_str(&frame(
                &title,
                // Smaller still: the tables' upright heads are tall.
                &(heading + "\\scriptsize\n" + &tables(doc, stage, Some(FRAME_COLUMNS))),
            ));
            out.push_str(&frame(&format!("{title}, continued"), &outcome(doc, stage)));
        }
    }
    if shown.closes() {
        out.push_str(&frame("The orderings and the permutation", &closing(doc)));
    }
    if shown.by_hand() && !doc.by_hand.is_empty() {
        out.push_str(&frame(BY_HAND, &format!("\\scriptsize\n{}", by_hand(doc))));
    }
    out.push_str("\\end{document}\n");
    out
}

/// A beamer frame titled `title` holding `body` in small type; one that
/// still runs long goes on on a next page rather than off the bottom.
fn frame(title: &str, body: &str) -> String {
    format!(
        "\\begin{{frame}}[allowframebreaks]{{{}}}\n\\footnotesize\n{body}\\end{{frame}}\n\n",
        escape(title)
    )
}

/// The heading's lines and the cell sizes, stage by stage.
fn heading(doc: &Document) -> String {
    let mut out = String::from("\\fitwidth{\\begin{tabular}{@{}ll@{}}\n");
    for (label, text) in &doc.heading {
        out.push_str(&format!("{} & {} \\\\\n", escape(label), escape(text)));
    }
    out.push_str("\\end{tabular}}\n\n");
    out.push_str(&format!(
        "\\textbf{{Cell sizes, stage by stage:}} {}\n\n",
        escape(&doc.summary())
    ));
    out
}

/// Each component of the state beside its image in the representative.
fn state_table(doc: &Document) -> String {
    let mut out = table_start("@{}rl@{\\quad}rl@{}");
    out.push_str("\\# & state & & representative \\\\\n\\midrule\n");
    for (c, text) in doc.texts.iter().enumerate() {
        let image = doc.alpha[c];
        out.push_str(&format!(
            "{} & {} & $\\mapsto$ {} & {} \\\\\n",
            c + 1,
            tt(text),
            image + 1,
            tt(&doc.representative[image])
        ));
    }
    out.push_str(TABLE_END);
    out
}

/// What step 3 did, the order, the orderings and the permutation.
fn closing(doc: &Document) -> String {
    let mut out = format!("{}.\n\n", escape(&doc.step3()));
    let order: Vec<String> = doc.order.iter().map(|&c| component(doc, c)).collect();
    out.push_str(&format!(
        "Order of the components: {}.\n\n",
        order.join(", ")
    ));
    out.push_str(&table_start("@{}lll@{}"));
    out.push_str("type & ordering & appearing nowhere (any order) \\\\\n\\midrule\n");
    for t in &doc.orderings {
        out.push_str(&format!(
            "{} & {} & {} \\\\\n",
            escape(&t.ty),
            escape(&t.appeared.join(", ")),
            escape(&t.nowhere.join(", "))
        ));
    }
    out.push_str(TABLE_END);
    out.push_str(&format!("\n{}\n\n", escape(PERMUTATION_EXPLAINED)));
    out.push_str("\\begin{itemize}\n");
    if doc.permutation.is_empty() {
        out.push_str("\\item the identity: the state is its own representative\n");
    }
    for line in &doc.permutation {
        out.push_str(&format!("\\item {}\n", escape(line)));
    }
    out.push_str(&format!(
        "\\item components ($\\alpha$): {}\n\\end{{itemize}}\n\n",
        escape(&doc.alpha_text())
    ));
    out.push_str(&format!("Unique: {}\n", escape(&doc.unique)));
    out
}

/// Step 3 by hand, when it was made so: its lines in typewriter type,
/// spaces kept so the columns stay aligned.
fn by_hand(doc: &Document) -> String {
    let lines: Vec<String> = doc
        .by_hand
        .iter()
        .map(|line| match line.is_empty() {
            true => "\\noalign{\\medskip}".to_string(),
            false => format!("\\texttt{{{}}}\\\\", escape(line).replace(' ', "~")),
        })
        .collect();
    // A table of one column, scaled to the line where a line is longer.
    format!(
        "\\fitwidth{{\\begin{{tabular}}{{@{{}}l@{{}}}}\n{}\n\\end{{tabular}}}}\n",
        lines.join("\n")
    )
}

/// The end of the stages and of the document.
const DOCUMENT_END: &str = "% ---- the stages: to here ----\n\\end{document}\n";

/// The end of a table [`table_start`] began.
const TABLE_END: &str = "\\bottomrule\n\\end{tabular}}\n";

/// A booktabs table with `columns`, scaled down if wider than the line.
fn table_start(columns: &str) -> String {
    format!("\\fitwidth{{\\begin{{tabular}}{{{columns}}}\n\\toprule\n")
}

/// A stage's n-value tables (none but in step 2); with `fold`, a table
/// of more columns is folded into tables of at most that many.
fn tables(doc: &Document, stage: &Stage, fold: Option<usize>) -> String {
    let mut out = String::new();
    // The height the tables take on the frame's page so far, in points.
    let mut page = 0.0;
    if !stage.tables.is_empty() {
        out.push_str(&format!("{}\n\n", escape(COLUMNS_EXPLAINED)));
    }
    for run in stage.table_runs() {
        let widths: Vec<usize> = run[0].heads.iter().map(Vec::len).collect();
        let rows: Vec<(usize, &NValue)> = run
            .iter()
            .flat_map(|t| t.rows.iter().map(move |r| (t.cell, r)))
            .collect();
        let columns: usize = widths.iter().sum();
        if columns == 0 {
            out.push_str(&table_start("@{}rll@{}"));
            out.push_str("cell & component & n-value \\\\\n\\midrule\n");
            for (cell, row) in rows {
                out.push_str(&format!(
                    "{} & {} & $\\langle\\rangle$ (no distinguished value) \\\\\n",
                    cell + 1,
                    component(doc, row.component)
                ));
            }
            out.push_str(TABLE_END);
            out.push('\n');
            continue;
        }
        // Each column's group (one per variable), for the bars between
        // them, as the paper's semicolons.
        let group_of: Vec<usize> = widths
            .iter()
            .enumerate()
            .flat_map(|(g, &n)| std::iter::repeat_n(g, n))
            .collect();
        let heads: Vec<String> = run[0]
            .heads
            .iter()
            .flatten()
            .map(|h| format!("\\rotatebox{{90}}{{{}}}", tt(h)))
            .collect();
        // How tall each upright head stands, in characters.
        let head_lengths: Vec<usize> = run[0]
            .heads
            .iter()
            .flatten()
            .map(|h| h.chars().count())
            .collect();
        let counts: Vec<Vec<String>> = rows
            .iter()
            .map(|(_, row)| row.groups.iter().flatten().map(u32::to_string).collect())
            .collect();
        for part in column_parts(&widths, fold.unwrap_or(columns)) {
            // On slides, a table that would run off the page starts the
            // next one (beamer's own breaks let a page overflow).
            let tallest = head_lengths[part.clone()]
                .iter()
                .copied()
                .max()
                .unwrap_or(0);
            let height = table_height(tallest, rows.len());
            if fold.is_some() && page > 0.0 && page + height > FRAME_ROOM {
                out.push_str("\\framebreak\n\n");
                page = 0.0;
            }
            page += height;
            let mut spec = String::from("@{}rl");
            for c in part.clone() {
                if c > part.start && group_of[c] != group_of[c - 1] {
                    spec.push('|');
                }
                spec.push('r');
            }
            spec.push_str("@{}");
            out.push_str(&table_start(&spec));
            out.push_str(&format!(
                "cell & component & {} \\\\\n\\midrule\n",
                heads[part.clone()].join(" & ")
            ));
            for ((cell, row), counts) in rows.iter().zip(&counts) {
                out.push_str(&format!(
                    "{} & {} & {} \\\\\n",
                    cell + 1,
                    component(doc, row.component),
                    counts[part.clone()].join(" & ")
                ));
            }
            out.push_str(TABLE_END);
            out.push('\n');
        }
    }
    out
}

/// What a stage did in words (what split, and why) and the cells after
/// it. The reasons number the cells as they were before the stage.
fn outcome(doc: &Document, stage: &Stage) -> String {
    let mut out = String::new();
    let mark = stage.mark().map(|m| format!("{} ", escape(&m.to_string())));
    if stage.tables.is_empty() && !stage.sentences.is_empty() {
        for sentence in &stage.sentences {
            out.push_str(&format!(
                "{}{}\n\n",
                mark.as_deref().unwrap_or(""),
                escape(sentence)
            ));
        }
    } else {
        out.push_str(&format!("{}\n\n", escape(&stage.outcome())));
        if !stage.sentences.is_empty() {
            out.push_str("\\begin{itemize}\n");
            for sentence in &stage.sentences {
                out.push_str(&format!("\\item {}\n", escape(sentence)));
            }
            out.push_str("\\end{itemize}\n\n");
        }
    }
    // The members wrap in their column rather than the table shrinking
    // to fit one long line.
    out.push_str(
        "\\begin{tabular}{@{}rp{0.85\\linewidth}@{}}\n\\toprule\ncell & components \\\\\n\\midrule\n",
    );
    for (j, cell) in stage.cells.iter().enumerate() {
        let members: Vec<String> = cell.iter().map(|&c| component(doc, c)).collect();
        out.push_str(&format!("{} & {} \\\\\n", j + 1, members.join(", ")));
    }
    out.push_str("\\bottomrule\n\\end{tabular}\n");
    out
}

/// The room a slide's page gives its tables, in points: a beamer frame's
/// text height less its title and the line explaining the columns.
const FRAME_ROOM: f64 = 180.0;

/// About how tall an n-value table is in a slide's small type, in
/// points: its upright heads (`tallest` characters), rules and `rows`.
fn table_height(tallest: usize, rows: usize) -> f64 {
    3.8 * tallest as f64 + 12.0 + 9.0 * rows as f64
}

/// The n-value columns, grouped by variable with `widths` columns each,
/// in parts of at most `most`: whole variables together where they fit,
/// a variable wider than `most` split into parts as even as can be (so
/// no part holds one column alone when it need not).
fn column_parts(widths: &[usize], most: usize) -> Vec<std::ops::Range<usize>> {
    let most = most.max(1);
    let mut parts: Vec<std::ops::Range<usize>> = Vec::new();
    let mut start = 0;
    for &width in widths.iter().filter(|&&w| w > 0) {
        let end = start + width;
        match parts.last_mut() {
            Some(last) if last.end == start && end - last.start <= most => last.end = end,
            _ if width <= most => parts.push(start..end),
            _ => {
                let pieces = width.div_ceil(most);
                let mut at = start;
                for k in 0..pieces {
                    let size = width / pieces + usize::from(k < width % pieces);
                    parts.push(at..at + size);
                    at += size;
                }
            }
        }
        start = end;
    }
    parts
}

/// `\#3 \texttt{FreeNode(N2)}`: a component by number and state.
fn component(doc: &Document, c: usize) -> String {
    format!("\\#{} {}", c + 1, tt(&doc.texts[c]))
}

/// `text` in typewriter type.
fn tt(text: &str) -> String {
    format!("\\texttt{{{}}}", escape(text))
}

/// `text` with LaTeX's special characters escaped and the symbols the
/// explanations use written as LaTeX writes them (pdflatex's `utf8`
/// knows none of them); any other character is left as it is.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            // `--` would be an en dash (`--symmetry`).
            '-' if chars.peek() == Some(&'-') => out.push_str("-{}"),
            '\\' => out.push_str("\\textbackslash{}"),
            '{' | '}' | '$' | '&' | '#' | '_' | '%' => {
                out.push('\\');
                out.push(c);
            }
            '^' => out.push_str("\\^{}"),
            '~' => out.push_str("\\~{}"),
            '→' => out.push_str("$\\to$"),
            '↦' => out.push_str("$\\mapsto$"),
            '⟨' => out.push_str("$\\langle$"),
            '⟩' => out.push_str("$\\rangle$"),
            'α' => out.push_str("$\\alpha$"),
            'π' => out.push_str("$\\pi$"),
            'τ' => out.push_str("$\\tau$"),
            '·' => out.push_str("$\\cdot$"),
            '≠' => out.push_str("$\\neq$"),
            '✓' => out.push_str("$\\checkmark$"),
            '✗' => out.push_str("$\\times$"),
            '—' => out.push_str("---"),
            '–' => out.push_str("--"),
            '…' => out.push_str("\\ldots{}"),
            // TeX's own encoding (see the preamble) draws these as
            // other letters outside mathematics.
            '<' => out.push_str("$<$"),
            '>' => out.push_str("$>$"),
            '|' => out.push_str("$|$"),
            '‹' => out.push_str("$\\langle$"),
            '›' => out.push_str("$\\rangle$"),
            '’' => out.push('\''),
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_fold_between_variables_and_split_a_wide_one_evenly() {
        // Example 37's round: me (9), datum (4), next (9) in 13 a table.
        assert_eq!(column_parts(&[9, 4, 9], 13), [0..13, 13..22]);
        // Narrower: each wide variable in even halves, the last half of
        // one sharing a table with the next variable where they fit.
        assert_eq!(column_parts(&[9, 4, 9], 8), [0..5, 5..13, 13..18, 18..22]);
        assert_eq!(column_parts(&[2, 2, 2], 5), [0..4, 4..6]);
        assert_eq!(column_parts(&[0, 3], 2), [0..2, 2..3]);
        assert_eq!(column_parts(&[], 4), Vec::<std::ops::Range<usize>>::new());
    }

    #[test]
    fn specials_and_symbols_are_written_as_latex_writes_them() {
        assert_eq!(
            escape("a_b & {c} #1 50% ~x^2 \\"),
            "a\\_b \\& \\{c\\} \\#1 50\\% \\~{}x\\^{}2 \\textbackslash{}"
        );
        assert_eq!(
            escape("N0 ↦ N2, me→c2.next"),
            "N0 $\\mapsto$ N2, me$\\to$c2.next"
        );
        assert_eq!(tt("⟨1, 0⟩"), "\\texttt{$\\langle$1, 0$\\rangle$}");
        assert_eq!(escape("from --symmetry"), "from -{}-symmetry");
    }
}
