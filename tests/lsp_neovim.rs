//! A real editor on `symcsp lsp`: Neovim's built-in client, in a
//! pseudo-terminal, opens a script with a type error; the diagnostic
//! comes back on the screen (as Neovim draws it) and through Neovim's
//! own diagnostic list; an edit in the editor that fixes the error
//! clears it. Runs where `nvim` 0.7 or later is installed, as CI
//! installs it; elsewhere it says so and checks nothing.

mod pty;

use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use portable_pty::CommandBuilder;
use pty::{PATIENCE, Pty};

/// The editor's configuration: start `symcsp lsp` for each `.csp`
/// buffer (with the calls every Neovim since 0.7 has), and write the
/// buffer's diagnostics to a file each time they change, one line each
/// (`line:column:severity:message`), or `none`.
const INIT_LUA: &str = r#"
local server = os.getenv("SYMCSP_BIN")
local out = os.getenv("SYMCSP_DIAGNOSTICS")
vim.api.nvim_create_autocmd("DiagnosticChanged", {
  callback = function(args)
    local lines = {}
    for _, d in ipairs(vim.diagnostic.get(args.buf)) do
      local message = d.message:gsub("\n", " ")
      table.insert(lines, string.format("%d:%d:%d:%s", d.lnum + 1, d.col + 1, d.severity, message))
    end
    if #lines == 0 then
      lines = { "none" }
    end
    vim.fn.writefile(lines, out)
  end,
})
vim.api.nvim_create_autocmd("BufReadPost", {
  pattern = "*.csp",
  callback = function(args)
    local id = vim.lsp.start_client({
      name = "symcsp",
      cmd = { server, "lsp" },
      root_dir = vim.fn.fnamemodify(args.file, ":p:h"),
    })
    vim.lsp.buf_attach_client(args.buf, id)
  end,
})
"#;

/// Whether `nvim` is installed, 0.7 or later (the autocommands the
/// configuration uses came with 0.7).
fn neovim_installed() -> bool {
    let Ok(out) = std::process::Command::new("nvim").arg("--version").output() else {
        return false;
    };
    let text = String::from_utf8_lossy(&out.stdout);
    // "NVIM v0.7.2"
    let version = text
        .lines()
        .next()
        .and_then(|line| line.strip_prefix("NVIM v"))
        .map(|v| {
            v.split('.')
                .filter_map(|n| n.parse::<u32>().ok())
                .collect::<Vec<_>>()
        });
    out.status.success() && version.is_some_and(|v| v.as_slice() >= [0, 7].as_slice())
}

/// Neovim in a pseudo-terminal, its screen read through a terminal
/// emulator.
struct Editor {
    pty: Pty,
}

impl Editor {
    fn open(script: &Path, dir: &Path, diagnostics: &Path) -> Editor {
        let init = dir.join("init.lua");
        std::fs::write(&init, INIT_LUA).unwrap();
        let mut command = CommandBuilder::new("nvim");
        // No swap file, no shada, only this configuration.
        command.args(["-n", "-i", "NONE", "-u"]);
        command.arg(&init);
        command.arg(script);
        command.cwd(dir);
        command.env("TERM", "xterm-256color");
        command.env("HOME", dir);
        command.env("XDG_CONFIG_HOME", dir.join("config"));
        command.env("XDG_STATE_HOME", dir.join("state"));
        command.env("XDG_DATA_HOME", dir.join("data"));
        command.env("SYMCSP_BIN", env!("CARGO_BIN_EXE_symcsp"));
        command.env("SYMCSP_DIAGNOSTICS", diagnostics);
        Editor {
            pty: Pty::spawn(command, (160, 30)),
        }
    }

    fn text(&self) -> String {
        self.pty.text()
    }

    fn keys(&mut self, keys: &str) {
        self.pty.writer.write_all(keys.as_bytes()).unwrap();
        self.pty.writer.flush().unwrap();
    }

    fn quit(mut self) {
        self.keys("\x1b:qa!\r");
        self.pty.exit();
    }
}

/// The diagnostics Neovim last wrote, once they satisfy `wanted`.
fn wait_for_diagnostics(file: &Path, wanted: impl Fn(&str) -> bool, editor: &Editor) -> String {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let written = std::fs::read_to_string(file).unwrap_or_default();
        if wanted(&written) {
            return written;
        }
        assert!(
            Instant::now() < deadline,
            "Neovim's diagnostics are {written:?}; the screen:\n{}",
            editor.text()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn neovim_shows_a_type_error_and_clears_it_once_fixed() {
    if !neovim_installed() {
        eprintln!("nvim 0.7 or later is not installed: Neovim's client is not tried");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("broken.csp");
    std::fs::write(&script, "channel c : {0..2}\n\nP = c!true -> STOP\n").unwrap();
    let diagnostics = dir.path().join("diagnostics.txt");
    let mut editor = Editor::open(&script, dir.path(), &diagnostics);

    // Neovim's list: one error (severity 1) at the `!true`, line 3
    // column 6, with symcsp's message and notes.
    let listed = wait_for_diagnostics(&diagnostics, |d| d.contains(':'), &editor);
    let listed: Vec<&str> = listed.lines().collect();
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert!(
        listed[0].starts_with(
            "3:6:1:Couldn't match expected type Bool with actual type Int \
             note: whilst matching expected type Bool=>Event"
        ),
        "{listed:?}"
    );
    // And on the screen, as Neovim draws it beside the line.
    let screen = editor.pty.wait_for("Couldn't match expected type Bool");
    let line = screen
        .lines()
        .find(|line| line.contains("Couldn't match"))
        .unwrap();
    // Neovim marks the line in its sign column (`E`), then draws the
    // message after the text.
    assert!(line.contains("P = c!true -> STOP"), "{screen}");

    // The user fixes it in the editor, unsaved: the server sees the
    // change and the error goes.
    editor.keys(":3s/true/1/\r");
    let fixed = wait_for_diagnostics(&diagnostics, |d| d.trim() == "none", &editor);
    assert_eq!(fixed.trim(), "none");
    let deadline = Instant::now() + PATIENCE;
    while editor.text().contains("Couldn't match") {
        assert!(Instant::now() < deadline, "{}", editor.text());
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        editor.text().contains("P = c!1 -> STOP"),
        "{}",
        editor.text()
    );
    editor.quit();
}
