//! The `symcsp` binary: only the command-line entry point, and the
//! allocator that counts what the heap holds, which the memory budget
//! reads (`budget::alloc`).

#[global_allocator]
static ALLOCATOR: symcsp::budget::alloc::Counting = symcsp::budget::alloc::Counting;

fn main() -> std::process::ExitCode {
    symcsp::budget::alloc::installed();
    symcsp::cli::main()
}
