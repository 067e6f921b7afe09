//! The real binary in a pseudo-terminal: keys typed as a user types
//! them, the screen read back through a terminal emulator.

mod pty;

use std::io::Write;
use std::time::{Duration, Instant};

use portable_pty::CommandBuilder;
use pty::{PATIENCE, Pty};

struct Session {
    pty: Pty,
}

impl Session {
    fn start(args: &[&str], config_dir: &std::path::Path) -> Session {
        Session::start_sized(args, config_dir, (140, 40))
    }

    /// [`Session::start`] in a terminal `cols` × `rows`.
    fn start_sized(
        args: &[&str],
        config_dir: &std::path::Path,
        (cols, rows): (u16, u16),
    ) -> Session {
        let mut command = CommandBuilder::new(env!("CARGO_BIN_EXE_symcsp"));
        command.args(args);
        command.cwd(env!("CARGO_MANIFEST_DIR"));
        command.env("TERM", "xterm-256color");
        command.env("SYMCSP_CONFIG_DIR", config_dir);
        // Walks kept on quitting go there too, not to the user's home.
        command.env("SYMCSP_STATE_DIR", config_dir.join("state"));
        Session {
            pty: Pty::spawn(command, (cols, rows)),
        }
    }

    fn text(&self) -> String {
        self.pty.text()
    }

    fn wait_for(&self, what: &str) -> String {
        self.pty.wait_for(what)
    }

    /// How the program ended, once it has (within [`PATIENCE`]).
    fn exit(&mut self) -> portable_pty::ExitStatus {
        self.pty.exit()
    }

    /// Stops an animator left open (a check still on its screen).
    fn kill(&mut self) {
        (self.pty.child.as_mut().kill()).expect("the animator can be stopped");
    }

    /// Waits for the terminal to be handed back: the alternate screen
    /// left.
    fn wait_for_main_screen(&self) {
        let deadline = Instant::now() + PATIENCE;
        while self.pty.screen.lock().unwrap().screen().alternate_screen() {
            assert!(Instant::now() < deadline, "the alternate screen stayed");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Waits for `text` on the screen, lines wrapped anywhere (white
    /// space is ignored).
    fn wait_for_wrapped(&self, text: &str) {
        let squeezed = |text: &str| text.split_whitespace().collect::<String>();
        let wanted = squeezed(text);
        let deadline = Instant::now() + PATIENCE;
        while !squeezed(&self.text()).contains(&wanted) {
            assert!(Instant::now() < deadline, "no `{text}`: {}", self.text());
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// A key that the terminal sends as several bytes (an arrow), in
    /// one write, as a terminal sends it.
    fn sequence(&mut self, bytes: &str) {
        self.pty.writer.write_all(bytes.as_bytes()).unwrap();
        self.pty.writer.flush().unwrap();
        std::thread::sleep(Duration::from_millis(40));
    }

    fn keys(&mut self, keys: &str) {
        for c in keys.chars() {
            self.pty.writer.write_all(c.to_string().as_bytes()).unwrap();
            self.pty.writer.flush().unwrap();
            // One key per read, as a person types.
            std::thread::sleep(Duration::from_millis(40));
        }
    }
}

#[test]
fn step_undo_check_and_follow_a_counterexample_in_a_real_terminal() {
    let config = tempfile::tempdir().unwrap();
    let mut session = Session::start(
        &["tests/fixtures/tui/counter.csp", "--process", "System"],
        config.path(),
    );
    session.wait_for("Events (1)");
    session.wait_for("Trace (0 of 0)");
    session.keys("111");
    let screen = session.wait_for("Trace (3 of 3)");
    assert!(screen.contains("step.1"), "{screen}");
    assert!(
        screen.contains("* #1 step.2 -> Counter(2)  where n = 1"),
        "{screen}"
    );
    session.keys("u");
    session.wait_for("Trace (2 of 3)");
    session.wait_for("(undone)");
    // Tab twice: Events -> Trace -> Checks; run the first check.
    session.keys("\t\tc");
    session.wait_for("✗ Failed");
    session.wait_for("assertion 1: Failed");
    session.keys("o");
    let screen = session.wait_for("counterexample of assertion 1 loaded");
    assert!(screen.contains("State — Quiet"), "{screen}");
    assert!(
        screen.contains("Specification before the last step:"),
        "{screen}"
    );
    assert!(
        screen.contains("✗ assertion 1: the last step, up"),
        "{screen}"
    );
    session.keys("q");
    let status = session.exit();
    assert!(status.success(), "{status:?}");
    session.wait_for_main_screen();
    // The walk left for the counterexample was not saved: it is kept,
    // and the terminal says where.
    let kept = config.path().join("state/walk-1.ron");
    session.wait_for_wrapped(&format!(
        "it is kept in {0} (`symcsp --session {0}` reopens it)",
        kept.display()
    ));
    let text = std::fs::read_to_string(&kept).unwrap();
    assert!(text.contains("process: \"System\""), "{text}");
    assert!(text.contains("position: 2"), "{text}");
}

/// Asked to end (`kill`, or the terminal closing), the animator quits as
/// a user would: the terminal handed back, the walk kept.
#[cfg(unix)]
#[test]
fn terminated_it_restores_the_terminal_and_keeps_the_walk() {
    for signal in [libc::SIGTERM, libc::SIGHUP] {
        let config = tempfile::tempdir().unwrap();
        let mut session = Session::start(
            &["tests/fixtures/tui/counter.csp", "--process", "System"],
            config.path(),
        );
        session.wait_for("Events (1)");
        session.keys("11");
        session.wait_for("Trace (2 of 2)");
        let pid = session.pty.child.process_id().expect("a process id");
        // SAFETY: kill only sends a signal to the child started above.
        assert_eq!(unsafe { libc::kill(pid as libc::pid_t, signal) }, 0);
        let status = session.exit();
        assert!(status.success(), "signal {signal}: {status:?}");
        session.wait_for_main_screen();
        let kept = config.path().join("state/walk-1.ron");
        session.wait_for_wrapped(&format!("it is kept in {}", kept.display()));
        let text = std::fs::read_to_string(&kept).unwrap();
        assert!(text.contains("position: 2"), "{text}");
    }
}

#[test]
fn a_broken_script_and_a_broken_theme_show_their_messages() {
    let config = tempfile::tempdir().unwrap();
    std::fs::write(config.path().join("theme.ron"), "(border: 3)").unwrap();
    let mut session = Session::start(&["tests/fixtures/tui/broken.csp"], config.path());
    let screen = session.wait_for("expected an expression");
    assert!(screen.contains("broken.csp:2:9"), "{screen}");
    // The script's error and the theme's message are drawn as each is
    // known: a frame may show the one before the other.
    session.wait_for("using the default theme");
    session.kill();
}

#[test]
fn a_script_that_cannot_be_read_is_an_error_not_an_empty_animator() {
    let config = tempfile::tempdir().unwrap();
    for (path, reason) in [
        ("no/such/file.csp", "no such file"),
        ("tests", "it is a directory"),
    ] {
        let mut session = Session::start(&[path], config.path());
        assert_eq!(exit_code(&mut session), 2, "{path}");
        session.wait_for(&format!("error: cannot read `{path}`: {reason}"));
    }
}

/// The exit code of an animator that should end by itself, without
/// opening (within [`PATIENCE`]).
fn exit_code(session: &mut Session) -> u32 {
    let deadline = Instant::now() + PATIENCE;
    loop {
        if let Some(status) = session.pty.child.try_wait().expect("its status") {
            return status.exit_code();
        }
        assert!(
            Instant::now() < deadline,
            "the animator opened; the screen:\n{}",
            session.text()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn checks_from_the_animator_spill_to_the_folder_given_and_stop_at_its_budget() {
    let config = tempfile::tempdir().unwrap();
    let mut refused = Session::start(
        &["models/philosophers.csp", "--spill-dir", "/no/such/folder"],
        config.path(),
    );
    assert_eq!(exit_code(&mut refused), 2);
    refused.wait_for("error: cannot spill to `/no/such/folder`: it does not exist");
    // Dining's first assertion spills its first chunk of rows past the
    // disk budget.
    let folder = tempfile::tempdir().unwrap();
    let folder = folder.path().display().to_string();
    let mut session = Session::start(
        &[
            "benches/models/dining.csp",
            "--spill-dir",
            &folder,
            "--max-disk",
            "1K",
            "--spill-at-states",
            "1000",
        ],
        config.path(),
    );
    session.wait_for("Trace (0 of 0)");
    session.keys("\t\tc");
    let screen = session.wait_for("Inconclusive (disk budget)");
    assert!(screen.contains("--max-disk SIZE` sets it"), "{screen}");
    session.kill();
}

#[test]
fn a_five_million_step_random_run_is_cancelled_at_once() {
    let config = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("up.csp");
    std::fs::write(&script, "channel a\nP(n) = a -> P(n+1)\n").unwrap();
    let mut session = Session::start(
        &[script.to_str().unwrap(), "--process", "P(0)"],
        config.path(),
    );
    session.wait_for("Events (1)");
    // R, then replace the suggested 100 with 5000000.
    session.keys("R5000000\r");
    session.wait_for("random run: ");
    // The screen goes on while the run does: its progress moves.
    let first = session.wait_for("of 5\u{a0}000\u{a0}000");
    std::thread::sleep(Duration::from_millis(400));
    let later = session.text();
    assert_ne!(first, later, "the progress line did not move");
    session.keys("\x1b");
    let pressed = Instant::now();
    let screen = session.wait_for("then cancelled");
    assert!(
        pressed.elapsed() < Duration::from_secs(1),
        "Esc took {:?}",
        pressed.elapsed()
    );
    assert!(screen.contains("random steps taken"), "{screen}");
    // And the animator answers keys again at once.
    session.keys("\t");
    let pressed = Instant::now();
    session.wait_for("▸Trace");
    assert!(pressed.elapsed() < Duration::from_millis(500));
    session.keys("q");
    session.exit();
}

#[test]
fn a_teacher_walks_through_the_symmetry_view_in_a_real_terminal() {
    let config = tempfile::tempdir().unwrap();
    // The built-in ListStack.
    let mut session = Session::start(&[], config.path());
    session.wait_for("Events (");
    // T0 takes the lock and reads the top; open the view.
    session.keys("11S");
    let screen = session.wait_for("Symmetry — state and representative");
    assert!(screen.contains("permutation"), "{screen}");
    assert!(screen.contains("NodeID = {N0, N1, N2}"), "{screen}");
    // Step through the algorithm's partitions.
    session.keys("]");
    session.wait_for("Step 1: the components by control state");
    session.keys("]");
    session.wait_for("Step 2, round 1");
    session.keys("[");
    session.wait_for("Step 1: the components by control state");
    // Mark this state, take a step, compare.
    session.keys("m");
    session.wait_for("state 2 marked");
    session.keys("1=");
    let screen = session.wait_for("comparison with the marked state");
    assert!(
        screen.contains("not symmetric")
            || screen.contains("same representative")
            || screen.contains("not unique"),
        "{screen}"
    );
    session.keys("Sq");
    session.exit();
}

#[test]
fn the_budget_of_checks_run_from_the_animator_is_set_on_the_command_line() {
    let config = tempfile::tempdir().unwrap();
    let mut session = Session::start(
        &["models/philosophers.csp", "--max-states", "100"],
        config.path(),
    );
    session.wait_for("Trace (0 of 0)");
    // Events -> Trace -> Checks; the first assertion needs 1 420 states.
    session.keys("\t\tc");
    let screen = session.wait_for("Inconclusive (state budget): 100");
    assert!(
        screen.contains("stopped by the state budget of"),
        "{screen}"
    );
    session.kill();
}

#[test]
fn after_opens_at_a_state_by_name_and_the_prompt_follows_another_trace() {
    let config = tempfile::tempdir().unwrap();
    // A trace that goes wrong at its second event: the animator opens
    // after the first, saying which event cannot happen and which could.
    let mut session = Session::start(
        &["models/liststack.csp", "--after", "push.T0.A, pop.T1.B"],
        config.path(),
    );
    session.wait_for("after push.T0.A, System cannot perform pop.T1.B");
    // The excerpt under the message, once the popup is drawn whole (the
    // screen may be read between its lines).
    session.wait_for("<push.T0.A, pop.T1.B>");
    session.wait_for_wrapped("it could perform push.T0.A, push.T0.B, push.T1.A");
    session.keys("\x1b");
    let screen = session.wait_for("Trace (5 of 5)");
    assert!(screen.contains("push.T0.A"), "{screen}");
    // The prompt: a trace typed over the one walked.
    session.keys(">");
    session.wait_for("Follow the trace");
    session.keys("push.T1.B, push.T0.A\r");
    let screen = session.wait_for("followed the trace: 2 events");
    assert!(screen.contains("Node(N1, A, N0)"), "{screen}");
    session.keys("q");
    session.exit();
}

/// The screen's row `row` (from 0) as text.
fn row(screen: &str, row: usize) -> &str {
    screen.lines().nth(row).unwrap_or("")
}

#[test]
fn the_trace_prompt_at_100_by_30_opens_empty_and_scrolls_with_the_cursor() {
    let config = tempfile::tempdir().unwrap();
    let mut session = Session::start_sized(&["models/liststack.csp"], config.path(), (100, 30));
    session.wait_for("Events");
    // Longer than the line: ten events, 109 characters.
    let trace = "push.T0.A, pop.T0.A, push.T1.B, pop.T1.B, push.T0.A, pop.T0.A, push.T1.B, \
                 pop.T1.B, push.T0.B, pop.T0.B";
    assert!(trace.len() > 100);
    session.keys(">");
    let screen = session.wait_for("Follow the trace");
    // It opens empty: the cursor right after the question.
    let prompt = screen
        .lines()
        .find(|l| l.starts_with("Follow the trace"))
        .unwrap()
        .to_string();
    assert!(
        prompt.starts_with("Follow the trace (events, commas between) from the start: ▏"),
        "{prompt}"
    );
    session.keys(trace);
    // The end of what is typed is on the screen, by the cursor; the
    // beginning, cut, is marked.
    let screen = session.wait_for("push.T0.B, pop.T0.B▏");
    let prompt = screen
        .lines()
        .find(|l| l.starts_with("Follow the trace"))
        .unwrap();
    assert!(prompt.contains('…'), "{prompt}");
    assert!(prompt.chars().count() <= 100, "{prompt}");
    session.keys("\r");
    session.wait_for("followed the trace: 10 events");
    // Again: empty, the trace walked one Up away, its end in sight.
    session.keys(">");
    let screen = session.wait_for("Follow the trace");
    assert!(screen.contains("from the start: ▏"), "{}", row(&screen, 28));
    session.sequence("\x1b[A");
    session.wait_for("push.T0.B, pop.T0.B▏");
    session.keys("\x1b");
    session.keys("q");
    session.exit();
}

#[test]
fn the_structural_view_keys_in_a_real_terminal() {
    let config = tempfile::tempdir().unwrap();
    let out = config.path().join("structure.md");
    let mut session = Session::start_sized(
        &["models/diningring.csp", "--symmetry", "structural"],
        config.path(),
        (100, 30),
    );
    session.wait_for("Events");
    session.keys("S");
    let screen = session.wait_for("Symmetry — the communication structure");
    // The status bar offers the keys that work here, and no others.
    let bar = screen.lines().last().unwrap().to_string();
    assert!(bar.contains("E export · S close"), "{bar}");
    assert!(!bar.contains("next stage"), "{bar}");
    // Keys about the algorithm's stages say, whole, why there are none.
    session.keys("]");
    session.wait_for(
        "! no algorithm stages here: under the structural group a representative is a least image",
    );
    session.keys("W");
    session.wait_for("! the animator walks raw states here");
    // E writes the view.
    session.keys("E");
    session.wait_for("Export the communication structure as Markdown to");
    session.keys("\x15");
    session.keys(out.to_str().unwrap());
    session.keys("\r");
    session.wait_for("the communication structure written to");
    let written = std::fs::read_to_string(&out).unwrap();
    assert!(
        written.contains("components, by orbit (2 orbits)"),
        "{written}"
    );
    session.keys("q");
    session.exit();
}
