//! A [`Document`] as Markdown with GitHub's tables: a section per stage,
//! each partition and n-value table a table, component states in code
//! spans (they are CSP), ready to paste into a handout or to turn into
//! slides with a Markdown slide tool.

use super::{BY_HAND, COLUMNS_EXPLAINED, Document, PERMUTATION_EXPLAINED, Shown, Stage};

/// The whole document.
pub fn markdown(doc: &Document, shown: Shown) -> String {
    let mut out = String::from("# The representative algorithm, stage by stage\n\n");
    out.push_str("| | |\n|---|---|\n");
    for (label, text) in &doc.heading {
        out.push_str(&format!("| {} | {} |\n", escape(label), escape(text)));
    }
    out.push_str(&format!(
        "\n**Cell sizes, stage by stage:** {}\n\n",
        doc.summary()
    ));
    out.push_str("## The state and its representative\n\n");
    out.push_str("| # | state | ↦ | representative |\n|--:|---|--:|---|\n");
    for (c, text) in doc.texts.iter().enumerate() {
        let image = doc.alpha[c];
        out.push_str(&format!(
            "| {} | {} | {} | {} |\n",
            c + 1,
            code(text),
            image + 1,
            code(&doc.representative[image])
        ));
    }
    let total = doc.stages.len();
    for (k, stage) in doc.stages.iter().enumerate() {
        if !shown.includes(k) {
            continue;
        }
        out.push_str(&format!(
            "\n## Stage {} of {total}. {}\n\n",
            k + 1,
            escape(&stage.title())
        ));
        out.push_str(&stage_body(doc, stage));
    }
    if shown.closes() {
        out.push_str(&closing(doc));
    }
    if shown.by_hand() && !doc.by_hand.is_empty() {
        // Aligned columns: kept as they are.
        out.push_str(&format!(
            "\n## {BY_HAND}\n\n```text\n{}\n```\n",
            doc.by_hand.join("\n").trim_end()
        ));
    }
    out
}

/// The orderings and the permutation.
fn closing(doc: &Document) -> String {
    let mut out = String::from("\n## The orderings and the permutation\n\n");
    out.push_str(&format!("{}.\n\n", escape(&doc.step3())));
    let order: Vec<String> = doc.order.iter().map(|&c| component(doc, c)).collect();
    out.push_str(&format!(
        "Order of the components: {}\n\n",
        order.join(", ")
    ));
    out.push_str("| type | ordering | appearing nowhere (any order) |\n|---|---|---|\n");
    for t in &doc.orderings {
        out.push_str(&format!(
            "| {} | {} | {} |\n",
            escape(&t.ty),
            escape(&t.appeared.join(", ")),
            escape(&t.nowhere.join(", "))
        ));
    }
    out.push_str(&format!("\n{}\n\n", escape(PERMUTATION_EXPLAINED)));
    if doc.permutation.is_empty() {
        out.push_str("- the identity: the state is its own representative\n");
    }
    for line in &doc.permutation {
        out.push_str(&format!("- {}\n", escape(line)));
    }
    out.push_str(&format!("- components (α): {}\n", doc.alpha_text()));
    out.push_str(&format!("\nUnique: {}\n", escape(&doc.unique)));
    out
}

/// A stage's tables, sentences and partition.
fn stage_body(doc: &Document, stage: &Stage) -> String {
    let mut out = String::new();
    if !stage.tables.is_empty() {
        out.push_str(&format!("{}\n\n", escape(COLUMNS_EXPLAINED)));
    }
    for run in stage.table_runs() {
        let heads: Vec<String> = run[0].heads.iter().flatten().map(|h| escape(h)).collect();
        let rows = run
            .iter()
            .flat_map(|t| t.rows.iter().map(move |r| (t.cell, r)));
        if heads.is_empty() {
            out.push_str("| cell | component | n-value |\n|--:|---|---|\n");
            for (cell, row) in rows {
                out.push_str(&format!(
                    "| {} | {} | ⟨⟩ (no distinguished value) |\n",
                    cell + 1,
                    component(doc, row.component)
                ));
            }
        } else {
            out.push_str(&format!("| cell | component | {} |\n", heads.join(" | ")));
            out.push_str(&format!("|--:|---|{}\n", "--:|".repeat(heads.len())));
            for (cell, row) in rows {
                let counts: Vec<String> = row.groups.iter().flatten().map(u32::to_string).collect();
                out.push_str(&format!(
                    "| {} | {} | {} |\n",
                    cell + 1,
                    component(doc, row.component),
                    counts.join(" | ")
                ));
            }
        }
        out.push('\n');
    }
    let mark = stage.mark().map(|m| format!("{m} ")).unwrap_or_default();
    if stage.tables.is_empty() && !stage.sentences.is_empty() {
        for sentence in &stage.sentences {
            out.push_str(&format!("{mark}{}\n\n", escape(sentence)));
        }
    } else {
        out.push_str(&format!("{}\n\n", escape(&stage.outcome())));
        for sentence in &stage.sentences {
            out.push_str(&format!("- {}\n", escape(sentence)));
        }
        if !stage.sentences.is_empty() {
            out.push('\n');
        }
    }
    out.push_str("| cell | components |\n|--:|---|\n");
    for (j, cell) in stage.cells.iter().enumerate() {
        let members: Vec<String> = cell.iter().map(|&c| component(doc, c)).collect();
        out.push_str(&format!("| {} | {} |\n", j + 1, members.join(", ")));
    }
    out
}

/// `#3 `FreeNode(N2)``: a component by number and state.
fn component(doc: &Document, c: usize) -> String {
    format!("#{} {}", c + 1, code(&doc.texts[c]))
}

/// `text` as a code span that survives a table: `|` escaped (GitHub
/// reads it as a cell's end even in code), and fenced by more backticks
/// than it holds in a row.
fn code(text: &str) -> String {
    let text = text.replace('|', "\\|");
    let mut run = 0;
    let mut longest = 0;
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest + 1);
    if longest > 0 {
        format!("{fence} {text} {fence}")
    } else {
        format!("{fence}{text}{fence}")
    }
}

/// `text` with the characters Markdown would read as markup escaped.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '\\' | '`' | '*' | '_' | '<' | '[' | ']' | '|') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csp_survives_tables_and_markup() {
        assert_eq!(code("a -> P [] b -> Q"), "`a -> P [] b -> Q`");
        assert_eq!(code("P |~| Q"), "`P \\|~\\| Q`");
        assert_eq!(code("x `f` y"), "`` x `f` y ``");
        assert_eq!(escape("my_var * <a> [x]"), "my\\_var \\* \\<a> \\[x\\]");
    }
}
