//! The command line: `symcsp [FILE]`, `symcsp parse ...` and friends. It
//! reads arguments, runs each command's job on the library (some jobs
//! are the command's own: `compare` sets every strategy against the
//! unreduced search, `audit` counts orbits) and prints the outcome. Exit codes follow DESIGN.md: 0 success, 1 a failed
//! assertion, 2 a usage, parse, type or evaluation error, 3 inconclusive
//! (a budget, the time-out or a cancel stopped the work); where several
//! apply, 2 before 1 before 3.

mod animate;
mod audit;
mod check;
mod cluster;
mod compare;
mod completions;
mod eval;
mod explore;
mod json;
mod limits;
mod man;
mod parse;
mod progress;
mod reach;
mod rep;
mod summary;
mod symmetries;
mod symmetry;
mod types;
mod values;
mod why;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::error::ErrorKind;
use clap::parser::ValueSource;
use clap::{ArgMatches, CommandFactory, FromArgMatches, Parser, Subcommand};

use crate::budget::{Budget, Stopped};
use crate::check::wording::{Reader, stopped_by};
use crate::symmetry::strategy::Strategy;

/// Exit code for input the user must fix (usage, syntax, evaluation).
pub const EXIT_INPUT_ERROR: u8 = 2;
/// Exit code when a budget stopped the work before it could answer.
pub const EXIT_INCONCLUSIVE: u8 = 3;

#[derive(Parser, Debug)]
#[command(
    name = "symcsp",
    version,
    about = "Animator, state-space explorer and refinement checker for CSPM, built around symmetry reduction"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// A script to open in the animator (without a command); without
    /// one, the built-in model. When output is not a terminal, the script
    /// is described instead.
    #[arg(value_name = "FILE")]
    file: Option<PathBuf>,
    /// The process to animate first (any process expression in the
    /// script's scope); by default the first assertion's process.
    #[arg(long, value_name = "EXPR", allow_hyphen_values = true)]
    process: Option<String>,
    /// Show every error of a script that does not load, not only the
    /// first 20 (FDR's front end stops after about twenty).
    #[arg(long, global = true)]
    all_errors: bool,
    /// Reopen a session saved from the animator (model, process, trace).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["file", "process"])]
    session: Option<PathBuf>,
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
    symmetry: Option<String>,
    /// How the symmetry view and the reduced walk find representatives:
    /// `fdr`, `sorted`, `segmented`, `flooding` or `exact` (as `symcsp
    /// check --strategy`); the view's key cycles them.
    #[arg(long, value_name = "STRATEGY", default_value = "fdr", value_parser = values::StrategyValue)]
    strategy: Strategy,
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
    after: Option<String>,
    #[command(flatten)]
    limits: limits::AnimatorLimits,
}

#[derive(Subcommand, Debug)]
enum Command {
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
struct StateArgs {
    /// The script whose names the process may use (`-` for standard
    /// input).
    #[arg(value_name = "FILE")]
    file: PathBuf,
    /// Any process expression in the script's scope; by default the
    /// process of the first assertion with `:[symmetry reduce]`.
    #[arg(value_name = "PROCESS", allow_hyphen_values = true)]
    process: Option<String>,
    /// The visible events to perform first, separated by commas
    /// (`"push.T0.A, pop.T1.A"`); τ steps are taken as needed. Default:
    /// none (the initial state).
    #[arg(long, value_name = "EVENTS", allow_hyphen_values = true)]
    after: Option<String>,
    /// `auto` (the largest constant-free subtypes), or the types,
    /// separated by commas (`NodeID, Data`). By default those of the
    /// assertion, or `auto`.
    #[arg(
        long,
        value_name = "auto|T,U",
        value_parser = values::SymmetryValue { searches: false },
        hide_possible_values = true
    )]
    symmetry: Option<String>,
    /// Whose representative to show: `fdr` (the paper's algorithm, the
    /// default), `sorted`, `segmented`, `flooding` or `exact` (as `symcsp
    /// check --strategy`).
    #[arg(long, value_name = "STRATEGY", default_value = "fdr", value_parser = values::StrategyValue)]
    strategy: Strategy,
}

/// Runs the command line with the process's arguments.
pub fn main() -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    // Built once: parsing and both refusals read it.
    let mut command = Cli::command();
    if let Some(e) = mistyped_command(&args, &mut command) {
        let _ = e.print();
        return ExitCode::from(EXIT_INPUT_ERROR);
    }
    let parsed = command.try_get_matches_from_mut(&args).and_then(|matches| {
        refuse_animator_options_before_a_command(&matches, &mut command)?;
        Cli::from_arg_matches(&matches)
    });
    let cli = match parsed {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(EXIT_INPUT_ERROR)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    crate::syntax::show_all_errors(cli.all_errors);
    // Unlocked handles: library code running on other threads may report too.
    let mut out = std::io::stdout();
    let mut err = std::io::stderr();
    let code = match cli.command {
        Some(command) => run_command(command, &mut out, &mut err),
        None => {
            let request = animate::Request {
                file: cli.file.as_deref(),
                process: cli.process,
                session: cli.session.as_deref(),
                symmetry: cli.symmetry,
                strategy: cli.strategy,
                after: cli.after,
            };
            animate::run(request, &cli.limits, &mut out, &mut err)
        }
    };
    let _ = out.flush();
    ExitCode::from(code)
}

/// Runs a command (not the animator); its exit code.
fn run_command(command: Command, out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    match command {
        Command::Parse { files, print } => parse::run(&files, print, out, err),
        Command::Eval { file, expr, limits } => {
            eval::run(&file, expr.as_deref(), &limits, out, err)
        }
        Command::Type { file, what } => types::run(&file, what.as_deref(), out, err),
        Command::Explore {
            file,
            process,
            format,
            limits,
            dot,
            engine,
            symmetry,
            strategy,
            por,
            cluster,
        } => {
            let request = explore::Request {
                file: &file,
                process: process.as_deref(),
                format,
                engine,
                limits: &limits,
                dot: dot.as_deref(),
                symmetry: symmetry.as_deref(),
                strategy,
                por,
                cluster: &cluster,
            };
            if cluster.asked() {
                cluster::run(&request, out, err)
            } else {
                explore::run(&request, out, err)
            }
        }
        Command::Cluster { local, command } => cluster::run_local(local, &command, out, err),
        Command::Check {
            file,
            assertions,
            format,
            limits,
            symmetry,
            strategy,
            por,
            cluster,
        } => {
            let request = check::Request {
                file: &file,
                assertions: &assertions,
                format,
                limits: &limits,
                symmetry: symmetry.as_deref(),
                strategy,
                por: por.map(limits::Switch::is_on),
                cluster: &cluster,
            };
            check::run(&request, out, err)
        }
        Command::Lsp => match crate::lsp::serve_stdio() {
            Ok(()) => 0,
            Err(message) => {
                let _ = writeln!(err, "error: {message}");
                1
            }
        },
        Command::Completions { shell } => {
            completions::run(shell, out);
            0
        }
        Command::Man { command } => man::run(command.as_deref(), out, err),
        symmetry @ (Command::Rep { .. }
        | Command::Why { .. }
        | Command::Compare { .. }
        | Command::Symmetries { .. }
        | Command::Audit { .. }) => run_symmetry_command(symmetry, out, err),
    }
}

/// Runs one of the commands about a script's symmetry: `rep`, `why`,
/// `compare`, `symmetries`, `audit`; its exit code.
fn run_symmetry_command(command: Command, out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    match command {
        Command::Rep {
            state,
            format,
            stages,
            choose,
            path,
            stage,
            output,
        } => {
            let request = rep::Request {
                path: path.as_deref(),
                stages,
                stage,
                output: output.as_deref(),
                file: &state.file,
                process: state.process.as_deref(),
                after: state.after.as_deref(),
                symmetry: state.symmetry.as_deref(),
                strategy: state.strategy,
                format,
                choose: &choose,
            };
            rep::run(&request, out, err)
        }
        Command::Why {
            state,
            vs,
            budget,
            format,
        } => {
            let request = why::Request {
                file: &state.file,
                process: state.process.as_deref(),
                after: state.after.as_deref(),
                vs: vs.as_deref(),
                symmetry: state.symmetry.as_deref(),
                strategy: state.strategy,
                budget,
                format,
            };
            why::run(&request, out, err)
        }
        Command::Compare {
            file,
            process,
            assertion,
            strategies,
            symmetry,
            unreduced,
            por,
            format,
            limits,
        } => {
            // Each once, in the order given.
            let mut once = Vec::new();
            for strategy in strategies {
                if !once.contains(&strategy) {
                    once.push(strategy);
                }
            }
            let strategies = once;
            let request = compare::Request {
                file: &file,
                process: process.as_deref(),
                assertion,
                strategies: &strategies,
                symmetry: symmetry.as_deref(),
                unreduced,
                por,
                format,
                limits: &limits,
            };
            compare::run(&request, out, err)
        }
        Command::Symmetries {
            file,
            process,
            format,
            sweep,
            limits,
        } => {
            let request = symmetries::Request {
                file: &file,
                process: process.as_deref(),
                format,
                sweep: sweep.as_deref(),
                budget: limits.budget().started(),
            };
            symmetries::run(&request, out, err)
        }
        Command::Audit {
            file,
            process,
            assertion,
            strategy,
            symmetry,
            format,
            limits,
        } => {
            let request = audit::Request {
                file: &file,
                process: process.as_deref(),
                assertion,
                strategy,
                symmetry: symmetry.as_deref(),
                format,
                limits: &limits,
            };
            audit::run(&request, out, err)
        }
        // The others are run_command's own.
        other => run_command(other, out, err),
    }
}

/// A command's name mistyped (`symcsp chek FILE`): clap would read it as
/// the animator's script and then refuse what follows as an unexpected
/// argument, naming neither. The first argument that is no option's
/// value, when it is no command and no file but close to a command's
/// name, is refused as that.
fn mistyped_command(args: &[std::ffi::OsString], cli: &mut clap::Command) -> Option<clap::Error> {
    let mut rest = args.iter().skip(1);
    let first = loop {
        let arg = rest.next()?.to_str()?;
        if arg == "--" {
            // What follows is a file, whatever it is called.
            return None;
        }
        if let Some(long) = arg.strip_prefix("--") {
            let takes_value = cli
                .get_arguments()
                .any(|a| a.get_long() == Some(long) && a.get_action().takes_values());
            if takes_value {
                rest.next();
            }
        } else if !arg.starts_with('-') {
            break arg;
        }
    };
    if std::path::Path::new(first).exists() || cli.find_subcommand(first).is_some() {
        return None;
    }
    let names: Vec<String> = cli
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .collect();
    let closest = crate::script::suggest::Suggester::default()
        .closest(first, names.iter().map(String::as_str))?
        .to_string();
    Some(cli.error(
        ErrorKind::InvalidSubcommand,
        format!("`{first}` is neither a command nor a file: did you mean `symcsp {closest}`?"),
    ))
}

/// The animator's options (`--symmetry`, `--max-states`, ...) given
/// before a command's name would be left unused, as clap reads them as
/// the animator's: `symcsp --symmetry off explore FILE` would explore
/// with symmetry as the script asks. Refused, saying where they go.
fn refuse_animator_options_before_a_command(
    matches: &ArgMatches,
    cli: &mut clap::Command,
) -> Result<(), clap::Error> {
    let Some(name) = matches.subcommand_name() else {
        return Ok(());
    };
    let message = {
        let given: Vec<&str> = cli
            .get_arguments()
            .filter(|a| matches.value_source(a.get_id().as_str()) == Some(ValueSource::CommandLine))
            // A global option belongs to every command, wherever it stands.
            .filter(|a| !a.is_global_set())
            .filter_map(|a| a.get_long())
            .collect();
        if given.is_empty() {
            return Ok(());
        }
        // Where the command takes an option of the same name, say to
        // move it; where it does not, say whose option it is.
        let command = cli.find_subcommand(name).expect("a parsed subcommand");
        let (moved, animator_only): (Vec<&str>, Vec<&str>) = given
            .iter()
            .partition(|&&long| command.get_arguments().any(|a| a.get_long() == Some(long)));
        let listed = |longs: &[&str]| {
            let longs: Vec<String> = longs.iter().map(|long| format!("--{long}")).collect();
            longs.join(", ")
        };
        let mut message = format!(
            "{} before `{name}` {} the animator's (`symcsp [OPTIONS] [FILE]`)",
            listed(&given),
            if given.len() == 1 { "is" } else { "are" },
        );
        if let Some(first) = moved.first() {
            message.push_str(&format!(
                "; a command's options go after its name: `symcsp {name} --{first} ...`"
            ));
        }
        if !animator_only.is_empty() {
            message.push_str(&format!("; `{name}` takes no {}", listed(&animator_only)));
        }
        message + &format!(" (see `symcsp {name} --help`)")
    };
    Err(cli.error(ErrorKind::ArgumentConflict, message))
}

/// How a command prints its outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Text for a person.
    Plain,
    /// One JSON object, for programs.
    Json,
}

/// Loads (parses, resolves and type-checks) the script at `file` within
/// `budget`, or reports why not and gives the exit code: 2 for an error
/// in the script, 3 when the budget stopped loading first.
fn load(
    file: &std::path::Path,
    budget: &Budget,
    err: &mut dyn Write,
) -> Result<crate::types::Loaded, u8> {
    load_as(file, Format::Plain, budget, &mut std::io::sink(), err)
}

/// [`load`], with `--format json` also as a JSON object on stdout.
/// Loads `file` for a command that searches within `limits`, once the
/// spill folder `--spill-dir` names, if any, is found fit to write to:
/// an error naming it otherwise, before any work.
fn load_for_search(
    file: &std::path::Path,
    format: Format,
    limits: &limits::SearchLimits,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<crate::types::Loaded, u8> {
    if let Err(problem) = limits.disk.spill() {
        let problem = format!("error: {problem}\n");
        return Err(fail_with(format, file, &problem, out, err));
    }
    load_as(file, format, &limits.budget(), out, err)
}

fn load_as(
    file: &std::path::Path,
    format: Format,
    budget: &Budget,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<crate::types::Loaded, u8> {
    let e = match crate::types::load_file_within(file, &budget.meter()) {
        Ok(loaded) => return Ok(loaded),
        Err(e) => e,
    };
    let errors: Vec<_> = e
        .diagnostics
        .iter()
        .map(|d| json::JsonDiagnostic::new(d, &e.sources))
        .collect();
    match e.stopped {
        // Errors found before the stop are errors all the same.
        Some(stopped) if errors.is_empty() => Err(stopped_before(
            (format, file),
            "the script was not loaded",
            (stopped.reason, budget.max_states),
            stopped.stage.describe(),
            out,
            err,
        )),
        _ => Err(fail(format, file, errors, &e.render(), out, err)),
    }
}

/// Reports work a budget stopped before it had anything to report —
/// `FILE: the script was not loaded: stopped by the time-out (--timeout)
/// while parsing the script` on stderr, and with `--format json` a
/// [`json::JsonStopped`] on stdout — and gives the exit code, 3.
fn stopped_before(
    (format, file): (Format, &std::path::Path),
    what: &str,
    (reason, max_states): (Stopped, Option<usize>),
    stage: &str,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> u8 {
    let name = crate::syntax::display_name(file);
    say(
        err,
        &format!(
            "{name}: {what}: {} while {stage}\n",
            stopped_by(reason, max_states, Reader::CommandLine)
        ),
    );
    if format == Format::Json {
        json::JsonStopped {
            file: name,
            result: "Inconclusive",
            stopped: reason.reason(),
            stage: stage.to_string(),
        }
        .print(out);
    }
    EXIT_INCONCLUSIVE
}

/// Reports what stops a command before it can start: the rendered text
/// on stderr, and with `--format json` the errors as one JSON object on
/// stdout too. Returns the exit code, 2.
fn fail(
    format: Format,
    file: &std::path::Path,
    errors: Vec<json::JsonDiagnostic>,
    rendered: &str,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> u8 {
    say(err, rendered);
    if format == Format::Json {
        json::JsonFailure {
            file: crate::syntax::display_name(file),
            errors,
        }
        .print(out);
    }
    EXIT_INPUT_ERROR
}

/// [`fail`] for a problem known only as text (a bad option).
fn fail_with(
    format: Format,
    file: &std::path::Path,
    problem: &str,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> u8 {
    let errors = vec![json::JsonDiagnostic::nowhere(problem)];
    fail(format, file, errors, problem, out, err)
}

/// [`fail`] for diagnostics about the script's text.
fn fail_at(
    format: Format,
    file: &std::path::Path,
    diagnostics: &[crate::syntax::Diagnostic],
    sources: &crate::syntax::SourceMap,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> u8 {
    let errors = diagnostics
        .iter()
        .map(|d| json::JsonDiagnostic::new(d, sources))
        .collect();
    let rendered = crate::syntax::render_all(diagnostics, sources);
    fail(format, file, errors, &rendered, out, err)
}

/// `1 state`, `2 states`: a count with its noun, in the plural unless
/// it is one (nouns whose plural is not `s` give it after a `|`:
/// `plural(n, "class|classes")`).
pub(crate) fn plural(n: usize, noun: &str) -> String {
    let (one, many) = match noun.split_once('|') {
        Some((one, many)) => (one.to_string(), many.to_string()),
        None => (noun.to_string(), format!("{noun}s")),
    };
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Writes a line, ignoring a closed pipe (`symcsp parse ... | head`).
fn say(w: &mut dyn Write, text: &str) {
    let _ = w.write_all(text.as_bytes());
}
