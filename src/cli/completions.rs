//! `symcsp completions SHELL`: the shell's completion script for symcsp,
//! every command and option, the values of enumerated options, the
//! strategies and `--symmetry`'s words among them.

use std::io::Write;

use clap::CommandFactory;
use clap_complete::Generator;

use super::Cli;

/// The shells a completion script is written for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Shell {
    Bash,
    Elvish,
    Fish,
    Nushell,
    Powershell,
    Zsh,
}

/// Writes `shell`'s script on `out`.
pub fn run(shell: Shell, out: &mut dyn Write) {
    let generator: &dyn Generator = match shell {
        Shell::Bash => &clap_complete::Shell::Bash,
        Shell::Elvish => &clap_complete::Shell::Elvish,
        Shell::Fish => &clap_complete::Shell::Fish,
        Shell::Nushell => &clap_complete_nushell::Nushell,
        Shell::Powershell => &clap_complete::Shell::PowerShell,
        Shell::Zsh => &clap_complete::Shell::Zsh,
    };
    let mut command = Cli::command();
    command.set_bin_name("symcsp");
    command.build();
    generator.generate(&command, out);
}
