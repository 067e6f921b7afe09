//! A program in a pseudo-terminal, its screen read back through a
//! terminal emulator: what the tests that drive symcsp's animator and
//! the editor on its language server share.

use std::io::{Read, Write};
use std::num::NonZeroU16;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use portable_pty::{CommandBuilder, PtySize, native_pty_system};

/// Long enough for a slow machine; reached only when something hangs.
pub const PATIENCE: Duration = Duration::from_secs(60);

/// The program running, its screen and its keyboard.
pub struct Pty {
    pub screen: Arc<Mutex<vt100::Parser>>,
    pub writer: Box<dyn Write + Send>,
    pub child: Box<dyn portable_pty::Child + Send + Sync>,
}

impl Pty {
    /// Runs `command` in a terminal `cols` × `rows`.
    pub fn spawn(command: CommandBuilder, (cols, rows): (u16, u16)) -> Pty {
        let pair = native_pty_system()
            .openpty(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("a pseudo-terminal");
        let child = pair
            .slave
            .spawn_command(command)
            .expect("the program starts");
        drop(pair.slave);
        let mut reader = pair.master.try_clone_reader().unwrap();
        let writer = pair.master.take_writer().unwrap();
        let screen = Arc::new(Mutex::new(vt100::Parser::new(
            NonZeroU16::new(rows).unwrap(),
            NonZeroU16::new(cols).unwrap(),
            0,
        )));
        let feed = screen.clone();
        std::thread::spawn(move || {
            // Keep the master alive while reading.
            let _master = pair.master;
            let mut buffer = [0u8; 8192];
            while let Ok(n) = reader.read(&mut buffer) {
                if n == 0 {
                    break;
                }
                feed.lock().unwrap().process(&buffer[..n]);
            }
        });
        Pty {
            screen,
            writer,
            child,
        }
    }

    /// The screen's text.
    pub fn text(&self) -> String {
        self.screen.lock().unwrap().screen().contents()
    }

    /// The screen once `what` is on it (within [`PATIENCE`]).
    pub fn wait_for(&self, what: &str) -> String {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let text = self.text();
            if text.contains(what) {
                return text;
            }
            assert!(
                Instant::now() < deadline,
                "`{what}` never appeared; the screen:\n{text}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// How the program ended, once it has (within [`PATIENCE`]).
    pub fn exit(&mut self) -> portable_pty::ExitStatus {
        let deadline = Instant::now() + PATIENCE;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(Instant::now() < deadline, "the program did not end");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}
