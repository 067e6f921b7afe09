//! Renaming a name everywhere it is written — definitions, uses, type
//! annotations, module members, across included files — and only where
//! the renamed script means what the script meant: the edits are applied
//! to a copy of every file, the copy is loaded again, and every name it
//! mentions must stand for what it stood for, with no new error. A new
//! name that another binding would capture at one of its mentions, or
//! that captures someone else's, is refused in words, as is one that is
//! not a name.

use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;
use std::time::Duration;

use lsp_types::{Position, Range, TextEdit, Uri};

use crate::budget::Budget;
use crate::script::Script;
use crate::script::index::{Occurrence, Symbol};
use crate::syntax::{self, OpenFiles, Span};

use super::navigate::Document;
use super::text::file_range;

/// The longest the renamed copy may take to load.
const RELOAD_TIMEOUT: Duration = Duration::from_secs(10);

impl Document<'_> {
    /// The range of the name under the cursor, if it can be renamed.
    pub fn prepare_rename(&self, position: Position) -> Option<Range> {
        let occurrence = self.occurrence_at(position)?;
        let span = self.last_segment(occurrence.span);
        Some(file_range(&self.script.sources, span).1)
    }

    /// The edits renaming the name under the cursor to `new_name`, in
    /// every file it is written in; an error in words when it cannot be.
    pub fn rename(
        &self,
        position: Position,
        new_name: &str,
    ) -> Result<HashMap<Uri, Vec<TextEdit>>, String> {
        let occurrence = self
            .occurrence_at(position)
            .ok_or("there is no name here to rename")?;
        if !syntax::is_name(new_name) {
            return Err(format!(
                "`{new_name}` is not a CSPM name: a letter, then letters, digits, `_` and \
                 primes, and not a keyword"
            ));
        }
        let old_name = self.written(occurrence.span);
        // A declaration of the script's, or of a module never
        // instantiated (whose instance's would be the script's), may not
        // take a name the script declares.
        let declared = match occurrence.symbol {
            Symbol::Top(_) => true,
            Symbol::Local(id) => self
                .script
                .index
                .local(id)
                .is_some_and(|local| local.uninstantiated),
        };
        if declared
            && new_name != old_name
            && let Some(clash) = self.script.lookup(new_name)
        {
            let span = self
                .script
                .index
                .declaration(clash.into())
                .unwrap_or_default();
            let at = self.script.sources.location(span);
            return Err(format!("`{new_name}` is already declared at {at}"));
        }
        let renamed: Vec<Span> = self
            .script
            .index
            .occurrences_of(occurrence.symbol)
            .map(|o| self.last_segment(o.span))
            .filter(|&span| !self.script.is_generated(span))
            .collect();
        keeps_meaning(
            self.script,
            self.diagnostics,
            &renamed,
            (old_name, new_name),
        )?;
        let mut edits: HashMap<Uri, Vec<TextEdit>> = HashMap::new();
        for span in renamed {
            let Some(location) = self.location(span) else {
                continue;
            };
            edits
                .entry(location.uri)
                .or_default()
                .push(TextEdit::new(location.range, new_name.to_string()));
        }
        Ok(edits)
    }
}

/// A file of a script, as the copy is matched to the original: by its
/// path, else (a script given as text) its name.
type FileKey = (Option<PathBuf>, String);

/// Whether writing `new_name` at every span of `renamed` leaves `script`
/// meaning what it meant: the copy loads with no error `diagnostics`
/// did not have, and every name written in it stands for what it stood
/// for (one symbol for one symbol, the renamed one included).
fn keeps_meaning(
    script: &Script,
    diagnostics: &[syntax::Diagnostic],
    renamed: &[Span],
    (old_name, new_name): (&str, &str),
) -> Result<(), String> {
    let sources = &script.sources;
    let key = |span: Span| {
        let file = sources.file(sources.file_of(span));
        (file.path.clone(), file.name.clone())
    };
    // Each file's edits, by place in the file.
    let mut edits: HashMap<FileKey, BTreeSet<(usize, usize)>> = HashMap::new();
    for &span in renamed {
        let base = sources.file(sources.file_of(span)).base;
        edits
            .entry(key(span))
            .or_default()
            .insert(((span.start - base) as usize, (span.end - base) as usize));
    }
    // The copy: every file, renamed where it is mentioned.
    let mut open = OpenFiles::default();
    let (mut root_path, mut root_text) = (None, String::new());
    for (id, file) in sources.files() {
        if script.is_generated(Span::new(file.base, 0, 0)) {
            continue;
        }
        let file_key = (file.path.clone(), file.name.clone());
        let mut text = file.text.clone();
        for &(start, end) in edits.get(&file_key).into_iter().flatten().rev() {
            text.replace_range(start..end, new_name);
        }
        let path = file
            .path
            .clone()
            .unwrap_or_else(|| PathBuf::from(&file.name));
        if id == 0 {
            root_path = Some(path.clone());
            root_text = text.clone();
        }
        if let Ok(canonical) = path.canonicalize() {
            open.insert(canonical, text.clone());
        }
        open.insert(path, text);
    }
    let root_path = root_path.ok_or("the script has no file to rename in")?;
    let meter = Budget {
        timeout: Some(RELOAD_TIMEOUT),
        ..Budget::default()
    }
    .started()
    .meter();
    let broken = |why: String| format!("renaming `{old_name}` to `{new_name}` would {why}");
    let program =
        syntax::load_text_at_within(&root_path, &root_text, &open, &meter).map_err(|error| {
            match error.diagnostics.first() {
                Some(d) => broken(format!("not parse: {}", d.message)),
                None => broken("not load".to_string()),
            }
        })?;
    let (copy, copy_diagnostics, stopped) = Script::resolve_as_far_as_within(program, &meter);
    if stopped.is_some() {
        return Err(broken("take too long to check".to_string()));
    }
    // An error the script did not have (one it had may now name the new
    // name); `diagnostics` may hold type errors the copy, only resolved,
    // cannot have.
    let named_anew =
        |message: &str| message.replace(&format!("`{new_name}`"), &format!("`{old_name}`"));
    if let Some(new) = copy_diagnostics.iter().find(|d| {
        !diagnostics
            .iter()
            .any(|old| old.message == d.message || old.message == named_anew(&d.message))
    }) {
        let at = new
            .span
            .map(|span| format!(" (at {})", copy.sources.location(span)));
        return Err(broken(format!(
            "break the script: {}{}",
            new.message,
            at.unwrap_or_default()
        )));
    }
    // Where a place of the script lies in the copy: each file's base
    // there, and the ends of its edits, each of which moves what follows
    // by the difference of the names' lengths.
    let copy_bases: HashMap<FileKey, u32> = copy
        .sources
        .files()
        .map(|(_, f)| ((f.path.clone(), f.name.clone()), f.base))
        .collect();
    let files: Vec<Option<(u32, u32, Vec<usize>)>> = sources
        .files()
        .map(|(_, f)| {
            let file_key = (f.path.clone(), f.name.clone());
            let copy_base = *copy_bases.get(&file_key)?;
            let ends = edits.get(&file_key).map_or_else(Vec::new, |spans| {
                spans.iter().map(|&(_, end)| end).collect()
            });
            Some((f.base, copy_base, ends))
        })
        .collect();
    let step = new_name.len() as i64 - old_name.len() as i64;
    let place = |span: Span| -> Option<(u32, u32)> {
        let (base, copy_base, ends) = files[sources.file_of(span) as usize].as_ref()?;
        let moved = |at: u32| {
            let offset = (at - base) as usize;
            let before = ends.partition_point(|&end| end <= offset) as i64;
            copy_base + (offset as i64 + before * step) as u32
        };
        Some((moved(span.start), moved(span.end)))
    };
    // What each place of the copy names.
    let mut named_at: HashMap<(u32, u32), Vec<Symbol>> = HashMap::new();
    let written = |s: &Script, o: &&Occurrence| !s.is_generated(o.span);
    for o in copy
        .index
        .occurrences()
        .iter()
        .filter(|o| written(&copy, o))
    {
        named_at
            .entry((o.span.start, o.span.end))
            .or_default()
            .push(o.symbol);
    }
    let mut now_means: HashMap<Symbol, Symbol> = HashMap::new();
    let mut meant: HashMap<Symbol, Symbol> = HashMap::new();
    // How many of the script's mentions each place of the copy takes.
    let mut matched: HashMap<(u32, u32), usize> = HashMap::new();
    for o in script
        .index
        .occurrences()
        .iter()
        .filter(|o| written(script, o))
    {
        let place = place(o.span);
        let symbols = place
            .and_then(|p| named_at.get(&p))
            .map_or(&[][..], Vec::as_slice);
        if let Some(place) = place {
            *matched.entry(place).or_default() += 1;
        }
        let Some(&now) = symbols.iter().find(|&&now| {
            now_means.get(&o.symbol).is_none_or(|&s| s == now)
                && meant.get(&now).is_none_or(|&s| s == o.symbol)
        }) else {
            let at = sources.location(o.span);
            return Err(broken(format!(
                "change what the name written at {at} refers to: `{new_name}` is already \
                 bound where it would be used, or would hide a name used there"
            )));
        };
        now_means.insert(o.symbol, now);
        meant.insert(now, o.symbol);
    }
    // A mention the copy has beyond them: a name the new one captured
    // (a built-in's, say).
    for o in copy
        .index
        .occurrences()
        .iter()
        .filter(|o| written(&copy, o))
    {
        let left = matched.entry((o.span.start, o.span.end)).or_default();
        if *left == 0 {
            let at = copy.sources.location(o.span);
            let name = copy.sources.snippet(o.span);
            return Err(broken(format!(
                "change what `{name}` written at {at} (in the renamed script) refers to"
            )));
        }
        *left -= 1;
    }
    Ok(())
}
