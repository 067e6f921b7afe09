//! The command line: `symcsp [FILE]`, `symcsp parse ...` and friends. It
//! reads arguments, runs each command's job on the library (some jobs
//! are the command's own: `compare` sets every strategy against the
//! unreduced search, `audit` counts orbits) and prints the outcome. Exit codes follow DESIGN.md: 0 success, 1 a failed
//! assertion, 2 a usage, parse, type or evaluation error, 3 inconclusive
//! (a budget, the time-out or a cancel stopped the work); where several
//! apply, 2 before 1 before 3.

mod animate;
mod args;
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
use std::process::ExitCode;

use clap::error::ErrorKind;
use clap::parser::ValueSource;
use clap::{ArgMatches, CommandFactory, FromArgMatches};

use crate::budget::{Budget, Stopped};
use crate::check::wording::{Reader, stopped_by};
use args::{Cli, Command};

/// Exit code for input the user must fix (usage, syntax, evaluation).
pub const EXIT_INPUT_ERROR: u8 = 2;
/// Exit code when a budget stopped the work before it could answer.
pub const EXIT_INCONCLUSIVE: u8 = 3;

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
            brief,
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
                brief,
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
