//! The names FDR's CSPM defines before any script: functions, types,
//! constants and processes. The table says what each name is and how many
//! arguments it takes; the evaluator gives them meaning.

/// Every built-in name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Builtin {
    // Sets.
    Union,
    Inter,
    Diff,
    UnionAll,
    InterAll,
    Member,
    Card,
    Empty,
    SetOfSeq,
    Powerset,
    Seqs,
    SeqOfSet,
    // Sequences.
    Length,
    Null,
    Head,
    Tail,
    Concat,
    Elem,
    // Maps.
    MapFromList,
    MapLookup,
    MapMember,
    MapToList,
    MapUpdate,
    MapUpdateMultiple,
    MapDelete,
    EmptyMap,
    MapType,
    // Other functions.
    Error,
    Show,
    Mtransclose,
    RelationalImage,
    RelationalInverseImage,
    Transpose,
    Extensions,
    Productions,
    // Types.
    Int,
    Bool,
    Char,
    Proc,
    Events,
    // Processes and process functions (given meaning by the process layer).
    Stop,
    Skip,
    Div,
    Chaos,
    Run,
    /// `BUFFER(N, ins_outs)`, FDR's built-in first-in first-out buffer.
    Buffer,
    ProcessFunction(ProcessFunction),
}

/// Functions from processes to processes: compressions and friends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ProcessFunction {
    Normal,
    Sbisim,
    Wbisim,
    Dbisim,
    Diamond,
    Explicate,
    Chase,
    ChaseNoCache,
    ModelCompress,
    TauLoopFactor,
    Prioritise,
    PrioritiseNoCache,
    PrioritisePartialOrder,
    Determinise,
    LazyEnumerate,
    LazyNormal,
    Loop,
    FailureWatchdog,
    TraceWatchdog,
}

/// How a script makes a built-in visible: FDR's Prelude names are
/// always in scope, but functions that step outside CSP's algebra must be
/// declared first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Import {
    /// Always in scope.
    Prelude,
    /// Needs `external f`.
    External,
    /// Needs `transparent f` (a compression, which keeps the semantics).
    Transparent,
    /// `chase`: either declaration.
    Either,
}

impl Import {
    /// Whether a declaration `external` (or not: `transparent`) makes it
    /// visible.
    pub fn allows(self, external: bool) -> bool {
        match self {
            Import::Prelude => false,
            Import::External => external,
            Import::Transparent => !external,
            Import::Either => true,
        }
    }
}

/// How a built-in name is used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// A value, used without arguments (`Int`, `STOP`, `emptyMap`).
    Constant,
    /// A function of this many arguments.
    Function(usize),
}

const TABLE: &[(&str, Builtin)] = &[
    ("union", Builtin::Union),
    ("inter", Builtin::Inter),
    ("diff", Builtin::Diff),
    ("Union", Builtin::UnionAll),
    ("Inter", Builtin::InterAll),
    ("member", Builtin::Member),
    ("card", Builtin::Card),
    ("empty", Builtin::Empty),
    ("set", Builtin::SetOfSeq),
    ("Set", Builtin::Powerset),
    ("Seq", Builtin::Seqs),
    ("seq", Builtin::SeqOfSet),
    ("length", Builtin::Length),
    ("null", Builtin::Null),
    ("head", Builtin::Head),
    ("tail", Builtin::Tail),
    ("concat", Builtin::Concat),
    ("elem", Builtin::Elem),
    ("mapFromList", Builtin::MapFromList),
    ("mapLookup", Builtin::MapLookup),
    ("mapMember", Builtin::MapMember),
    ("mapToList", Builtin::MapToList),
    ("mapUpdate", Builtin::MapUpdate),
    ("mapUpdateMultiple", Builtin::MapUpdateMultiple),
    ("mapDelete", Builtin::MapDelete),
    ("emptyMap", Builtin::EmptyMap),
    ("Map", Builtin::MapType),
    ("error", Builtin::Error),
    ("show", Builtin::Show),
    ("mtransclose", Builtin::Mtransclose),
    ("relational_image", Builtin::RelationalImage),
    ("relational_inverse_image", Builtin::RelationalInverseImage),
    ("transpose", Builtin::Transpose),
    ("extensions", Builtin::Extensions),
    ("productions", Builtin::Productions),
    ("Int", Builtin::Int),
    ("Bool", Builtin::Bool),
    ("Char", Builtin::Char),
    ("Proc", Builtin::Proc),
    ("Events", Builtin::Events),
    ("STOP", Builtin::Stop),
    ("SKIP", Builtin::Skip),
    ("DIV", Builtin::Div),
    ("CHAOS", Builtin::Chaos),
    ("RUN", Builtin::Run),
    ("BUFFER", Builtin::Buffer),
    ("normal", Builtin::ProcessFunction(ProcessFunction::Normal)),
    ("sbisim", Builtin::ProcessFunction(ProcessFunction::Sbisim)),
    ("wbisim", Builtin::ProcessFunction(ProcessFunction::Wbisim)),
    ("dbisim", Builtin::ProcessFunction(ProcessFunction::Dbisim)),
    (
        "diamond",
        Builtin::ProcessFunction(ProcessFunction::Diamond),
    ),
    (
        "explicate",
        Builtin::ProcessFunction(ProcessFunction::Explicate),
    ),
    ("chase", Builtin::ProcessFunction(ProcessFunction::Chase)),
    (
        "chase_nocache",
        Builtin::ProcessFunction(ProcessFunction::ChaseNoCache),
    ),
    (
        "model_compress",
        Builtin::ProcessFunction(ProcessFunction::ModelCompress),
    ),
    (
        "tau_loop_factor",
        Builtin::ProcessFunction(ProcessFunction::TauLoopFactor),
    ),
    (
        "prioritise",
        Builtin::ProcessFunction(ProcessFunction::Prioritise),
    ),
    (
        "prioritise_nocache",
        Builtin::ProcessFunction(ProcessFunction::PrioritiseNoCache),
    ),
    (
        "prioritisepo",
        Builtin::ProcessFunction(ProcessFunction::PrioritisePartialOrder),
    ),
    (
        "deter",
        Builtin::ProcessFunction(ProcessFunction::Determinise),
    ),
    (
        "lazyenumerate",
        Builtin::ProcessFunction(ProcessFunction::LazyEnumerate),
    ),
    (
        "lazynorm",
        Builtin::ProcessFunction(ProcessFunction::LazyNormal),
    ),
    ("loop", Builtin::ProcessFunction(ProcessFunction::Loop)),
    (
        "failure_watchdog",
        Builtin::ProcessFunction(ProcessFunction::FailureWatchdog),
    ),
    (
        "trace_watchdog",
        Builtin::ProcessFunction(ProcessFunction::TraceWatchdog),
    ),
];

/// FDR's Prelude names `True` and `False` besides the literals `true`
/// and `false`; unlike the literals they are names, so a script may
/// declare its own constructors `True` and `False`, which hide these.
pub fn bool_constant(name: &str) -> Option<bool> {
    match name {
        "True" => Some(true),
        "False" => Some(false),
        _ => None,
    }
}

impl Builtin {
    /// The built-in a name denotes, if any.
    pub fn lookup(name: &str) -> Option<Builtin> {
        TABLE.iter().find(|(n, _)| *n == name).map(|&(_, b)| b)
    }

    /// Every built-in name, for suggestions.
    pub fn names() -> impl Iterator<Item = &'static str> {
        TABLE.iter().map(|&(n, _)| n)
    }

    /// The name a script uses for it.
    pub fn name(self) -> &'static str {
        TABLE
            .iter()
            .find(|&&(_, b)| b == self)
            .map(|&(n, _)| n)
            .expect("every built-in is in the table")
    }

    /// Its place in the table of built-in names: the same number in
    /// every run of every build with this table, so it can cross a
    /// process boundary ([`Self::from_index`]).
    pub fn index(self) -> u16 {
        TABLE
            .iter()
            .position(|&(_, b)| b == self)
            .expect("every built-in is in the table") as u16
    }

    /// The built-in at `index` of the table, if there is one.
    pub fn from_index(index: u16) -> Option<Builtin> {
        TABLE.get(index as usize).map(|&(_, b)| b)
    }

    /// Whether the script must declare it to use it.
    pub fn import(self) -> Import {
        use ProcessFunction as F;
        match self {
            Builtin::Mtransclose
            | Builtin::RelationalImage
            | Builtin::RelationalInverseImage
            | Builtin::Transpose => Import::External,
            Builtin::ProcessFunction(f) => match f {
                F::Chase | F::ChaseNoCache => Import::Either,
                F::Determinise
                | F::FailureWatchdog
                | F::TraceWatchdog
                | F::Loop
                | F::Prioritise
                | F::PrioritiseNoCache
                | F::PrioritisePartialOrder => Import::External,
                F::Normal
                | F::Sbisim
                | F::Wbisim
                | F::Dbisim
                | F::Diamond
                | F::Explicate
                | F::ModelCompress
                | F::TauLoopFactor
                | F::LazyEnumerate
                | F::LazyNormal => Import::Transparent,
            },
            _ => Import::Prelude,
        }
    }

    pub fn shape(self) -> Shape {
        use Builtin::*;
        match self {
            EmptyMap | Int | Bool | Char | Proc | Events | Stop | Skip | Div => Shape::Constant,
            Card | Empty | UnionAll | InterAll | SetOfSeq | Powerset | Seqs | SeqOfSet | Length
            | Null | Head | Tail | Concat | MapFromList | MapToList | Error | Show
            | Transpose | Extensions | Productions | Chaos | Run
            // Curried: `relational_image(R)(x)`.
            | RelationalImage | RelationalInverseImage => {
                Shape::Function(1)
            }
            Union | Inter | Diff | Member | Elem | MapLookup | MapMember | MapUpdateMultiple
            | MapDelete | MapType | Mtransclose => {
                Shape::Function(2)
            }
            MapUpdate => Shape::Function(3),
            // BUFFER(N, ins_outs)
            Buffer => Shape::Function(2),
            ProcessFunction(f) => Shape::Function(f.arity()),
        }
    }
}

impl ProcessFunction {
    pub fn arity(self) -> usize {
        match self {
            // prioritise(P, <A1, A2, ...>)
            ProcessFunction::Prioritise | ProcessFunction::PrioritiseNoCache => 2,
            // failure_watchdog(P, A, evBad)
            ProcessFunction::FailureWatchdog | ProcessFunction::TraceWatchdog => 3,
            // prioritisepo(P, A, order, maximal)
            ProcessFunction::PrioritisePartialOrder => 4,
            _ => 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_maps_back_to_itself_or_a_synonym() {
        for name in Builtin::names() {
            let builtin = Builtin::lookup(name).unwrap();
            assert_eq!(Builtin::lookup(builtin.name()), Some(builtin));
        }
        assert_eq!(Builtin::lookup("nosuch"), None);
    }
}
