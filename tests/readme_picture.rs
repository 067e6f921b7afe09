//! The README's picture of the animator, `assets/animator.svg`: drawn
//! from a real screen (the built-in model after two pushes, the symmetry
//! view open), cell by cell with its colours. The test fails when the
//! picture no longer shows what the animator draws;
//! `SYMCSP_WRITE_ASSETS=1 cargo test --test readme_picture` draws it
//! again.

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier};
use symcsp::builtin::LISTSTACK;
use symcsp::stack::with_large_stack;
use symcsp::tui::app::{Action, App, Start, update};
use symcsp::tui::config::{Command, Config};
use symcsp::tui::model::Source;
use symcsp::tui::view::view;

const PICTURE: &str = "assets/animator.svg";
const WIDTH: u16 = 120;
const HEIGHT: u16 = 34;

/// A cell's size in the picture, in pixels, for 16-pixel monospace.
const CELL_WIDTH: f64 = 9.6;
const CELL_HEIGHT: f64 = 20.0;
const FOREGROUND: &str = "#d4d4d4";
const BACKGROUND: &str = "#1e1e1e";

#[test]
fn the_readme_s_picture_is_what_the_animator_draws() {
    let drawn = with_large_stack(|| {
        let mut app = App::start(
            Source::Builtin(LISTSTACK),
            Start {
                after: Some("push.T0.A, push.T1.B".into()),
                ..Start::default()
            },
            Config::default(),
        );
        app.settle();
        app.message = None;
        update(&mut app, Action::Command(Command::ToggleSymmetry));
        app.settle();
        let mut terminal = Terminal::new(TestBackend::new(WIDTH, HEIGHT)).unwrap();
        terminal.draw(|frame| _ = view(&app, frame)).unwrap();
        svg(terminal.backend().buffer())
    });
    assert!(
        drawn.contains("Node(") && drawn.contains("representative"),
        "not the picture meant:\n{drawn}"
    );
    if std::env::var_os("SYMCSP_WRITE_ASSETS").is_some() {
        std::fs::create_dir_all("assets").unwrap();
        symcsp::files::write_atomically(std::path::Path::new(PICTURE), drawn.as_bytes()).unwrap();
    }
    let kept = std::fs::read_to_string(PICTURE).unwrap_or_default();
    assert!(
        kept == drawn,
        "{PICTURE} is not what the animator draws now: run \
         `SYMCSP_WRITE_ASSETS=1 cargo test --test readme_picture` and look at it"
    );
}

/// The screen as an SVG: a rectangle per run of cells with a background
/// of their own, a `<text>` per run of cells drawn alike.
fn svg(buffer: &Buffer) -> String {
    let (width, height) = (buffer.area.width, buffer.area.height);
    let mut body = String::new();
    for y in 0..height {
        let mut x = 0;
        while x < width {
            let style = look(&buffer[(x, y)]);
            let mut text = String::new();
            let start = x;
            while x < width && look(&buffer[(x, y)]) == style {
                text.push_str(buffer[(x, y)].symbol());
                x += 1;
            }
            let (left, top) = (f64::from(start) * CELL_WIDTH, f64::from(y) * CELL_HEIGHT);
            if style.background != BACKGROUND {
                body.push_str(&format!(
                    "<rect x=\"{left:.1}\" y=\"{top:.1}\" width=\"{:.1}\" height=\"{CELL_HEIGHT}\" \
                     fill=\"{}\"/>\n",
                    f64::from(x - start) * CELL_WIDTH,
                    style.background
                ));
            }
            if !text.trim().is_empty() {
                body.push_str(&format!(
                    "<text x=\"{left:.1}\" y=\"{:.1}\" fill=\"{}\"{}{}>{}</text>\n",
                    top + 15.0,
                    style.foreground,
                    if style.bold {
                        " font-weight=\"bold\""
                    } else {
                        ""
                    },
                    if style.dim { " opacity=\"0.6\"" } else { "" },
                    escape(&text)
                ));
            }
        }
    }
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w:.0}\" height=\"{h:.0}\" \
         viewBox=\"0 0 {w:.0} {h:.0}\" font-family=\"monospace\" font-size=\"16\" \
         xml:space=\"preserve\">\n<rect width=\"100%\" height=\"100%\" fill=\"{BACKGROUND}\"/>\n\
         {body}</svg>\n",
        w = f64::from(width) * CELL_WIDTH,
        h = f64::from(height) * CELL_HEIGHT,
    )
}

#[derive(PartialEq, Eq)]
struct Look {
    foreground: String,
    background: String,
    bold: bool,
    dim: bool,
}

fn look(cell: &ratatui::buffer::Cell) -> Look {
    let reversed = cell.modifier.contains(Modifier::REVERSED);
    let (fg, bg) = match reversed {
        true => (cell.bg, cell.fg),
        false => (cell.fg, cell.bg),
    };
    Look {
        foreground: colour(fg, FOREGROUND),
        background: colour(bg, BACKGROUND),
        bold: cell.modifier.contains(Modifier::BOLD),
        dim: cell.modifier.contains(Modifier::DIM),
    }
}

/// A terminal colour as a dark theme shows it (`reset`: the terminal's
/// own).
fn colour(colour: Color, reset: &str) -> String {
    const NAMED: [&str; 16] = [
        "#000000", "#cd3131", "#0dbc79", "#e5e510", "#2472c8", "#bc3fbc", "#11a8cd", "#e5e5e5",
        "#666666", "#f14c4c", "#23d18b", "#f5f543", "#3b8eea", "#d670d6", "#29b8db", "#ffffff",
    ];
    let named = |k: usize| NAMED[k].to_string();
    match colour {
        Color::Reset => reset.to_string(),
        Color::Black => named(0),
        Color::Red => named(1),
        Color::Green => named(2),
        Color::Yellow => named(3),
        Color::Blue => named(4),
        Color::Magenta => named(5),
        Color::Cyan => named(6),
        Color::Gray => named(7),
        Color::DarkGray => named(8),
        Color::LightRed => named(9),
        Color::LightGreen => named(10),
        Color::LightYellow => named(11),
        Color::LightBlue => named(12),
        Color::LightMagenta => named(13),
        Color::LightCyan => named(14),
        Color::White => named(15),
        Color::Rgb(r, g, b) => format!("#{r:02x}{g:02x}{b:02x}"),
        Color::Indexed(k) if k < 16 => named(usize::from(k)),
        Color::Indexed(k) if k >= 232 => {
            let level = 8 + 10 * (k - 232);
            format!("#{level:02x}{level:02x}{level:02x}")
        }
        Color::Indexed(k) => {
            // The 6 × 6 × 6 cube.
            let k = k - 16;
            let level = |v: u8| if v == 0 { 0 } else { 55 + 40 * v };
            format!(
                "#{:02x}{:02x}{:02x}",
                level(k / 36),
                level(k / 6 % 6),
                level(k % 6)
            )
        }
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
