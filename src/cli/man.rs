//! `symcsp man [COMMAND]`: the manual page of symcsp or of one command,
//! in roff — clap's sections (name, synopsis, description, options) with
//! what clap does not know: the exit status the command gives and the
//! environment it reads.

use std::io::Write;

use clap::CommandFactory;

use super::{Cli, EXIT_INCONCLUSIVE, EXIT_INPUT_ERROR};

/// Prints the page of `command` (symcsp's own when `None`); its exit
/// code.
pub fn run(command: Option<&str>, out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    let mut whole = Cli::command();
    // Built, each command holds the global options (`--all-errors`).
    whole.build();
    let page = match command {
        None => whole,
        Some(name) => match whole.find_subcommand(name) {
            // Named as the main page's list of commands names it.
            Some(sub) => sub
                .clone()
                .display_name(format!("symcsp-{name}"))
                .bin_name(format!("symcsp {name}")),
            None => {
                let names: Vec<&str> = whole
                    .get_subcommands()
                    .map(clap::Command::get_name)
                    .filter(|&n| n != "help")
                    .collect();
                let _ = writeln!(
                    err,
                    "error: symcsp has no command `{name}`: its commands are {}",
                    names.join(", ")
                );
                return EXIT_INPUT_ERROR;
            }
        },
    };
    match render(&page, command, out) {
        Ok(()) => 0,
        Err(e) => {
            let _ = writeln!(err, "error: cannot write the manual page: {e}");
            1
        }
    }
}

fn render(page: &clap::Command, command: Option<&str>, out: &mut dyn Write) -> std::io::Result<()> {
    let mut clap_page = Vec::new();
    clap_mangen::Man::new(page.clone()).render(&mut clap_page)?;
    let clap_page = with_synopsis(&String::from_utf8_lossy(&clap_page), page);
    let mut ours = Vec::new();
    section(&mut ours, "EXIT STATUS", &exit_status(page, command))?;
    if matches!(command, None | Some("check" | "cluster")) {
        writeln!(ours, ".PP\n{}", escaped(PRECEDENCE))?;
    }
    let environment = environment(command);
    if !environment.is_empty() {
        section(&mut ours, "ENVIRONMENT", &environment)?;
    }
    // Before the version and authors, as manual pages order them.
    let at = [".SH VERSION", ".SH AUTHORS"]
        .iter()
        .filter_map(|heading| clap_page.find(&format!("\n{heading}")).map(|i| i + 1))
        .min()
        .unwrap_or(clap_page.len());
    out.write_all(&clap_page.as_bytes()[..at])?;
    if !clap_page[..at].ends_with('\n') {
        writeln!(out)?;
    }
    out.write_all(&ours)?;
    out.write_all(&clap_page.as_bytes()[at..])
}

/// `clap_page` with a synopsis that gives each option its value
/// (`[--timeout SECS]`): clap's names the options alone.
fn with_synopsis(clap_page: &str, page: &clap::Command) -> String {
    let heading = ".SH SYNOPSIS\n";
    let Some(start) = clap_page.find(heading).map(|i| i + heading.len()) else {
        return clap_page.to_string();
    };
    let end = clap_page[start..]
        .find("\n.SH ")
        .map_or(clap_page.len(), |i| start + i + 1);
    format!(
        "{}{}\n{}",
        &clap_page[..start],
        synopsis(page),
        &clap_page[end..]
    )
}

/// The synopsis line of `page`, in roff: its name, each option with its
/// values (`...` where it repeats), the subcommand or the arguments.
/// `page` is built ([`run`] builds the whole command), so clap has
/// settled how many values each option takes.
fn synopsis(page: &clap::Command) -> String {
    let bold = |text: &str| format!("\\fB{}\\fR", escaped(text));
    let italic = |text: &str| format!("\\fI{}\\fR", escaped(text));
    let name = page.get_bin_name().unwrap_or_else(|| page.get_name());
    let mut words = vec![bold(name)];
    for arg in page
        .get_arguments()
        .filter(|a| !a.is_hide_set() && !a.is_positional())
    {
        let flag = match (arg.get_short(), arg.get_long()) {
            (Some(short), Some(long)) => format!(
                "{}|{}",
                bold(&format!("-{short}")),
                bold(&format!("--{long}"))
            ),
            (None, Some(long)) => bold(&format!("--{long}")),
            (Some(short), None) => bold(&format!("-{short}")),
            (None, None) => continue,
        };
        let takes = arg.get_action().takes_values();
        let value = match arg.get_value_names() {
            Some(names) if takes => {
                let names: Vec<String> = names.iter().map(|n| italic(n)).collect();
                let optional = arg.get_num_args().is_some_and(|n| n.min_values() == 0);
                match optional {
                    true => format!(" [{}]", names.join(" ")),
                    false => format!(" {}", names.join(" ")),
                }
            }
            None if takes => format!(" {}", italic(&arg.get_id().to_string().to_uppercase())),
            _ => String::new(),
        };
        let repeats = matches!(
            arg.get_action(),
            clap::ArgAction::Append | clap::ArgAction::Count
        );
        words.push(format!(
            "[{flag}{value}]{}",
            if repeats { "..." } else { "" }
        ));
    }
    for arg in page.get_positionals().filter(|a| !a.is_hide_set()) {
        let names: Vec<String> = arg
            .get_value_names()
            .map(|names| names.iter().map(|n| italic(n)).collect())
            .unwrap_or_else(|| vec![italic(&arg.get_id().to_string().to_uppercase())]);
        let text = names.join(" ");
        words.push(match arg.is_required_set() {
            true => text,
            false => format!("[{text}]"),
        });
    }
    if page.has_subcommands() {
        words.push(format!("[{}]", italic("COMMAND")));
    }
    words.join(" ")
}

/// What each exit code of `command` means. Every command that takes a
/// budget (`--timeout`) may stop on it; `check` (and `cluster`, which
/// runs it) says a failed assertion with its own code.
fn exit_status(page: &clap::Command, command: Option<&str>) -> Vec<(String, String)> {
    let mut codes = Vec::new();
    let success = match command {
        None => "the animator was left normally, or the command succeeded",
        Some("check" | "cluster") => "every assertion checked passed, or there was none to check",
        Some("parse") => "every file parses",
        Some(_) => "the command did its work",
    };
    codes.push(("0".to_string(), success.to_string()));
    let checks = matches!(command, None | Some("check" | "cluster"));
    if checks {
        codes.push((
            "1".to_string(),
            format!(
                "an assertion failed{}, and every assertion could be checked",
                if command.is_none() { " (`check`)" } else { "" }
            ),
        ));
    } else if command == Some("lsp") {
        codes.push((
            "1".to_string(),
            "the connection to the editor failed (standard input or output)".to_string(),
        ));
    } else if command == Some("man") {
        codes.push(("1".to_string(), "the page could not be written".to_string()));
    }
    let mut input = "an error the user must fix: usage, a file that cannot be read, a syntax, \
                     name, type or evaluation error, a symmetry that cannot be applied"
        .to_string();
    if checks {
        input.push_str(", or an assertion that could not be checked");
    }
    codes.push((EXIT_INPUT_ERROR.to_string(), input));
    let budgeted = command.is_none()
        || page
            .get_arguments()
            .any(|a| a.get_long() == Some("timeout"));
    if budgeted {
        codes.push((
            EXIT_INCONCLUSIVE.to_string(),
            "a budget (`--timeout`, `--max-states`, `--max-memory`) or a cancel stopped the \
             work before it answered: inconclusive"
                .to_string(),
        ));
    }
    codes
}

/// What the exit status section says after the codes.
const PRECEDENCE: &str = "Where several apply, 2 comes before 1 and 1 before 3: an error is \
                          never hidden behind a failure, nor a failure behind a stop.";

/// The environment variables `command` reads, with what each does.
fn environment(command: Option<&str>) -> Vec<(String, String)> {
    let mut read = Vec::new();
    if command.is_none() {
        read.push((
            "SYMCSP_CONFIG_DIR",
            "the animator's configuration directory (its keys and colours); else symcsp in \
             the user's configuration directory",
        ));
        read.push((
            "SYMCSP_STATE_DIR",
            "where the animator keeps its sessions; else symcsp in the user's state directory",
        ));
        read.push((
            "NO_COLOR",
            "when set and not empty, the animator shows no colour",
        ));
    }
    if matches!(command, None | Some("explore" | "check" | "cluster")) {
        read.push((
            "SYMCSP_PHASES",
            "when set, a search prints the wall time of each of its steps on stderr, a line \
             per thread or worker",
        ));
    }
    read.into_iter()
        .map(|(name, what)| (name.to_string(), what.to_string()))
        .collect()
}

/// A section of tagged paragraphs, in roff.
fn section(out: &mut dyn Write, title: &str, items: &[(String, String)]) -> std::io::Result<()> {
    writeln!(out, ".SH \"{title}\"")?;
    for (tag, text) in items {
        writeln!(out, ".TP")?;
        writeln!(out, "\\fB{}\\fR", escaped(tag))?;
        writeln!(out, "{}", escaped(text))?;
    }
    Ok(())
}

/// `text` safe as a line of roff: backslashes doubled, and a line that
/// would begin with a control character begun with a zero-width one.
fn escaped(text: &str) -> String {
    let text = text.replace('\\', "\\e").replace('-', "\\-");
    if text.starts_with(['.', '\'']) {
        format!("\\&{text}")
    } else {
        text
    }
}
