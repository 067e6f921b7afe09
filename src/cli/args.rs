//! The command line's words: the options of `symcsp` itself and of each
//! command, as clap reads them (their doc comments are the help and the
//! manual pages). What each command does with them is in its own module;
//! `cli` dispatches.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use super::{Format, completions, explore, limits, rep, symmetries, values};
use crate::symmetry::strategy::Strategy;

#[derive(Parser, Debug)]
#[command(
    name = "symcsp",
    version,
    about = "Animator, state-space explorer and refinement checker for CSPM, built around symmetry reduction"
)]
pub(super) struct Cli {
    #[command(subcommand)]
    pub(super) command: Option<Command>,
    /// A script to open in the animator (without a command); without
    /// one, the built-in model. When output is not a terminal, the script
    /// is described instead.
    #[arg(value_name = "FILE")]
    pub(super) file: Option<PathBuf>,
    /// The process to animate first (any process expression in the
    /// script's scope); by default the first assertion's process.
    #[arg(long, value_name = "EXPR", allow_hyphen_values = true)]
    pub(super) process: Option<String>,
    /// Show every error of a script that does not load, not only the
    /// first 20 (FDR's front end stops after about twenty).
    #[arg(long, global = true)]
    pub(super) all_errors: bool,
    /// Reopen a session saved from the animator (model, process, trace).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["file", "process"])]
    pub(super) session: Option<PathBuf>,
    /// The types the animator's symmetry view and reduced walk use:
    /// `auto`, `off`, or types (`NodeID, Data`); by default those of an
    /// assertion with `:[symmetry reduce]` about the animated process,
    /// else automatic.
    #[arg(
        long,
        value_name = "auto|off|T,U",
        value_parser = values::SymmetryValue { searches: true },
        hide_possible_values = true
    )]
    pub(super) symmetry: Option<String>,
    /// How the symmetry view and the reduced walk find representatives:
    /// `fdr`, `sorted`, `segmented`, `flooding` or `exact` (as `symcsp
    /// check --strategy`); the view's key cycles them.
    #[arg(long, value_name = "STRATEGY", default_value = "fdr", value_parser = values::StrategyValue)]
    pub(super) strategy: Strategy,
    /// Open the animator at the state these visible events lead to,
    /// separated by commas (`"push.T0.A, push.T1.B"`), τ steps as needed:
    /// as `symcsp rep --after` reads them. One that cannot happen is
    /// named, with the events that could, and the animator opens at the
    /// last state reached.
    #[arg(
        long,
        value_name = "EVENTS",
        allow_hyphen_values = true,
        conflicts_with = "session"
    )]
    pub(super) after: Option<String>,
    #[command(flatten)]
    pub(super) limits: limits::AnimatorLimits,
}

#[derive(Subcommand, Debug)]
pub(super) enum Command {
    /// Parse CSPM scripts and report syntax errors.
    Parse {
        /// The scripts to parse (`-` for standard input).
        #[arg(required = true, value_name = "FILE")]
        files: Vec<PathBuf>,
        /// Print each script back, pretty-printed.
        #[arg(long)]
        print: bool,
    },
    /// Evaluate an expression in a script's scope (or, without one, the
    /// script's `print` declarations) and print the value.
    Eval {
        /// The script whose names the expression may use (`/dev/null` for
        /// none, `-` for standard input).
        #[arg(value_name = "FILE")]
        file: PathBuf,
        /// The expression to evaluate.
        #[arg(value_name = "EXPR", allow_hyphen_values = true)]
        expr: Option<String>,
        #[command(flatten)]
        limits: limits::WorkLimits,
    },
    /// Print the type of a definition or an expression, as FDR's `:type`
    /// does, or of every name the script declares.
    Type {
        /// The script (`/dev/null` for none, `-` for standard input).
        #[arg(value_name = "FILE")]
        file: PathBuf,
        /// A name the script defines, or any expression in its scope.
        #[arg(value_name = "NAME|EXPR", allow_hyphen_values = true)]
        what: Option<String>,
    },
    /// Explore the state space of a process breadth first and report its
    /// size (exit 3 if the budget stopped it).
    Explore {
        /// The script whose names the process may use (`-` for standard
        /// input).
        #[arg(value_name = "FILE")]
        file: PathBuf,
        /// Any process expression in the script's scope: `System`,
        /// `Phil(P0)`, `P ||| Q`; by default the first assertion's
        /// process.
        #[arg(value_name = "PROCESS", allow_hyphen_values = true)]
        process: Option<String>,
        #[arg(long, value_enum, default_value = "plain")]
        format: Format,
        #[command(flatten)]
        limits: limits::SearchLimits,
        /// Also write the LTS as Graphviz DOT (when it has at most 2000
        /// states; otherwise the drawing is skipped, with a note).
        #[arg(long, value_name = "OUT.dot")]
        dot: Option<PathBuf>,
        /// How to compute the states: the supercombinator (fast), or the
        /// whole process as one term (an independent cross-check).
        #[arg(long, value_enum, default_value = "supercombinator")]
        engine: explore::Engine,
        /// Explore representatives of symmetry classes: `auto` (the
        /// largest constant-free subtypes), `off` (the default), or the
        /// types separated by commas (`NodeID, Data`).
        #[arg(
        long,
        value_name = "auto|off|T,U",
        value_parser = values::SymmetryValue { searches: true },
        hide_possible_values = true
    )]
        symmetry: Option<String>,
        /// How representatives are found: `fdr` (the paper's algorithm,
        /// as FDR), `sorted` or `segmented` (Bošnački et al.: families of
        /// components sorted), `flooding` (every image of a new state
        /// marked seen) or `exact` (a canonical form: one representative
        /// per symmetry class).
        #[arg(long, value_name = "STRATEGY", default_value = "fdr", value_parser = values::StrategyValue)]
        strategy: Strategy,
        /// Reduce by partial order: follow, at each state, the moves of
        /// a stubborn set instead of all of them. Every deadlock and
        /// terminated state is still found; the other counts are those
        /// of the reduced state space.
        #[arg(long)]
        por: bool,
        #[command(flatten)]
        cluster: limits::ClusterArgs,
    },
    /// Run a command as the processes of a cluster on this machine, for
    /// a trial: `symcsp cluster --local 3 explore model.csp System`
    /// starts three processes on free local ports, each with `--processes
    /// 3 --process I --hostfile` added, and prints process 0's report.
    Cluster {
        /// How many processes.
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
        local: u16,
        /// The command each process runs (`explore FILE [PROCESS] ...` or
        /// `check FILE ...`).
        #[arg(
            value_name = "COMMAND",
            trailing_var_arg = true,
            allow_hyphen_values = true,
            required = true
        )]
        command: Vec<String>,
    },
    /// Check a script's assertions, as FDR does: Passed or Failed, with a
    /// counterexample (exit 0 all passed, 2 some could not be checked,
    /// else 1 some failed, else 3 some inconclusive). The budget options
    /// bound each assertion's check.
    Check {
        /// The script whose assertions to check (`-` for standard input).
        #[arg(value_name = "FILE")]
        file: PathBuf,
        /// Check only assertion N (numbered from 1, as `symcsp FILE`
        /// lists them); repeat for several.
        #[arg(long = "assert", value_name = "N")]
        assertions: Vec<usize>,
        #[arg(long, value_enum, default_value = "plain")]
        format: Format,
        /// Each verdict with its counterexample in one line, without the
        /// path and the components that moved (plain output).
        #[arg(long)]
        brief: bool,
        #[command(flatten)]
        limits: limits::SearchLimits,
        /// Reduce every check by symmetry: `auto` (the largest
        /// constant-free subtypes), `off` (no reduction, even where an
        /// assertion asks for it), or the types separated by commas
        /// (`NodeID, Data`). Default: as each assertion's
        /// `:[symmetry reduce]` says.
        #[arg(
        long,
        value_name = "auto|off|T,U",
        value_parser = values::SymmetryValue { searches: true },
        hide_possible_values = true
    )]
        symmetry: Option<String>,
        /// How representatives are found: `fdr` (the paper's algorithm,
        /// as FDR), `sorted` or `segmented` (Bošnački et al.: families of
        /// components sorted), `flooding` (every image of a new state
        /// marked seen) or `exact` (a canonical form: one representative
        /// per symmetry class).
        #[arg(long, value_name = "STRATEGY", default_value = "fdr", value_parser = values::StrategyValue)]
        strategy: Strategy,
        /// Partial order reduction for every check (`--por` alone is
        /// `on`), or for none, even where an assertion asks for it with
        /// `:[partial order reduce]` (`off`). Default: as each assertion
        /// says.
        #[arg(long, value_enum, value_name = "on|off", num_args = 0..=1, default_missing_value = "on")]
        por: Option<limits::Switch>,
        #[command(flatten)]
        cluster: limits::ClusterArgs,
    },
    /// Show the representative of a state's symmetry class beside the
    /// state: the permutation, the component bijection, every partition
    /// the representative algorithm built (each split explained) and the
    /// state as a graph (`--format dot` for Graphviz).
    Rep {
        #[command(flatten)]
        state: StateArgs,
        /// `plain`, `json`, or `dot`: the state as a graph for Graphviz;
        /// `markdown`, `latex`, `beamer` or `svg`: the stages, for slides.
        #[arg(long, value_enum, default_value = "plain")]
        format: rep::RepFormat,
        /// Only the algorithm, stage by stage: the partition after step
        /// 1, each round of step 2 with its n-values, each split of step
        /// 3 with its reason, the orderings and the permutation.
        #[arg(long)]
        stages: bool,
        /// Step 3 by hand: the components (numbered from 1, separated by
        /// commas) that step 3's splits split off in turn, instead of
        /// each cell's first member; the representative this choice
        /// gives is shown beside the algorithm's, with the permutation
        /// between them. Each must be a member of the cell its split
        /// splits, one per split at most (exit 2 otherwise).
        #[arg(long, value_name = "N,N", value_delimiter = ',')]
        choose: Vec<usize>,
        /// The exact path to the state, instead of --after: at each state
        /// the move of that number (from 1) as the animator's Events pane
        /// lists them, τ included (what the animator's `E` export
        /// records).
        #[arg(
            long,
            value_name = "N,N",
            value_delimiter = ',',
            conflicts_with = "after"
        )]
        path: Option<Vec<usize>>,
        /// With an export of the stages (markdown, latex, beamer, svg):
        /// only stage K (numbered from 1, as the export numbers them), a
        /// slide; the number after the last stage gives the state beside
        /// its representative, the orderings and the permutation.
        #[arg(long, value_name = "K")]
        stage: Option<usize>,
        /// With an export of the stages: write a file per stage into DIR
        /// (`stage-1.svg`, …), the orderings and the permutation as
        /// `orderings.svg` and the whole as `all.svg`, instead of the
        /// whole to standard output.
        #[arg(long, value_name = "DIR")]
        output: Option<PathBuf>,
    },
    /// Every representative strategy side by side on one assertion (or a
    /// process explored): verdict, states, transitions, time, peak
    /// memory, time per state and duplicates (representatives beyond one
    /// per symmetry class), and with --unreduced the unreduced search
    /// for scale.
    Compare {
        /// The script (`-` for standard input).
        #[arg(value_name = "FILE")]
        file: PathBuf,
        /// A process to explore (any process expression in the script's
        /// scope); by default the first assertion with `:[symmetry
        /// reduce]`'s.
        #[arg(value_name = "PROCESS", allow_hyphen_values = true)]
        process: Option<String>,
        /// Check assertion N (numbered from 1) instead of exploring.
        #[arg(long = "assert", value_name = "N")]
        assertion: Option<usize>,
        /// The strategies to compare, separated by commas.
        #[arg(
            long,
            value_name = "LIST",
            value_delimiter = ',',
            default_value = "fdr,sorted,segmented,flooding,exact",
            value_parser = values::StrategyValue
        )]
        strategies: Vec<Strategy>,
        /// The types to reduce by (`auto`, or types separated by
        /// commas); by default the assertion's, else automatic.
        #[arg(
        long,
        value_name = "auto|T,U",
        value_parser = values::SymmetryValue { searches: false },
        hide_possible_values = true
    )]
        symmetry: Option<String>,
        /// Also run the unreduced search, for scale (it can take far
        /// longer than every strategy together).
        #[arg(long)]
        unreduced: bool,
        /// Also run each search reduced by partial order: `por` (no
        /// symmetry) and `por+` each strategy.
        #[arg(long)]
        por: bool,
        #[arg(long, value_enum, default_value = "plain")]
        format: Format,
        #[command(flatten)]
        limits: limits::SearchLimits,
    },
    /// How far a strategy is from one representative per symmetry class:
    /// after a reduced exploration, each representative in its exact
    /// canonical form; orbits, duplicates, and up to five duplicate pairs
    /// as traces for `symcsp why`.
    Audit {
        /// The script (`-` for standard input).
        #[arg(value_name = "FILE")]
        file: PathBuf,
        /// The process (by default the first assertion with `:[symmetry
        /// reduce]`'s).
        #[arg(value_name = "PROCESS", allow_hyphen_values = true)]
        process: Option<String>,
        /// Audit assertion N's process (numbered from 1), reduced as it
        /// asks.
        #[arg(long = "assert", value_name = "N")]
        assertion: Option<usize>,
        /// The strategy whose representatives are audited.
        #[arg(long, value_name = "STRATEGY", default_value = "fdr", value_parser = values::StrategyValue)]
        strategy: Strategy,
        /// The types to reduce by (`auto`, or types separated by
        /// commas); by default the assertion's, else automatic.
        #[arg(
        long,
        value_name = "auto|T,U",
        value_parser = values::SymmetryValue { searches: false },
        hide_possible_values = true
    )]
        symmetry: Option<String>,
        #[arg(long, value_enum, default_value = "plain")]
        format: Format,
        #[command(flatten)]
        limits: limits::SearchLimits,
    },
    /// Every symmetry symcsp finds in a system: the datatype symmetries
    /// (automatic mode's types) and the structural group — the
    /// communication graph's automorphisms, each validated or refused
    /// with why, the standard patterns (rotation, reflection, swap), the
    /// largest validated group and its orbits.
    Symmetries {
        /// The script (`-` for standard input).
        #[arg(value_name = "FILE")]
        file: PathBuf,
        /// The process (by default the first assertion's).
        #[arg(value_name = "PROCESS", allow_hyphen_values = true)]
        process: Option<String>,
        /// `plain`, `json`, or `dot`: the communication graph for
        /// Graphviz, each orbit in one colour.
        #[arg(long, value_enum, default_value = "plain")]
        format: symmetries::SymmetriesFormat,
        /// Load the script again for each value of a constant (`N=2..8`)
        /// and tabulate which patterns hold.
        #[arg(long, value_name = "NAME=FROM..TO")]
        sweep: Option<String>,
        #[command(flatten)]
        limits: limits::WorkLimits,
    },
    /// Why did two states get different representatives? Compares the
    /// state `--after` leads to with the one `--vs` leads to: the same
    /// representative; not symmetric (with the evidence); symmetric but
    /// not unique (with the permutation and the cause); or undecided
    /// within the budget.
    Why {
        #[command(flatten)]
        state: StateArgs,
        /// The visible events leading to the second state, as `--after`.
        #[arg(long, value_name = "EVENTS", allow_hyphen_values = true)]
        vs: Option<String>,
        /// The most candidates (partners tried, permutations checked) the
        /// search for a permutation may try before answering "undecided".
        #[arg(long, value_name = "N", default_value_t = crate::explain::compare::DEFAULT_CANDIDATES)]
        budget: u64,
        #[arg(long, value_enum, default_value = "plain")]
        format: Format,
    },
    /// Serve an editor over the Language Server Protocol on standard
    /// input and output: diagnostics as you type, types on hover,
    /// definitions, references, rename, completion, and assertions run
    /// from code lenses (docs/editors.md).
    ///
    /// Point the editor's language client at the command `symcsp lsp` for
    /// `.csp` and `.cspm` files (the language id `cspm`); the folder
    /// holding `.git` is a good root. In Neovim 0.11 or later:
    ///
    ///   vim.filetype.add({ extension = { csp = "cspm", cspm = "cspm" } })
    ///   vim.lsp.config("symcsp", { cmd = { "symcsp", "lsp" },
    ///     filetypes = { "cspm" }, root_markers = { ".git" } })
    ///   vim.lsp.enable("symcsp")
    ///
    /// Each assertion gets a code lens that checks it (the commands
    /// `symcsp.check URI N`, `symcsp.cancel URI N TEXT` and
    /// `symcsp.animate URI N TEXT PROCESS TRACE`, which a client may bind
    /// to keys); `vim.lsp.codelens.refresh()` shows them and
    /// `vim.lsp.codelens.run()` runs the one under the cursor. Other
    /// editors: any client that starts a command over standard input and
    /// output.
    #[command(
        verbatim_doc_comment,
        about = "Serve an editor over the Language Server Protocol on standard input and \
                 output: diagnostics as you type, types on hover, definitions, references, \
                 rename, completion, and assertions run from code lenses (docs/editors.md)"
    )]
    Lsp,
    /// Print a shell's completion script for symcsp (`symcsp completions
    /// bash > ~/.local/share/bash-completion/completions/symcsp`).
    Completions {
        #[arg(value_enum)]
        shell: completions::Shell,
    },
    /// Print symcsp's manual page, in roff (`symcsp man > symcsp.1`), or
    /// a command's, with its options (`symcsp man check >
    /// symcsp-check.1`).
    Man {
        /// The command whose page to print (`check`, `explore`, ...).
        #[arg(value_name = "COMMAND")]
        command: Option<String>,
    },
}

/// The state a command shows: the script, the process, its types and
/// the trace that leads there (`rep` and `why`).
#[derive(clap::Args, Debug)]
pub(super) struct StateArgs {
    /// The script whose names the process may use (`-` for standard
    /// input).
    #[arg(value_name = "FILE")]
    pub(super) file: PathBuf,
    /// Any process expression in the script's scope; by default the
    /// process of the first assertion with `:[symmetry reduce]`.
    #[arg(value_name = "PROCESS", allow_hyphen_values = true)]
    pub(super) process: Option<String>,
    /// The visible events to perform first, separated by commas
    /// (`"push.T0.A, pop.T1.A"`); τ steps are taken as needed. Default:
    /// none (the initial state).
    #[arg(long, value_name = "EVENTS", allow_hyphen_values = true)]
    pub(super) after: Option<String>,
    /// `auto` (the largest constant-free subtypes), or the types,
    /// separated by commas (`NodeID, Data`). By default those of the
    /// assertion, or `auto`.
    #[arg(
        long,
        value_name = "auto|T,U",
        value_parser = values::SymmetryValue { searches: false },
        hide_possible_values = true
    )]
    pub(super) symmetry: Option<String>,
    /// Whose representative to show: `fdr` (the paper's algorithm, the
    /// default), `sorted`, `segmented`, `flooding` or `exact` (as `symcsp
    /// check --strategy`).
    #[arg(long, value_name = "STRATEGY", default_value = "fdr", value_parser = values::StrategyValue)]
    pub(super) strategy: Strategy,
}
