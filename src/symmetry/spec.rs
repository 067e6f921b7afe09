//! The symmetry specification: the distinguished subtypes T1..TN (each a
//! set of atomic constructors of one datatype, pairwise disjoint) whose
//! values a permutation may exchange, and where they came from.
//!
//! Explicit types come from an assertion (`:[symmetry reduce]: NodeID,
//! diff(Data, {| D0 |})`) or the command line (`--symmetry NodeID,Data`)
//! and must pass the constant-free check; automatic mode takes, for each
//! datatype, the largest set of its atomic constructors the script names
//! nowhere, and says what it left out.

use std::fmt;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::eval::{Evaluator, Value};
use crate::script::Script;
use crate::script::ir::{
    AssertOption, Assertion, CtorId, DataTypeId, ExprKind, FuncId, GlobalKind,
};
use crate::syntax::{Diagnostic, Span};

use super::constant_free::{self, Reason, Use};
use super::naming;

/// A value of a distinguished type: the type's number (in the order of
/// the specification) and the value's place in the type (declaration
/// order). Packed in a word, since states are compared by their atoms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Atom(u32);

impl Atom {
    pub fn new(ty: usize, index: usize) -> Atom {
        Atom(((ty as u32) << 16) | index as u32)
    }

    pub fn ty(self) -> usize {
        (self.0 >> 16) as usize
    }

    pub fn index(self) -> usize {
        (self.0 & 0xffff) as usize
    }

    /// The packed word (type, then index): atoms sort by type, then value.
    pub fn raw(self) -> u32 {
        self.0
    }

    /// The atom whose [`Atom::raw`] word is `raw`.
    pub fn from_raw(raw: u32) -> Atom {
        Atom(raw)
    }
}

/// The most values a distinguished type may have (an atom's index is 16
/// bits; no search could use more).
pub const MAX_VALUES: usize = 1 << 16;

/// One distinguished subtype.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DistinguishedType {
    /// As the user wrote it (`NodeID`, `diff(T, {| c |})`); in automatic
    /// mode, what the set is (see [`super::naming`]).
    pub name: String,
    pub datatype: DataTypeId,
    /// Its values, in declaration order.
    pub values: Vec<CtorId>,
}

/// Where the distinguished types came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// Listed in an assertion's `:[symmetry reduce]: ...`.
    Assertion(Span),
    /// Given with `--symmetry`.
    CommandLine,
    /// Chosen automatically: the largest constant-free subtypes.
    Automatic,
}

/// A constructor automatic mode could not permute, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeftOut {
    pub ctor: CtorId,
    pub reason: Reason,
}

/// The distinguished types of a reduction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Symmetry {
    types: Vec<DistinguishedType>,
    /// By constructor: its atom, if it is distinguished.
    atoms: Vec<Option<Atom>>,
    pub origin: Origin,
    /// Automatic mode: what it left out of each datatype.
    pub left_out: Vec<LeftOut>,
}

impl Symmetry {
    fn new(script: &Script, types: Vec<DistinguishedType>, origin: Origin) -> Symmetry {
        let mut atoms = vec![None; script.ctors.len()];
        for (t, ty) in types.iter().enumerate() {
            for (i, &c) in ty.values.iter().enumerate() {
                atoms[c.index()] = Some(Atom::new(t, i));
            }
        }
        Symmetry {
            types,
            atoms,
            origin,
            left_out: Vec::new(),
        }
    }

    /// No distinguished type: nothing is permuted.
    pub fn none(script: &Script) -> Symmetry {
        Symmetry::new(script, Vec::new(), Origin::Automatic)
    }

    pub fn types(&self) -> &[DistinguishedType] {
        &self.types
    }

    /// Whether there is anything to permute.
    pub fn is_trivial(&self) -> bool {
        self.types.iter().all(|t| t.values.len() < 2)
    }

    /// Why a trivial symmetry permutes nothing, in words.
    pub fn why_trivial(&self, script: &Script) -> String {
        if script.datatypes.is_empty() {
            "the script has no datatype, so there is no value to permute: every state is its \
             own representative"
                .to_string()
        } else if self.left_out.is_empty() {
            "no type has two or more values to permute".to_string()
        } else {
            "no type is symmetric here: the script names the values that could be permuted \
             (each is listed above, where it is named); a permutation would have to fix them all"
                .to_string()
        }
    }

    /// The atom of a constructor, if it is of a distinguished type.
    pub fn atom(&self, ctor: CtorId) -> Option<Atom> {
        self.atoms.get(ctor.index()).copied().flatten()
    }

    /// The atom of a value, if it is a distinguished constructor.
    pub fn atom_of(&self, value: &Value) -> Option<Atom> {
        match value {
            Value::Ctor(c) => self.atom(*c),
            _ => None,
        }
    }

    /// The constructor an atom stands for.
    pub fn ctor(&self, atom: Atom) -> CtorId {
        self.types[atom.ty()].values[atom.index()]
    }

    /// An atom as its constructor's name.
    pub fn name<'s>(&self, script: &'s Script, atom: Atom) -> &'s str {
        &script.ctors[self.ctor(atom).index()].name
    }

    /// The explicit types `items` (assertion operands or expressions added
    /// from the command line), checked: each a set of atomic constructors
    /// of one datatype, pairwise disjoint, and the script constant-free
    /// for them in what `roots` depend on.
    pub fn explicit(
        script: &Script,
        eval: &Evaluator,
        items: &[FuncId],
        origin: Origin,
        roots: &[FuncId],
    ) -> Result<Symmetry, Vec<Diagnostic>> {
        let symmetry = Symmetry::from_items(script, eval, items, origin)?;
        let broken = symmetry.why_not(script, items, roots);
        if broken.is_empty() {
            Ok(symmetry)
        } else {
            Err(broken)
        }
    }

    /// The explicit types `items`, each checked to be a set of atomic
    /// constructors of one datatype, and pairwise disjoint (whether the
    /// script is symmetric in them is [`Symmetry::why_not`]'s question).
    pub fn from_items(
        script: &Script,
        eval: &Evaluator,
        items: &[FuncId],
        origin: Origin,
    ) -> Result<Symmetry, Vec<Diagnostic>> {
        let mut types = Vec::with_capacity(items.len());
        let mut errors = Vec::new();
        let mut owner: FxHashMap<CtorId, usize> = FxHashMap::default();
        for &item in items {
            match distinguished_type(script, eval, item) {
                Ok(ty) => {
                    let span = script.function(item).span;
                    if let Some(&c) = ty.values.iter().find(|c| owner.contains_key(c)) {
                        let other: &DistinguishedType = &types[owner[&c]];
                        errors.push(Diagnostic::error(
                            span,
                            format!(
                                "{} is in both {} and {}: distinguished types must not overlap",
                                script.ctors[c.index()].name,
                                other.name,
                                ty.name
                            ),
                        ));
                        continue;
                    }
                    for &c in &ty.values {
                        owner.insert(c, types.len());
                    }
                    types.push(ty);
                }
                Err(e) => errors.push(e),
            }
        }
        if errors.is_empty() {
            Ok(Symmetry::new(script, types, origin))
        } else {
            Err(errors)
        }
    }

    /// Why the script is not symmetric in these types (given as `items`,
    /// whose own definitions may name their values) in what `roots`
    /// depend on: one diagnostic per use that breaks it; none when it is
    /// constant-free.
    pub fn why_not(&self, script: &Script, items: &[FuncId], roots: &[FuncId]) -> Vec<Diagnostic> {
        let exempt = definitions_of(script, items);
        self.breaks(script, &constant_free::uses(script, roots, &exempt))
    }

    /// For every datatype, its atomic constructors the script never names
    /// in what `roots` depend on (none at all if it uses an
    /// order-revealing built-in there); types with fewer than two values
    /// are dropped, having nothing to permute.
    pub fn automatic(script: &Script, roots: &[FuncId]) -> Symmetry {
        let uses = constant_free::uses(script, roots, &FxHashSet::default());
        let builtin = uses
            .iter()
            .find(|r| matches!(r.what, Use::Builtin(_)))
            .copied();
        let mut named: FxHashMap<CtorId, Reason> = FxHashMap::default();
        for r in &uses {
            if let Use::Constant(c) = r.what {
                named.entry(c).or_insert(*r);
            }
        }
        let mut types = Vec::new();
        let mut left_out = Vec::new();
        for (d, datatype) in script.datatypes.iter().enumerate() {
            let mut values = Vec::new();
            for &c in &datatype.ctors {
                if !script.ctors[c.index()].fields.is_empty() {
                    continue;
                }
                match builtin.or_else(|| named.get(&c).copied()) {
                    Some(reason) => left_out.push(LeftOut { ctor: c, reason }),
                    None => values.push(c),
                }
            }
            if values.len() >= 2 {
                let datatype = DataTypeId(d as u32);
                types.push(DistinguishedType {
                    name: naming::by_datatype(script, datatype, &values),
                    datatype,
                    values,
                });
            }
        }
        // Listed as the diagnostics are: down the file (a stable sort,
        // so the values one built-in leaves out stay in declaration order).
        left_out.sort_by_key(|l| source_order(&l.reason));
        let mut symmetry = Symmetry::new(script, types, Origin::Automatic);
        symmetry.left_out = left_out;
        symmetry
    }

    /// Automatic mode's types called by the script's own names for them
    /// where it has one (`NodeID` for `NodeIDType less Null`).
    fn named_by_definitions(mut self, script: &Script) -> Symmetry {
        for ty in &mut self.types {
            if let Some(name) = naming::by_definition(script, &ty.values) {
                ty.name = name;
            }
        }
        self
    }

    /// Why the script is not symmetric in these types: one diagnostic
    /// per use that breaks it, each with the remedy (the type less every
    /// constructor of it the script names), in source order.
    pub fn breaks(&self, script: &Script, uses: &[Reason]) -> Vec<Diagnostic> {
        if self.types.is_empty() {
            return Vec::new();
        }
        // The walk meets uses in dependency order (channel types first);
        // a reader goes down the file.
        let uses = in_source_order(uses);
        let mut named: Vec<Vec<CtorId>> = vec![Vec::new(); self.types.len()];
        for reason in &uses {
            if let Use::Constant(c) = reason.what
                && let Some(atom) = self.atom(c)
                && !named[atom.ty()].contains(&c)
            {
                named[atom.ty()].push(c);
            }
        }
        let mut out = Vec::new();
        for reason in &uses {
            match reason.what {
                Use::Constant(c) => {
                    let Some(atom) = self.atom(c) else { continue };
                    let ty = &self.types[atom.ty()];
                    let name = &script.ctors[c.index()].name;
                    let left = ty.values.len() - named[atom.ty()].len();
                    let remedy = if left >= 2 {
                        format!(
                            "reduce over `{}` instead",
                            self.without(script, atom.ty(), &named[atom.ty()])
                        )
                    } else {
                        format!(
                            "the script names {} of {}'s {} values: leave {} out of the types",
                            named[atom.ty()].len(),
                            ty.name,
                            ty.values.len(),
                            ty.name
                        )
                    };
                    out.push(
                        Diagnostic::error(
                            reason.span,
                            format!(
                                "{name} is named here, so {} is not symmetric: {name} cannot be \
                                 permuted",
                                ty.name
                            ),
                        )
                        .with_note(remedy),
                    );
                }
                Use::Builtin(b) => out.push(constant_free::builtin_diagnostic(reason, b)),
            }
        }
        out
    }

    /// The type `ty` less the constructors `also`, as the user would
    /// write it: the script's own name for that set where it has one
    /// (`NodeID`), else `diff(NodeIDType, {Null, N0})` — with `{| |}`
    /// only where a constructor left out has fields, which a plain set
    /// would have to list value by value.
    fn without(&self, script: &Script, ty: usize, also: &[CtorId]) -> String {
        let t = &self.types[ty];
        let mut kept: Vec<CtorId> = t
            .values
            .iter()
            .copied()
            .filter(|c| !also.contains(c))
            .collect();
        kept.sort_unstable();
        if let Some(name) = naming::by_definition(script, &kept) {
            return name;
        }
        let datatype = &script.datatypes[t.datatype.index()];
        let outside: Vec<CtorId> = datatype
            .ctors
            .iter()
            .copied()
            .filter(|c| !kept.contains(c))
            .collect();
        let names: Vec<&str> = outside
            .iter()
            .map(|c| script.ctors[c.index()].name.as_str())
            .collect();
        let (open, close) = match outside
            .iter()
            .any(|c| !script.ctors[c.index()].fields.is_empty())
        {
            true => ("{| ", " |}"),
            false => ("{", "}"),
        };
        format!("diff({}, {open}{}{close})", datatype.name, names.join(", "))
    }

    /// What automatic mode left out, one line per constructor.
    pub fn left_out_lines(&self, script: &Script) -> Vec<String> {
        self.left_out
            .iter()
            .map(|l| {
                let name = &script.ctors[l.ctor.index()].name;
                let at = script.sources.location(l.reason.span);
                match l.reason.what {
                    Use::Constant(_) => format!("{name} left out: it is named at {at}"),
                    Use::Builtin(b) => {
                        format!("{name} left out: `{}` is used at {at}", b.name())
                    }
                }
            })
            .collect()
    }

    /// The types as a person reads them: `NodeID = {N0, N1, N2}`.
    pub fn describe(&self, script: &Script) -> Vec<String> {
        self.types
            .iter()
            .map(|t| {
                let values: Vec<&str> = t
                    .values
                    .iter()
                    .map(|c| script.ctors[c.index()].name.as_str())
                    .collect();
                format!("{} = {{{}}}", t.name, values.join(", "))
            })
            .collect()
    }

    /// The order of the group of all permutations: the product of the
    /// types' factorials.
    pub fn group_order(&self) -> GroupOrder {
        GroupOrder(self.types.iter().map(|t| t.values.len()).collect())
    }
}

/// What a search is asked to reduce by, with any explicit types resolved
/// in the script: an assertion's `:[symmetry reduce]` options, or what a
/// user typed (`--symmetry`, added to the script with
/// [`Script::add_expr`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reduce {
    /// No reduction.
    Off,
    /// The validated group of the system's communication structure
    /// ([`super::structural`]), not the datatypes.
    Structural,
    /// The largest constant-free subtypes of what the roots depend on.
    Automatic,
    /// These types, checked to be constant-free.
    Types(Vec<FuncId>, Origin),
}

impl Reduce {
    /// What an assertion's options ask for: its `:[symmetry reduce]`
    /// (automatic without types), or no reduction.
    pub fn of_assertion(assertion: &Assertion) -> Reduce {
        assertion
            .options
            .iter()
            .find_map(|option| match option {
                AssertOption::SymmetryReduce(types, _) if types.is_empty() => {
                    Some(Reduce::Automatic)
                }
                AssertOption::SymmetryReduce(types, _) => Some(Reduce::Types(
                    types.clone(),
                    Origin::Assertion(assertion.span),
                )),
                _ => None,
            })
            .unwrap_or(Reduce::Off)
    }

    /// What is asked for, in words for a progress line: `None` for no
    /// reduction, else the types as written (`NodeID, Data`) or
    /// `automatic types`.
    pub fn describe(&self, script: &Script) -> Option<String> {
        match self {
            Reduce::Off => None,
            Reduce::Structural => Some("the structural group".to_string()),
            Reduce::Automatic => Some("automatic types".to_string()),
            Reduce::Types(items, _) => Some(
                items
                    .iter()
                    .map(|&f| {
                        crate::syntax::one_line(script.sources.snippet(script.function(f).span))
                    })
                    .collect::<Vec<_>>()
                    .join(", "),
            ),
        }
    }

    /// The distinguished types over what `roots` depend on: `None` for
    /// [`Reduce::Off`]; explicit types checked (each a set of atomic
    /// constructors, disjoint, constant-free), or chosen automatically.
    pub fn resolve(
        &self,
        script: &Script,
        eval: &Evaluator,
        roots: &[FuncId],
    ) -> Result<Option<Symmetry>, Vec<Diagnostic>> {
        match self {
            // The structural group is not a choice of datatypes.
            Reduce::Off | Reduce::Structural => Ok(None),
            Reduce::Automatic => Ok(Some(
                Symmetry::automatic(script, roots).named_by_definitions(script),
            )),
            Reduce::Types(items, origin) => {
                Symmetry::explicit(script, eval, items, origin.clone(), roots).map(Some)
            }
        }
    }
}

/// How a user asks for symmetry (`--symmetry auto|off|T,U`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Choice {
    /// The largest constant-free subtypes.
    Automatic,
    /// No reduction.
    Off,
    /// The structural group.
    Structural,
    /// These types, as CSPM expressions: where each lies in the text
    /// (blanks around it left out), so a problem points into the text.
    Types(Vec<std::ops::Range<usize>>),
}

impl Choice {
    /// Reads `auto`, `off`, or a comma-separated list of types (commas
    /// inside brackets belong to the type: `NodeID, diff(T, {| A, B |})`).
    pub fn parse(text: &str) -> Result<Choice, String> {
        match text.trim() {
            "auto" => return Ok(Choice::Automatic),
            "off" => return Ok(Choice::Off),
            "structural" => return Ok(Choice::Structural),
            _ => {}
        }
        let mut items = Vec::new();
        let mut depth = 0i32;
        let mut start = 0;
        for (at, c) in text.char_indices() {
            match c {
                '(' | '{' | '[' => depth += 1,
                ')' | '}' | ']' => depth -= 1,
                ',' if depth == 0 => {
                    items.push(start..at);
                    start = at + 1;
                }
                _ => {}
            }
        }
        items.push(start..text.len());
        let trimmed: Vec<_> = items
            .into_iter()
            .map(|r| {
                let item = &text[r.clone()];
                let lead = item.len() - item.trim_start().len();
                r.start + lead..r.start + lead + item.trim().len()
            })
            .collect();
        if trimmed.iter().any(|r| r.is_empty()) {
            return Err(format!(
                "`{text}` is not a list of types: expected `auto`, `off`, or types separated by \
                 commas (`NodeID, Data`)"
            ));
        }
        Ok(Choice::Types(trimmed))
    }
}

impl Reduce {
    /// What a user typed (`auto`, `off` or types, as `--symmetry` takes
    /// them), its types added to `script` as expressions; problems
    /// rendered for the terminal.
    pub fn requested(script: &mut Script, text: &str) -> Result<Reduce, String> {
        match Choice::parse(text).map_err(|e| format!("error: {e}\n"))? {
            Choice::Off => Ok(Reduce::Off),
            Choice::Structural => Ok(Reduce::Structural),
            Choice::Automatic => Ok(Reduce::Automatic),
            Choice::Types(items) => {
                let funcs = script
                    .add_exprs("<symmetry>", text, &items)
                    .map_err(|ds| crate::syntax::render_all(&ds, &script.sources))?;
                Ok(Reduce::Types(funcs, Origin::CommandLine))
            }
        }
    }
}

impl Symmetry {
    /// The types, for a report: `NodeID, Data` (or `no type`).
    pub fn type_names(&self) -> String {
        let names: Vec<&str> = self.types().iter().map(|t| t.name.as_str()).collect();
        if names.is_empty() {
            "no type".to_string()
        } else {
            names.join(", ")
        }
    }

    /// Where the types came from, in words.
    pub fn origin_text(&self, script: &Script) -> String {
        match &self.origin {
            Origin::Assertion(span) => {
                // Relative to the current directory: exports carry this
                // line, and a slide should not show the machine's paths.
                let at = script.sources.location(*span);
                format!(
                    "from the assertion at {}:{}:{}",
                    crate::files::relative(at.file),
                    at.line,
                    at.col
                )
            }
            Origin::CommandLine => "from --symmetry".to_string(),
            Origin::Automatic => {
                "chosen automatically (the largest constant-free subtypes)".to_string()
            }
        }
    }
}

/// Where a use sits, as a key that sorts in source order: positions are
/// numbered through the files in the order they were loaded, so this is
/// file, then line, then column.
fn source_order(reason: &Reason) -> (u32, u32) {
    (reason.span.start, reason.span.end)
}

/// `uses`, sorted in source order (a stable sort: one place, one order).
fn in_source_order(uses: &[Reason]) -> Vec<Reason> {
    let mut sorted = uses.to_vec();
    sorted.sort_by_key(source_order);
    sorted
}

/// The order of a symmetry group, `n1!·n2!·…`, printed with its value.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GroupOrder(Vec<usize>);

impl GroupOrder {
    pub fn value(&self) -> num_bigint::BigUint {
        let mut order = num_bigint::BigUint::from(1u32);
        for &n in &self.0 {
            for k in 2..=n {
                order *= k;
            }
        }
        order
    }
}

impl fmt::Display for GroupOrder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return write!(f, "1");
        }
        let factors: Vec<String> = self.0.iter().map(|n| format!("{n}!")).collect();
        write!(f, "{} = {}", factors.join("·"), self.value())
    }
}

/// One item of an explicit specification, checked.
fn distinguished_type(
    script: &Script,
    eval: &Evaluator,
    item: FuncId,
) -> Result<DistinguishedType, Diagnostic> {
    let span = script.function(item).span;
    let name = script
        .sources
        .snippet(span)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let value = eval.eval_constant(item).map_err(|e| e.to_diagnostic())?;
    let not_a_type = |what: String| {
        Diagnostic::error(
            span,
            format!("{name} is not a set of datatype constructors: {what}"),
        )
        .with_note(
            "a distinguished type is a datatype, a set of its constructors without fields, \
             or such a set less some: diff(T, {| c |})",
        )
    };
    let Value::Set(set) = &value else {
        return Err(not_a_type(format!("it is {}", value.kind_name())));
    };
    let elements = eval
        .elements(set, span)
        .map_err(|_| not_a_type("it is infinite".to_string()))?;
    let mut values = Vec::with_capacity(elements.len());
    let mut datatype = None;
    for v in elements {
        let c = match v {
            Value::Ctor(c) => *c,
            Value::Named(parts) if matches!(parts[0], Value::Ctor(_)) => {
                let head = eval.show(&parts[0]);
                let of = match &parts[0] {
                    Value::Ctor(c) => {
                        &script.datatypes[script.ctors[c.index()].datatype.index()].name
                    }
                    _ => unreachable!("matched a constructor"),
                };
                return Err(Diagnostic::error(
                    span,
                    format!(
                        "{name} holds {}, a constructor with fields: only constructors without \
                         fields can be permuted",
                        eval.show(v)
                    ),
                )
                .with_note(format!("leave {head} out: diff({of}, {{| {head} |}})")));
            }
            other => {
                return Err(not_a_type(format!(
                    "it holds {}, which is {}",
                    eval.show(other),
                    other.kind_name()
                )));
            }
        };
        let d = script.ctors[c.index()].datatype;
        match datatype {
            None => datatype = Some(d),
            Some(e) if e != d => {
                return Err(Diagnostic::error(
                    span,
                    format!(
                        "{name} mixes values of {} and {}: a distinguished type comes from one \
                         datatype",
                        script.datatypes[e.index()].name,
                        script.datatypes[d.index()].name
                    ),
                ));
            }
            Some(_) => {}
        }
        values.push(c);
    }
    let Some(datatype) = datatype else {
        return Err(Diagnostic::error(
            span,
            format!("{name} is empty: there is nothing to permute"),
        ));
    };
    if values.len() > MAX_VALUES {
        return Err(Diagnostic::error(
            span,
            format!("{name} has more than {MAX_VALUES} values"),
        ));
    }
    values.sort_unstable();
    Ok(DistinguishedType {
        name,
        datatype,
        values,
    })
}

/// The definitions of the named sets among `items` (`NodeID` for
/// `NodeID = diff(NodeIDType, {Null})`): the distinguished types' own
/// definitions, where naming their constructors is allowed.
fn definitions_of(script: &Script, items: &[FuncId]) -> FxHashSet<FuncId> {
    let mut out = FxHashSet::default();
    for &item in items {
        for clause in &script.function(item).clauses {
            if let ExprKind::Global(g) = script.expr(clause.body).kind
                && let GlobalKind::Definition(f) = script.globals[g.index()].kind
            {
                out.insert(f);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCRIPT: &str = "datatype NodeIDType = Null | N0 | N1 | N2\n\
                          NodeID = diff(NodeIDType, {Null})\n\
                          datatype Data = A | B | C.{0..1}\n\
                          channel c : NodeID.Data\n\
                          P = c?n?d -> P\n\
                          Q(n) = c!n!A -> Q(n)\n";

    fn explicit(items: &[&str], root: &str) -> Result<Vec<String>, Vec<String>> {
        let mut script = Script::load_str("t.csp", SCRIPT).expect("loads");
        let items: Vec<FuncId> = items
            .iter()
            .map(|i| script.add_expr("<type>", i).expect("resolves"))
            .collect();
        let root = script.add_expr("<root>", root).expect("resolves");
        let eval = Evaluator::new(&script);
        Symmetry::explicit(&script, &eval, &items, Origin::CommandLine, &[root])
            .map(|s| s.describe(&script))
            .map_err(|ds| ds.iter().map(|d| d.message.clone()).collect())
    }

    #[test]
    fn explicit_types_are_sets_of_atomic_constructors_of_one_datatype() {
        assert_eq!(
            explicit(&["NodeID", "diff(Data, {| C |})"], "P"),
            Ok(vec![
                "NodeID = {N0, N1, N2}".to_string(),
                "diff(Data, {| C |}) = {A, B}".to_string()
            ])
        );
        let errors = explicit(&["Data"], "P").unwrap_err();
        assert!(
            errors[0].contains("C.0, a constructor with fields"),
            "{errors:?}"
        );
        let errors = explicit(&["NodeIDType", "NodeID"], "P").unwrap_err();
        assert!(
            errors[0].contains("N0 is in both NodeIDType and NodeID"),
            "{errors:?}"
        );
        let errors = explicit(&["{0, 1}", "union(NodeID, {A})", "{}"], "P").unwrap_err();
        assert_eq!(errors.len(), 3);
        assert!(
            errors[0].contains("it holds 0, which is an integer"),
            "{errors:?}"
        );
        assert!(
            errors[1].contains("mixes values of NodeIDType and Data"),
            "{errors:?}"
        );
        assert!(errors[2].contains("is empty"), "{errors:?}");
    }

    #[test]
    fn a_named_constant_breaks_symmetry_in_its_type_only() {
        let errors = explicit(&["NodeID", "diff(Data, {| C |})"], "Q(N0)").unwrap_err();
        // In source order: A in the script, then N0 in the root added
        // after it.
        assert_eq!(
            errors,
            vec![
                "A is named here, so diff(Data, {| C |}) is not symmetric: A cannot be permuted",
                "N0 is named here, so NodeID is not symmetric: N0 cannot be permuted"
            ]
        );
        // Null is outside NodeID: naming it is fine.
        assert!(explicit(&["NodeID"], "Q(Null)").is_ok());
    }

    #[test]
    fn automatic_mode_takes_what_is_never_named() {
        let mut script = Script::load_str("t.csp", SCRIPT).expect("loads");
        let root = script.add_expr("<root>", "Q(Null)").expect("resolves");
        let symmetry = Symmetry::automatic(&script, &[root]);
        // Data's A is named by Q; B alone is nothing to permute. The set
        // is called what it is, not by the whole datatype's name.
        assert_eq!(
            symmetry.describe(&script),
            ["NodeIDType less Null = {N0, N1, N2}"]
        );
        let lines = symmetry.left_out_lines(&script);
        assert_eq!(lines.len(), 2, "{lines:?}");
        // Null is named by NodeID, which the channel's type uses.
        assert_eq!(lines[0], "Null left out: it is named at t.csp:2:28");
        assert_eq!(lines[1], "A left out: it is named at t.csp:6:12");
        assert_eq!(symmetry.group_order().to_string(), "3! = 6");
    }
}
