//! A real editor on `symcsp lsp`: Neovim's built-in client, in a
//! pseudo-terminal, set up by the Neovim 0.7–0.10 block of
//! `docs/editors.md` as it is written there. It opens a script with a
//! type error; the diagnostic comes back on the screen (as Neovim draws
//! it) and through Neovim's own diagnostic list; an edit in the editor
//! that fixes the error clears it. Scripts opened, reopened and made new
//! in one project share one server, and a check run from its lens shows
//! its verdict without a refresh by hand. Runs where `nvim` 0.7 or later
//! is installed, as CI installs it; elsewhere it says so and checks
//! nothing.

mod pty;

use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use portable_pty::CommandBuilder;
use pty::{PATIENCE, Pty};

/// What the tests add to the documented configuration: write a
/// buffer's diagnostics to a file each time they change, one line each
/// (`line:column:severity:message`), or `none`.
const DIAGNOSTICS_LUA: &str = r#"
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
"#;

/// The Neovim 0.7–0.10 configuration `docs/editors.md` gives.
fn documented_setup() -> String {
    let doc = include_str!("../docs/editors.md");
    let section = &doc[doc
        .find("### Neovim 0.7 to 0.10")
        .expect("docs/editors.md has a Neovim 0.7 to 0.10 section")..];
    let block = &section[section.find("```lua\n").expect("with a Lua block") + 7..];
    block[..block.find("```").expect("that ends")].to_string()
}

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
        std::fs::write(&init, format!("{DIAGNOSTICS_LUA}{}", documented_setup())).unwrap();
        // `symcsp` as the documented configuration runs it: on the PATH.
        let binary = Path::new(env!("CARGO_BIN_EXE_symcsp"));
        let path = format!(
            "{}:{}",
            binary.parent().unwrap().display(),
            std::env::var("PATH").unwrap_or_default()
        );
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
        command.env("PATH", path);
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

#[test]
fn neovim_shares_one_server_per_project_attaches_new_files_and_redraws_lenses() {
    if !neovim_installed() {
        eprintln!("nvim 0.7 or later is not installed: Neovim's client is not tried");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    std::fs::create_dir(dir.path().join("models")).unwrap();
    let first = dir.path().join("models/first.csp");
    std::fs::write(
        &first,
        "channel c : {0..2}\nP = c!1 -> STOP\nassert P :[deadlock free]\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("second.csp"), "Q = STOP\n").unwrap();
    let diagnostics = dir.path().join("diagnostics.txt");
    let mut editor = Editor::open(&first, dir.path(), &diagnostics);
    // The lens is drawn once the server has loaded the script: it asks
    // for the redraw itself.
    editor.pty.wait_for("▶ check");

    // Another script of the project, the first again from disk, and a
    // new file typed in and written: one server for all of them.
    editor.keys(":e second.csp\r");
    editor.pty.wait_for("Q = STOP");
    editor.keys(":e!\r:e new.csp\r");
    editor.keys("ichannel d : {0..2}\rR = d!true -> STOP\x1b:w\r");
    let listed = wait_for_diagnostics(
        &diagnostics,
        |d| d.contains("Couldn't match expected type Bool"),
        &editor,
    );
    assert!(listed.starts_with("2:6:1:"), "{listed}");
    let clients = dir.path().join("clients.txt");
    editor.keys(&format!(
        ":lua vim.fn.writefile({{tostring(#vim.lsp.get_active_clients())}}, '{}')\r",
        clients.display()
    ));
    let deadline = Instant::now() + PATIENCE;
    while !clients.exists() {
        assert!(Instant::now() < deadline, "{}", editor.text());
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(std::fs::read_to_string(&clients).unwrap().trim(), "1");

    // The check from its lens: the verdict replaces the lens without a
    // refresh by hand.
    editor.keys(":e models/first.csp\r:3\r:lua vim.lsp.codelens.run()\r");
    let screen = editor.pty.wait_for("✗ Failed");
    assert!(!screen.contains("checking…"), "{screen}");
    editor.quit();
}
