//! A [`Document`] as LaTeX: a complete article that compiles as it is
//! with pdflatex and the packages of TeX Live's latex-base and
//! latex-recommended collections (`amssymb`, `booktabs`, `graphicx`),
//! its stages between two comment lines so they can be copied into
//! slides or a handout. Component states are typewriter text (they are
//! CSP); an n-value table's column heads stand upright over narrow
//! columns, and a table wider than the page is scaled down to fit it
//! (`\fitwidth`, defined in the preamble with graphicx alone).

use super::{COLUMNS_EXPLAINED, Document, PERMUTATION_EXPLAINED, Shown, Stage};
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
    format!(
        "% The representative algorithm, stage by stage (symcsp rep --stages --format {format})\n\
         % Compiles with pdflatex and TeX Live's latex-base and latex-recommended packages{beside}.\n\
         \\documentclass{{{class}}}\n\
         \\usepackage[T1]{{fontenc}}\n\
         \\usepackage[utf8]{{inputenc}}\n\
         \\usepackage{{amssymb,booktabs,graphicx}}\n\
         \\newsavebox{{\\widebox}}\n\
         \\newcommand{{\\fitwidth}}[1]{{\\sbox{{\\widebox}}{{#1}}\\ifdim\\wd\\widebox>\\linewidth\
         \\resizebox{{\\linewidth}}{{!}}{{\\usebox{{\\widebox}}}}\\else\\usebox{{\\widebox}}\\fi}}\n"
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
        out.push_str(&stage_body(doc, stage, None));
    }
    if shown.closes(doc) {
        out.push_str("\n\\subsection*{The orderings and the permutation}\n\n");
        out.push_str(&closing(doc));
    }
    out.push_str(DOCUMENT_END);
    out
}

/// The most n-value columns a beamer frame's table holds: wider tables
/// are folded into several, each with the cell and component columns.
const FRAME_COLUMNS: usize = 8;

/// Slides: a beamer frame per stage (its n-value tables folded to fit,
/// the frame breaking onto more where it runs long), after a frame with
/// the heading and the state beside its representative, and before one
/// with the orderings and the permutation. One stage (`shown`) gives its
/// frame alone (the last with the closing frame).
pub fn beamer(doc: &Document, shown: Shown) -> String {
    let mut out = preamble("beamer", "beamer");
    out.push_str(
        "\\setbeamertemplate{navigation symbols}{}\n\
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
        out.push_str(&format!(
            "\\begin{{frame}}[allowframebreaks]{{Stage {} of {total}}}\n\\small\n\
             \\textbf{{{}}}\n\n",
            k + 1,
            escape(&stage.title())
        ));
        out.push_str(&stage_body(doc, stage, Some(FRAME_COLUMNS)));
        out.push_str("\\end{frame}\n\n");
    }
    if shown.closes(doc) {
        out.push_str(
            "\\begin{frame}[allowframebreaks]{The orderings and the permutation}\n\\small\n",
        );
        out.push_str(&closing(doc));
        out.push_str("\\end{frame}\n");
    }
    out.push_str("\\end{document}\n");
    out
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

/// The end of the stages and of the document.
const DOCUMENT_END: &str = "% ---- the stages: to here ----\n\\end{document}\n";

/// The end of a table [`table_start`] began.
const TABLE_END: &str = "\\bottomrule\n\\end{tabular}}\n";

/// A booktabs table with `columns`, scaled down if wider than the line.
fn table_start(columns: &str) -> String {
    format!("\\fitwidth{{\\begin{{tabular}}{{{columns}}}\n\\toprule\n")
}

/// A stage's tables, sentences and partition; with `fold`, an n-value
/// table of more columns is folded into tables of at most that many.
fn stage_body(doc: &Document, stage: &Stage, fold: Option<usize>) -> String {
    let mut out = String::new();
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
        let counts: Vec<Vec<String>> = rows
            .iter()
            .map(|(_, row)| row.groups.iter().flatten().map(u32::to_string).collect())
            .collect();
        let step = fold.unwrap_or(columns).max(1);
        for start in (0..columns).step_by(step) {
            let part = start..(start + step).min(columns);
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
    out.push_str(&table_start("@{}rl@{}"));
    out.push_str("cell & components \\\\\n\\midrule\n");
    for (j, cell) in stage.cells.iter().enumerate() {
        let members: Vec<String> = cell.iter().map(|&c| component(doc, c)).collect();
        out.push_str(&format!("{} & {} \\\\\n", j + 1, members.join(", ")));
    }
    out.push_str(TABLE_END);
    out
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
            '‹' => out.push_str("\\guilsinglleft{}"),
            '›' => out.push_str("\\guilsinglright{}"),
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
