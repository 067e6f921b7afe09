//! The command line: `symcsp [FILE]`, `symcsp parse ...` and friends. A thin client of the
//! library: it reads arguments, calls one library function per command and
//! prints the outcome. Exit codes follow DESIGN.md: 0 success, 2 a usage,
//! parse, type or evaluation error.

mod eval;
mod parse;
mod summary;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Exit code for input the user must fix (usage, syntax, evaluation).
pub const EXIT_INPUT_ERROR: u8 = 2;

#[derive(Parser, Debug)]
#[command(
    name = "symcsp",
    version,
    about = "Animator, state-space explorer and refinement checker for CSPM, built around symmetry reduction"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// A script to describe (without a command). Without one, the built-in
    /// model is described.
    #[arg(value_name = "FILE")]
    file: Option<PathBuf>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Parse CSPM scripts and report syntax errors.
    Parse {
        /// The scripts to parse.
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
        /// none).
        #[arg(value_name = "FILE")]
        file: PathBuf,
        /// The expression to evaluate.
        #[arg(value_name = "EXPR", allow_hyphen_values = true)]
        expr: Option<String>,
    },
}

/// Runs the command line with the process's arguments.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
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
    // Unlocked handles: library code running on other threads may report too.
    let mut out = std::io::stdout();
    let mut err = std::io::stderr();
    let code = match cli.command {
        Some(Command::Parse { files, print }) => parse::run(&files, print, &mut out, &mut err),
        Some(Command::Eval { file, expr }) => eval::run(&file, expr.as_deref(), &mut out, &mut err),
        None => summary::run(cli.file.as_deref(), &mut out, &mut err),
    };
    let _ = out.flush();
    ExitCode::from(code)
}

/// Writes a line, ignoring a closed pipe (`symcsp parse ... | head`).
fn say(w: &mut dyn Write, text: &str) {
    let _ = w.write_all(text.as_bytes());
}
