//! What the editor asks of a loaded document's names: hover, go to
//! definition, references, the document's symbols, rename and
//! completion. All of it reads the resolver's [`NameIndex`] and the type
//! checker's types, as the document last loaded.

use std::collections::HashMap;

use lsp_types::{
    CompletionItem, CompletionItemKind, DocumentSymbol, Hover, HoverContents, Location,
    MarkupContent, MarkupKind, Position, SymbolKind, Uri,
};

use crate::budget::Meter;
use crate::eval::{Evaluator, Value};
use crate::script::index::{Occurrence, Symbol};
use crate::script::ir::GlobalKind;
use crate::script::{Named, Script};
use crate::syntax::Span;
use crate::types::Types;

use super::analyse::Analysed;
use super::text::{self, file_range};

/// A loaded document as the features read it.
pub struct Document<'a> {
    pub uri: &'a Uri,
    pub script: &'a Script,
    pub types: Option<&'a mut Types>,
    /// The errors it loaded with (a rename may not add one).
    pub diagnostics: &'a [crate::syntax::Diagnostic],
    /// Hover's facts about processes, worked out once a load.
    process_facts: &'a mut rustc_hash::FxHashMap<crate::script::ir::FuncId, Vec<String>>,
}

impl<'a> Document<'a> {
    /// The document as `analysed`, if its names resolved.
    pub fn of(analysed: &'a mut Analysed) -> Option<Document<'a>> {
        Some(Document {
            uri: &analysed.uri,
            script: analysed.analysis.script.as_ref()?,
            types: analysed.analysis.types.as_mut(),
            diagnostics: &analysed.analysis.diagnostics,
            process_facts: &mut analysed.process_facts,
        })
    }

    /// The source map's position of the editor's `position` in this
    /// document (the root file of its script); `None` past the end of
    /// its line or of the document, where nothing is written.
    fn source_position(&self, position: Position) -> Option<u32> {
        let root = self.script.sources.file(0);
        let offset = text::file_offset(root, position);
        (text::file_position(root, offset) == position).then_some(root.base + offset as u32)
    }

    /// The name under the cursor.
    pub(super) fn occurrence_at(&self, position: Position) -> Option<&'a Occurrence> {
        self.script.index.at(self.source_position(position)?)
    }

    /// Where `span` is, as the editor names it: this document by its
    /// own URI, another file by its path.
    pub(super) fn location(&self, span: Span) -> Option<Location> {
        text::location(self.uri, &self.script.sources, span)
    }

    /// The name as written at `span`, without its module prefix.
    pub(super) fn written(&self, span: Span) -> &'a str {
        let text = self.script.sources.snippet(span);
        text.rsplit("::").next().unwrap_or(text)
    }

    /// `Phil :: (Int) -> Proc`, a datatype with its constructors, a
    /// channel with its fields, or where a variable is bound.
    pub fn hover(&mut self, position: Position) -> Option<Hover> {
        let occurrence = *self.occurrence_at(position)?;
        let script = self.script;
        let name = self.written(occurrence.span).to_string();
        let mut lines = Vec::new();
        match occurrence.symbol.named() {
            Some(named) => {
                let unknown = format!(
                    "{name}: its type is not known while the type errors in its \
                     definitions, or in those it uses, stand"
                );
                let known = |types: &mut Types, named| types.known_type_of(script, named);
                match (named, self.types.as_deref_mut()) {
                    (Named::Global(g), Some(types)) => match &script.globals[g.index()].kind {
                        GlobalKind::DataType(d) => {
                            lines.push(format!("datatype {name}"));
                            for &c in &script.datatypes[d.index()].ctors {
                                let ctor = &script.ctors[c.index()];
                                let ty = known(types, Named::Ctor(c));
                                let ty = ty.as_deref().unwrap_or("? (not known)");
                                lines.push(format!("  {} :: {ty}", ctor.name));
                            }
                        }
                        GlobalKind::NameType(_) => lines.push(format!("nametype {name}")),
                        GlobalKind::SubType(_) => lines.push(format!("subtype {name}")),
                        _ => match known(types, named) {
                            None => lines.push(unknown),
                            Some(ty) => {
                                lines.push(format!("{name} :: {ty}"));
                                // Only a script that type-checks is evaluated.
                                if let GlobalKind::Definition(func) = script.globals[g.index()].kind
                                    && types.complete()
                                    && types.process_arity(g) == Some(0)
                                {
                                    let facts = self.process_facts.entry(func).or_insert_with(|| {
                                        super::process_facts::process_facts(script, func)
                                    });
                                    lines.extend(facts.iter().cloned());
                                }
                            }
                        },
                    },
                    (Named::Channel(c), Some(types)) => {
                        let fields = script.channels[c.index()].fields.len();
                        match known(types, named) {
                            Some(ty) => lines.push(format!("channel {name} :: {ty}")),
                            None => lines.push(unknown),
                        }
                        lines.push(match fields {
                            0 => "no fields: a single event".to_string(),
                            1 => "one field".to_string(),
                            n => format!("{n} fields"),
                        });
                    }
                    (Named::Ctor(c), Some(types)) => {
                        let datatype = &script.datatypes[script.ctors[c.index()].datatype.index()];
                        lines.push(known(types, named).map_or(unknown, |ty| format!("{name} :: {ty}")));
                        lines.push(format!("a constructor of datatype {}", datatype.name));
                    }
                    (_, None) => lines.push(format!(
                        "{name}: its type is known once the script's names resolve and its types are checked"
                    )),
                }
            }
            None => {
                let Symbol::Local(id) = occurrence.symbol else {
                    return None;
                };
                let local = script.index.local(id)?;
                let at = script.sources.location(local.bound_at);
                if let Some(ty) = self
                    .types
                    .as_deref_mut()
                    .and_then(|types| types.variable_type(script, id))
                {
                    lines.push(format!("{} :: {ty}", local.name));
                }
                lines.push(match local.uninstantiated {
                    false => format!("{} — a variable bound at line {}", local.name, at.line),
                    true => format!(
                        "{} — declared at line {} in a module never instantiated (nothing \
                         evaluates it, so it has no type to show)",
                        local.name, at.line
                    ),
                });
            }
        }
        if let Some(declared) = script.index.declaration(occurrence.symbol)
            && !occurrence.declaration
            && let Some(location) = self.location(declared)
        {
            let at = script.sources.location(declared);
            let file = match location.uri == *self.uri {
                true => String::new(),
                false => format!("{} ", at.file),
            };
            lines.push(format!("declared at {file}line {}", at.line));
        }
        let (_, range) = file_range(&script.sources, occurrence.span);
        Some(Hover {
            contents: HoverContents::Markup(MarkupContent {
                kind: MarkupKind::Markdown,
                value: format!("```cspm\n{}\n```", lines.join("\n")),
            }),
            range: Some(range),
        })
    }

    /// Where the name under the cursor is declared; on an `include`
    /// line, the file it includes, at its start.
    pub fn definition(&self, position: Position) -> Option<Location> {
        if let Some(occurrence) = self.occurrence_at(position) {
            return self.location(self.script.index.declaration(occurrence.symbol)?);
        }
        let at = self.source_position(position)?;
        let (_, included) = self.script.sources.files().find(|(_, file)| {
            file.included_from
                .is_some_and(|site| site.start <= at && at <= site.end)
        })?;
        let path = included.path.as_ref()?;
        Some(Location::new(text::path_uri(path), Default::default()))
    }

    /// Every place the name under the cursor is written.
    pub fn references(&self, position: Position, with_declaration: bool) -> Vec<Location> {
        let Some(occurrence) = self.occurrence_at(position) else {
            return Vec::new();
        };
        self.script
            .index
            .occurrences_of(occurrence.symbol)
            .filter(|o| with_declaration || !o.declaration)
            .filter_map(|o| self.location(o.span))
            .collect()
    }

    /// The part of a name's span after its module prefix (`M::x`).
    pub(super) fn last_segment(&self, span: Span) -> Span {
        let text = self.script.sources.snippet(span);
        match text.rfind("::") {
            Some(at) => Span {
                start: span.start + at as u32 + 2,
                end: span.end,
            },
            None => span,
        }
    }

    /// The declarations of this document, each datatype holding its
    /// constructors.
    pub fn symbols(&self) -> Vec<DocumentSymbol> {
        let script = self.script;
        let mut symbols: Vec<DocumentSymbol> = Vec::new();
        let mut datatypes: HashMap<u32, usize> = HashMap::new();
        for o in script.index.occurrences() {
            let Some(named) = o.symbol.named().filter(|_| o.declaration) else {
                continue;
            };
            if script.sources.file_of(o.span) != 0 {
                continue;
            }
            let (kind, detail, parent) = match named {
                Named::Global(g) => match &script.globals[g.index()].kind {
                    GlobalKind::DataType(_) => (SymbolKind::ENUM, "datatype", None),
                    GlobalKind::NameType(_) => (SymbolKind::TYPE_PARAMETER, "nametype", None),
                    GlobalKind::SubType(_) => (SymbolKind::ENUM, "subtype", None),
                    GlobalKind::Builtin(_) => continue,
                    GlobalKind::Definition(f) => match script.function(*f).arity.is_empty() {
                        true => (SymbolKind::CONSTANT, "", None),
                        false => (SymbolKind::FUNCTION, "", None),
                    },
                },
                Named::Ctor(c) => (
                    SymbolKind::ENUM_MEMBER,
                    "constructor",
                    Some(script.ctors[c.index()].datatype.0),
                ),
                Named::Channel(_) => (SymbolKind::EVENT, "channel", None),
            };
            let (_, range) = file_range(&script.sources, o.span);
            #[allow(deprecated)]
            let symbol = DocumentSymbol {
                name: script.sources.snippet(o.span).to_string(),
                detail: (!detail.is_empty()).then(|| detail.to_string()),
                kind,
                tags: None,
                deprecated: None,
                range,
                selection_range: range,
                children: None,
            };
            match parent.and_then(|d| datatypes.get(&d)) {
                Some(&at) => symbols[at]
                    .children
                    .get_or_insert_with(Vec::new)
                    .push(symbol),
                None => {
                    if let Named::Global(g) = named
                        && let GlobalKind::DataType(d) = script.globals[g.index()].kind
                    {
                        datatypes.insert(d.0, symbols.len());
                    }
                    symbols.push(symbol);
                }
            }
        }
        symbols
    }

    /// What may be written at `position` of `current` (the document as
    /// the editor has it now, which may not load): the values of a
    /// channel's next field after `c.`, `c?` or `c!`, else the names in
    /// scope as of the last load.
    pub fn completion(&mut self, current: &str, position: Position) -> Vec<CompletionItem> {
        let offset = text::offset(current, position);
        if let Some(fields) = self.field_values(before_word(current, offset)) {
            return fields;
        }
        self.names_in_scope(offset)
    }

    /// The values of the next field of the channel whose name and
    /// fields end `before` (`c.A.`, `c?x!`), evaluated within a moment.
    fn field_values(&self, before: &str) -> Option<Vec<CompletionItem>> {
        let last = before.chars().last()?;
        if !matches!(last, '.' | '?' | '!') {
            return None;
        }
        // Back over the fields written to the channel's name.
        let written = before[..before.len() - 1]
            .rsplit(|c: char| c.is_whitespace() || "()[]{},=|&;:<>".contains(c))
            .next()?;
        let mut parts = written.split(['.', '?', '!']);
        let channel = parts.next()?;
        let Some(Named::Channel(c)) = self.script.lookup(channel) else {
            return None;
        };
        let field = parts.count();
        let &set = self.script.channels[c.index()].fields.get(field)?;
        let meter = crate::budget::Budget {
            timeout: Some(std::time::Duration::from_millis(200)),
            ..crate::budget::Budget::default()
        }
        .started()
        .meter();
        let values = field_set(self.script, set, meter).unwrap_or_default();
        Some(
            values
                .into_iter()
                .map(|label| CompletionItem {
                    label,
                    kind: Some(CompletionItemKind::VALUE),
                    detail: Some(format!("a value of field {} of {channel}", field + 1)),
                    ..CompletionItem::default()
                })
                .collect(),
        )
    }

    /// The script's names, and the variables bound before `offset` in
    /// the definition around it, each with its type where it is known.
    fn names_in_scope(&mut self, offset: usize) -> Vec<CompletionItem> {
        let script = self.script;
        let at = script.sources.file(0).base + offset as u32;
        let mut items = Vec::new();
        let mut seen = std::collections::HashSet::new();
        // The outermost function around the cursor: its definition.
        let around = script
            .functions
            .iter()
            .filter(|f| {
                f.span.start <= at && at <= f.span.end && script.sources.file_of(f.span) == 0
            })
            .map(|f| f.span)
            .max_by_key(|s| s.end - s.start);
        for o in script.index.occurrences().iter().filter(|o| o.declaration) {
            let (label, kind, detail) = match o.symbol {
                Symbol::Local(id) => {
                    let inside =
                        around.is_some_and(|s| s.start <= o.span.start && o.span.end <= at);
                    let Some(local) = script.index.local(id).filter(|_| inside) else {
                        continue;
                    };
                    let ty = self
                        .types
                        .as_deref_mut()
                        .and_then(|types| types.variable_type(script, id));
                    (
                        local.name.to_string(),
                        CompletionItemKind::VARIABLE,
                        ty.unwrap_or_else(|| "variable".to_string()),
                    )
                }
                Symbol::Top(_) => {
                    let Some(named) = o.symbol.named() else {
                        continue;
                    };
                    let name = script.sources.snippet(o.span).to_string();
                    let (kind, detail) = match named {
                        Named::Channel(_) => (CompletionItemKind::EVENT, "channel"),
                        Named::Ctor(_) => (CompletionItemKind::ENUM_MEMBER, "constructor"),
                        Named::Global(g) => match script.globals[g.index()].kind {
                            GlobalKind::DataType(_) | GlobalKind::SubType(_) => {
                                (CompletionItemKind::ENUM, "datatype")
                            }
                            GlobalKind::NameType(_) => {
                                (CompletionItemKind::TYPE_PARAMETER, "nametype")
                            }
                            _ => (CompletionItemKind::FUNCTION, "definition"),
                        },
                    };
                    let ty = match named {
                        Named::Global(g)
                            if !matches!(
                                script.globals[g.index()].kind,
                                GlobalKind::Definition(_)
                            ) =>
                        {
                            None
                        }
                        _ => self
                            .types
                            .as_deref_mut()
                            .and_then(|types| types.known_type_of(script, named)),
                    };
                    (name, kind, ty.unwrap_or_else(|| detail.to_string()))
                }
            };
            if seen.insert(label.clone()) {
                items.push(CompletionItem {
                    label,
                    kind: Some(kind),
                    detail: Some(detail),
                    ..CompletionItem::default()
                });
            }
        }
        for keyword in KEYWORDS {
            items.push(CompletionItem {
                label: keyword.to_string(),
                kind: Some(CompletionItemKind::KEYWORD),
                ..CompletionItem::default()
            });
        }
        items
    }
}

/// The printed elements of the set constant `set`, if it evaluates to a
/// finite set within `meter`.
fn field_set(script: &Script, set: crate::script::ir::FuncId, meter: Meter) -> Option<Vec<String>> {
    let evaluator = Evaluator::new(script).with_meter(meter);
    let value = evaluator.eval_constant(set).ok()?;
    let Value::Set(members) = &value else {
        return None;
    };
    let span = script.function(set).span;
    let elements = evaluator.elements(members, span).ok()?;
    Some(
        elements
            .iter()
            .take(200)
            .map(|v| evaluator.show(v))
            .collect(),
    )
}

/// The line before the word the cursor is in.
fn before_word(text: &str, offset: usize) -> &str {
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let before = &text[line_start..offset];
    let word_start = before
        .rfind(|c: char| !(c.is_alphanumeric() || c == '_' || c == '\''))
        .map_or(0, |i| {
            i + before[i..].chars().next().map_or(1, char::len_utf8)
        });
    &before[..word_start]
}

/// FDR's assertion options when the cursor at `position` of `text`
/// follows `:[` (whether the script loads or not).
pub fn assertion_options(text: &str, position: Position) -> Option<Vec<CompletionItem>> {
    let before = before_word(text, text::offset(text, position));
    let open = before.rfind(":[")?;
    if before[open..].contains(']') {
        return None;
    }
    Some(
        ASSERTION_OPTIONS
            .iter()
            .map(|&(label, detail)| CompletionItem {
                label: label.to_string(),
                kind: Some(CompletionItemKind::PROPERTY),
                detail: Some(detail.to_string()),
                ..CompletionItem::default()
            })
            .collect(),
    )
}

const ASSERTION_OPTIONS: &[(&str, &str)] = &[
    (
        "deadlock free",
        "no reachable state refuses everything (FD by default)",
    ),
    (
        "deadlock free [F]",
        "deadlock freedom in the failures model",
    ),
    (
        "divergence free",
        "no reachable state can perform τ forever",
    ),
    ("deterministic", "determinism (FD by default)"),
    ("deterministic [F]", "determinism in the failures model"),
    (
        "has trace",
        "the process can perform the trace that follows",
    ),
    ("has trace [T]", "the trace, in the traces model"),
    (
        "symmetric",
        "the script is symmetric in the types that follow",
    ),
    (
        "symmetry reduce",
        "check reduced by symmetry in the types that follow",
    ),
    (
        "tau priority",
        "τ and ✓ take priority over the events that follow",
    ),
    ("partial order reduce", "accepted as FDR accepts it"),
];

const KEYWORDS: &[&str] = &[
    "channel",
    "datatype",
    "nametype",
    "subtype",
    "assert",
    "if",
    "then",
    "else",
    "let",
    "within",
    "module",
    "exports",
    "endmodule",
    "instance",
    "include",
    "transparent",
    "external",
    "STOP",
    "SKIP",
    "CHAOS",
    "DIV",
    "RUN",
    "Events",
    "true",
    "false",
];
