//! The `symcsp` binary: only the command-line entry point.

fn main() -> std::process::ExitCode {
    symcsp::cli::main()
}
