//! Running deeply recursive work (parsing, and later evaluation) on a
//! thread whose stack is large enough for every input the depth limits
//! admit, so that no input can overflow the caller's stack.

/// Stack size for recursive work: generous, and only touched as used.
pub const LARGE_STACK: usize = 512 * 1024 * 1024;

/// Runs `f` on a scoped thread with a [`LARGE_STACK`] and returns its
/// result; a panic in `f` is resumed in the caller.
pub fn with_large_stack<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|scope| {
        let handle = std::thread::Builder::new()
            .name("symcsp-deep".into())
            .stack_size(LARGE_STACK)
            .spawn_scoped(scope, f)
            .expect("the system can start a thread");
        match handle.join() {
            Ok(value) => value,
            Err(panic) => std::panic::resume_unwind(panic),
        }
    })
}
