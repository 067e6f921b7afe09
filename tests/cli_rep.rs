//! `symcsp rep`: the representative of a state, its permutation and the
//! algorithm's partitions, as a user sees them (plain and JSON), and its
//! exit codes on bad input.

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;

fn symcsp() -> Command {
    Command::cargo_bin("symcsp").expect("the binary is built")
}

const LIST: &str = "initNode.N4.B.Null, initNode.N0.B.N4, initNode.N1.B.N0, initNode.N3.B.N1";

fn rep(args: &[&str]) -> assert_cmd::assert::Assert {
    symcsp().arg("rep").args(args).assert()
}

/// What a `symcsp rep` that succeeds prints.
fn rep_text(args: &[&str]) -> String {
    let out = rep(args).success().get_output().stdout.clone();
    String::from_utf8(out).expect("text")
}

#[test]
fn the_paper_example_in_plain_text() {
    let out = rep(&[
        "models/paper/example37.csp",
        "Nodes",
        "--symmetry",
        "NodeID, Data",
        "--after",
        LIST,
    ])
    .success()
    .get_output()
    .stdout
    .clone();
    insta::assert_snapshot!(String::from_utf8(out).expect("text"));
}

#[test]
fn the_paper_example_as_json() {
    let out = rep(&[
        "models/paper/example37.csp",
        "Nodes",
        "--symmetry",
        "NodeID, Data",
        "--after",
        LIST,
        "--format",
        "json",
    ])
    .success()
    .get_output()
    .stdout
    .clone();
    let json: Value = serde_json::from_slice(&out).expect("JSON");
    assert_eq!(json["state"][2], "FreeNode(N2)");
    assert_eq!(json["representative"][0], "FreeNode(N0)");
    assert_eq!(json["permutation"]["NodeID"]["N2"], "N0");
    assert_eq!(json["permutation"]["Data"]["B"], "A");
    // α: the node N0 (component 0) goes to component 4, N4's place.
    assert_eq!(json["components"][0], 4);
    let steps = json["steps"].as_array().expect("steps");
    let kinds: Vec<&str> = steps.iter().map(|s| s["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["step1", "step2", "step2", "step3", "step2"]);
    assert_eq!(steps[0]["cells"][0][1]["text"], "FreeNode(N5)");
    assert_eq!(steps[0]["cells"][0][1]["index"], 5);
    let n_value = steps[1]["n_values"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["text"] == "Node(N0, B, N4)")
        .expect("its n-value");
    assert_eq!(n_value["n_value"], "⟨0, 1, 1, 0; 3, 1; 0, 0, 1, 1⟩");
    assert_eq!(steps[3]["split"]["text"], "FreeNode(N2)");
    assert_eq!(steps[3]["fully_symmetric"], true);
    assert_eq!(
        json["type_orderings"]["NodeID"]["values"],
        serde_json::json!(["N2", "N5", "N3", "N1", "N0", "N4"])
    );
    assert_eq!(json["type_orderings"]["Data"]["appeared"], 1);
    assert_eq!(json["unique_guaranteed"], true);
    // The variables, named, with the identity; the n-value columns; why
    // each cell split; the graph.
    assert_eq!(
        json["variables"][0],
        serde_json::json!({"names": ["me", "datum", "next"], "values": ["N0", "B", "N4"], "identity": 0})
    );
    let columns = &steps[1]["columns"][1]["groups"];
    assert_eq!(columns[0][2]["label"], "me→c2.next");
    assert_eq!(
        (
            &columns[0][2]["variable"],
            &columns[0][2]["cell"],
            &columns[0][2]["cell_variable"]
        ),
        (
            &serde_json::json!(0),
            &serde_json::json!(1),
            &serde_json::json!(2)
        )
    );
    let parts = &steps[1]["splits"][0]["parts"];
    assert_eq!(
        parts[0]["sentence"],
        "Node(N3, B, N1) split off: no component of cell 2 points at it with its next (the \
         others': 1)"
    );
    assert_eq!(parts[0]["column"], "me→c2.next");
    assert!(
        steps[3]["sentence"]
            .as_str()
            .is_some_and(|s| s.contains("the cell is fully symmetric (Definition 49)"))
    );
    let graph = &json["graph"];
    let next = |from: usize, to: usize| {
        graph["edges"].as_array().unwrap().iter().any(|e| {
            e["from"] == from
                && e["to"] == to
                && e["label"] == "next=me"
                && e["kind"] == "reference"
        })
    };
    // N3 → N1 → N0 → N4 (components 3, 1, 0, 4).
    assert!(next(3, 1) && next(1, 0) && next(0, 4));
    assert_eq!(graph["shared"][0]["value"], "B");
    assert_eq!(
        graph["drawing"][0],
        "#4 Node(N3, B, N1) ─next→ #2 Node(N1, B, N0) ─next→ #1 Node(N0, B, N4) ─next→ #5 \
         Node(N4, B, Null)"
    );
}

#[test]
fn the_state_as_a_graph_for_graphviz() {
    let out = rep(&[
        "models/liststack.csp",
        "--after",
        "push.T0.A, push.T1.B, push.T0.B",
        "--format",
        "dot",
    ])
    .success()
    .get_output()
    .stdout
    .clone();
    insta::assert_snapshot!(String::from_utf8(out).expect("text"));
}

#[test]
fn every_cell_has_its_own_colour_in_dot_with_a_legend_past_twelve() {
    let out = rep_text(&["tests/fixtures/symmetry/many_cells.csp", "--format", "dot"]);
    // Each component's cell and fill: `c13 [label="#13 …\ncell 13", fillcolor="#…"]`.
    let mut fills: Vec<(usize, String)> = out
        .lines()
        .filter_map(|l| {
            let (_, rest) = l.split_once("\\ncell ")?;
            let (cell, rest) = rest.split_once('"')?;
            let colour = rest.split("fillcolor=\"").nth(1)?.split('"').next()?;
            Some((cell.parse().ok()?, colour.to_string()))
        })
        .collect();
    fills.sort();
    assert_eq!(fills.len(), 15, "{out}");
    for (k, (cell, colour)) in fills.iter().enumerate() {
        assert_eq!(*cell, k + 1, "one component a cell here: {out}");
        assert!(
            !fills[k + 1..].iter().any(|(_, other)| other == colour),
            "cell {cell}'s colour {colour} is reused: {out}"
        );
    }
    assert_ne!(fills[12].1, fills[0].1, "cell 13 is not cell 1's colour");
    // More cells than the scheme's twelve: a legend, cell by cell.
    assert!(out.contains("subgraph cluster_legend"), "{out}");
    let legend = format!(
        "<td bgcolor=\"{}\" width=\"24\"></td><td align=\"left\">cell 13</td>",
        fills[12].1
    );
    assert!(out.contains(&legend), "{out}");
    // Twelve cells or fewer: no legend (the snapshot below has seven).
    let few = rep(&[
        "models/liststack.csp",
        "--after",
        "push.T0.A",
        "--format",
        "dot",
    ])
    .success()
    .get_output()
    .stdout
    .clone();
    assert!(!String::from_utf8(few).expect("text").contains("legend"));
}

/// `symcsp rep`'s arguments for Example 37's state, and `extra`.
fn example_37_args<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "models/paper/example37.csp",
        "Nodes",
        "--symmetry",
        "NodeID, Data",
        "--after",
        LIST,
    ];
    args.extend_from_slice(extra);
    args
}

/// `symcsp rep` on Example 37's state with `extra` arguments: its output.
fn example_37(extra: &[&str]) -> String {
    rep_text(&example_37_args(extra))
}

/// The cell sizes of Example 37, stage by stage: step 1, two rounds of
/// step 2 (the second splits nothing), step 3, a last round.
const EXAMPLE_37_SIZES: &str = "2,3,1 → 2,1,1,1,1 → 2,1,1,1,1 → 1,1,1,1,1,1 → 1,1,1,1,1,1";

#[test]
fn the_stages_alone_open_with_the_cell_sizes_of_each() {
    let out = example_37(&["--stages"]);
    assert!(
        out.contains(&format!(
            "the algorithm\n  cell sizes, stage by stage: {EXAMPLE_37_SIZES}\n  step 1"
        )),
        "{out}"
    );
    // The stages, the orderings and the permutation; not the state
    // beside its representative, nor the graph.
    assert!(
        out.contains("  step 3  step 2 cannot split cell 1"),
        "{out}"
    );
    assert!(
        out.contains("    NodeID: N2, N5, N3, N1, N0, N4\n"),
        "{out}"
    );
    assert!(out.contains("\npermutation\n  NodeID: N0 ↦ N4"), "{out}");
    assert!(!out.contains("  representative\n"), "{out}");
    assert!(!out.contains("the state as a graph"), "{out}");
}

#[test]
fn example_37_exported_as_markdown() {
    let out = example_37(&["--stages", "--format", "markdown"]);
    assert!(out.contains(&format!(
        "**Cell sizes, stage by stage:** {EXAMPLE_37_SIZES}"
    )));
    // Example 37's n-value of N(N0, B, N4), entry by entry.
    assert!(
        out.contains("| 2 | #1 `Node(N0, B, N4)` | 0 | 1 | 1 | 0 | 3 | 1 | 0 | 0 | 1 | 1 |"),
        "{out}"
    );
    insta::assert_snapshot!(out);
}

#[test]
fn example_37_exported_as_latex() {
    // The format implies --stages.
    let out = example_37(&["--format", "latex"]);
    assert!(out.starts_with("% The representative algorithm"), "{out}");
    assert!(out.contains("\\begin{document}") && out.ends_with("\\end{document}\n"));
    assert!(out.contains("\\subsection*{Stage 4 of 5. Step 3"), "{out}");
    assert!(
        out.contains("$\\checkmark$ step 2 cannot split cell 1"),
        "{out}"
    );
    insta::assert_snapshot!(out);
}

#[test]
fn example_37_exported_as_svg() {
    let out = example_37(&["--stages", "--format", "svg"]);
    assert!(
        out.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""),
        "{out}"
    );
    assert!(out.ends_with("</svg>\n"));
    // A drawing per stage, each with a box per component.
    assert_eq!(out.matches("<g transform=").count(), 5, "{out}");
    assert_eq!(
        out.matches("<rect x=").count(),
        5 * 6 + (3 + 5 + 5 + 6 + 6),
        "{out}"
    );
    // Stage 1 colours the free nodes alike, stage 4 apart.
    let stages: Vec<&str> = out.split("<g transform=").collect();
    let fill = |stage: &str, label: &str| -> String {
        let at = stage.find(label).expect("a component");
        let rect = stage[..at].rsplit("<rect").next().expect("its box");
        rect.split("fill=\"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap()
            .to_string()
    };
    assert_eq!(
        fill(stages[1], "#3 FreeNode(N2)"),
        fill(stages[1], "#6 FreeNode(N5)")
    );
    assert_ne!(
        fill(stages[4], "#3 FreeNode(N2)"),
        fill(stages[4], "#6 FreeNode(N5)")
    );
    insta::assert_snapshot!(out);
}

/// Each component's box in one stage's SVG: its label's number, its
/// fill and whether it is outlined as split off here.
fn boxes(svg: &str) -> Vec<(usize, String, bool)> {
    let attribute = |tag: &str, name: &str| -> Option<String> {
        let at = tag.find(&format!(" {name}=\""))? + name.len() + 3;
        Some(tag[at..].split('"').next()?.to_string())
    };
    let mut out = Vec::new();
    for (rect, rest) in svg
        .split("<rect ")
        .skip(1)
        .map(|r| r.split_once("/>").unwrap())
    {
        // A component's box is followed by its label, `#N …`.
        let Some(label) = rest.split("\">").nth(1) else {
            continue;
        };
        let Some(number) = label.strip_prefix('#').and_then(|l| l.split(' ').next()) else {
            continue;
        };
        let Ok(number) = number.parse() else { continue };
        if attribute(rect, "rx").is_some() {
            let fill = attribute(rect, "fill").expect("a fill");
            out.push((
                number,
                fill,
                attribute(rect, "stroke-width").as_deref() == Some("4"),
            ));
        }
    }
    out
}

/// Issue 61: a slide per stage; a component keeps its colour until its
/// cell splits it off, and then takes a colour no cell had, outlined;
/// text a room can read.
#[test]
fn svg_slides_keep_each_cell_s_colour_and_mark_what_split_off() {
    let mut before: Vec<(usize, String, bool)> = Vec::new();
    for k in 1..=5 {
        let slide = example_37(&["--format", "svg", "--stage", &k.to_string()]);
        assert_eq!(
            slide.matches("<g transform=").count(),
            1,
            "one stage: {slide}"
        );
        assert!(slide.contains(&format!("Stage {k} of 5.")), "{slide}");
        assert!(slide.contains("width=\"1280\""), "{slide}");
        assert!(!slide.contains("font-size=\"12\""), "{slide}");
        assert!(slide.contains("font-size=\"20\""), "{slide}");
        // The orderings and the permutation are a slide of their own.
        assert!(!slide.contains("The orderings and the permutation"));
        let now = boxes(&slide);
        assert_eq!(now.len(), 6, "a box per component: {slide}");
        if !before.is_empty() {
            let old_fills: Vec<&String> = before.iter().map(|(_, f, _)| f).collect();
            for (c, fill, new) in &now {
                let was = &before
                    .iter()
                    .find(|(b, _, _)| b == c)
                    .expect("the same box")
                    .1;
                if fill != was {
                    assert!(
                        *new,
                        "stage {k}: #{c} changed colour without being split off"
                    );
                    assert!(
                        !old_fills.contains(&fill),
                        "stage {k}: #{c} took an old colour"
                    );
                } else {
                    assert!(!new, "stage {k}: #{c} is marked new but kept its colour");
                }
            }
        }
        before = now;
    }
    // Stage 2 splits {#1, #2, #4}: two of them take new colours; stage 4
    // (step 3) splits #3 off the free nodes: the member split off takes
    // the new colour, even of two.
    let stage_2 = boxes(&example_37(&["--format", "svg", "--stage", "2"]));
    assert_eq!(stage_2.iter().filter(|(_, _, new)| *new).count(), 2);
    let stage_4 = boxes(&example_37(&["--format", "svg", "--stage", "4"]));
    assert_eq!(
        stage_4
            .iter()
            .filter(|(_, _, new)| *new)
            .map(|b| b.0)
            .collect::<Vec<_>>(),
        [3]
    );
}

#[test]
fn stages_are_written_a_file_each_and_bad_requests_are_refused_whole() {
    let folder = std::env::temp_dir().join(format!("symcsp-slides-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    let said = example_37(&["--format", "svg", "--output", folder.to_str().unwrap()]);
    let mut names: Vec<String> = std::fs::read_dir(&folder)
        .expect("the folder")
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "all.svg",
            "orderings.svg",
            "stage-1.svg",
            "stage-2.svg",
            "stage-3.svg",
            "stage-4.svg",
            "stage-5.svg"
        ]
    );
    assert_eq!(said.matches("wrote ").count(), 7, "{said}");
    let one = std::fs::read_to_string(folder.join("stage-3.svg")).expect("written");
    assert_eq!(one, example_37(&["--format", "svg", "--stage", "3"]));
    // The slide after the last stage: the orderings and the permutation,
    // with the state beside its representative.
    let closing = std::fs::read_to_string(folder.join("orderings.svg")).expect("written");
    assert_eq!(closing, example_37(&["--format", "svg", "--stage", "6"]));
    assert!(
        closing.contains("The orderings and the permutation")
            && closing.contains("The state and its representative"),
        "{closing}"
    );
    let _ = std::fs::remove_dir_all(&folder);
    rep(&example_37_args(&["--format", "svg", "--stage", "7"]))
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains(
            "error: --stage 7: this state's algorithm has 5 stages, numbered from 1 (then 6: the \
             orderings and the permutation)",
        ));
    rep(&example_37_args(&["--format", "svg", "--stage", "0"])).code(2);
    rep(&example_37_args(&["--stage", "2"]))
        .code(2)
        .stderr(predicate::str::contains(
            "give --format markdown, latex, beamer or svg",
        ));
    // A folder that cannot be made: one error, nothing written.
    let blocked = std::env::temp_dir().join(format!("symcsp-blocked-{}", std::process::id()));
    std::fs::write(&blocked, "a file, not a folder").expect("written");
    let inside = blocked.join("slides");
    rep(&example_37_args(&[
        "--format",
        "markdown",
        "--output",
        inside.to_str().unwrap(),
    ]))
    .code(2)
    .stderr(
        predicate::str::contains("error: cannot write")
            .and(predicate::str::contains("nothing was written there")),
    );
    assert_eq!(
        std::fs::read_to_string(&blocked).unwrap(),
        "a file, not a folder"
    );
    let _ = std::fs::remove_file(&blocked);
}

/// Issue 85: every slide of every shipped model's export, with and
/// without step 3 by hand, is 1280 × 720 (16:9) with no text under 20
/// pixels and none below its bottom, its drawing at the same place on
/// every stage.
#[test]
fn every_svg_slide_fits_16_by_9_with_text_a_room_reads() {
    let ring = "link.N0.A.N1, link.N1.A.N2, link.N2.B.N3, link.N3.B.N0";
    let exports: Vec<Vec<&str>> = vec![
        example_37_args(&[]),
        example_37_args(&["--choose", "6"]),
        vec![
            "models/paper/example43.csp",
            "Ring",
            "--symmetry",
            "NodeID, Data",
            "--after",
            ring,
        ],
        vec![
            "models/paper/example43.csp",
            "Ring",
            "--symmetry",
            "NodeID, Data",
            "--after",
            ring,
            "--choose",
            "2",
        ],
        vec!["models/liststack.csp", "--after", "push.T0.A, push.T1.B"],
    ];
    let number = |text: &str, after: &str| -> f64 {
        let start = text.find(after).expect(after) + after.len();
        let digits: String = text[start..]
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '.')
            .collect();
        digits.parse().expect("a number")
    };
    for args in exports {
        let whole = rep_text(&[args.as_slice(), &["--format", "markdown"]].concat());
        let stages = whole.matches("\n## Stage ").count();
        let slides = stages + 1 + usize::from(args.contains(&"--choose"));
        let mut drawn_at = Vec::new();
        for k in 1..=slides {
            let k = k.to_string();
            let slide = rep_text(&[args.as_slice(), &["--format", "svg", "--stage", &k]].concat());
            let head = slide.lines().next().unwrap();
            assert!(
                head.contains("width=\"1280\" height=\"720\""),
                "{args:?} slide {k}: {head}"
            );
            for size in slide.split("font-size=\"").skip(1) {
                let size: f64 = size.split('"').next().unwrap().parse().unwrap();
                assert!(size >= 20.0, "{args:?} slide {k}: text of {size} px");
            }
            for text in slide.split("<text ").skip(1) {
                let y = number(text, " y=\"");
                assert!(y <= 720.0 - 4.0, "{args:?} slide {k}: text at {y}\n{slide}");
            }
            if let Some(at) = slide.find("<g transform=\"translate(0 ") {
                drawn_at.push(number(&slide[at..], "translate(0 "));
            }
        }
        assert_eq!(drawn_at.len(), stages, "{args:?}");
        assert!(
            drawn_at.windows(2).all(|w| w[0] == w[1]),
            "{args:?}: the drawing moves: {drawn_at:?}"
        );
    }
}

/// Issues 61 and 85: the LaTeX article and the beamer slides (16:9) of
/// every shipped model's stages, whole and a slide alone, with and
/// without step 3 by hand, compile with TeX Live's latex-base and
/// latex-recommended packages (and pgf for beamer) without an overfull
/// or underfull box, in vector fonts whose text copies out with its
/// ligatures (CI installs them; where pdflatex is missing the test says
/// so and compiles nothing).
#[test]
fn the_latex_exports_compile_with_the_base_packages() {
    let installed = |tool: &str, arg: &str| {
        std::process::Command::new(tool)
            .arg(arg)
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if !installed("pdflatex", "--version") {
        eprintln!("pdflatex is not installed: the LaTeX exports are not compiled here");
        return;
    }
    let folder = std::env::temp_dir().join(format!("symcsp-latex-{}", std::process::id()));
    std::fs::create_dir_all(&folder).expect("a folder");
    // beamer draws with pgf (TeX Live's pictures collection).
    let pgf = installed("kpsewhich", "pgfmath.sty");
    let ring = "link.N0.A.N1, link.N1.A.N2, link.N2.B.N3, link.N3.B.N0";
    let example_43 = [
        "models/paper/example43.csp",
        "Ring",
        "--symmetry",
        "NodeID, Data",
        "--after",
        ring,
    ];
    let list_stack = ["models/liststack.csp", "--after", "push.T0.A, push.T1.B"];
    let mut exports: Vec<(&str, Vec<&str>)> = vec![
        ("all", example_37_args(&["--format", "latex"])),
        (
            "three",
            example_37_args(&["--format", "latex", "--stage", "3"]),
        ),
        (
            "closing",
            example_37_args(&["--format", "latex", "--stage", "6"]),
        ),
        (
            "ring",
            [&example_43[..], &["--choose", "2", "--format", "latex"]].concat(),
        ),
        ("stack", [&list_stack[..], &["--format", "latex"]].concat()),
    ];
    if pgf {
        exports.extend([
            ("slides", example_37_args(&["--format", "beamer"])),
            (
                "slide",
                example_37_args(&["--format", "beamer", "--stage", "5"]),
            ),
            (
                "by-hand",
                example_37_args(&["--format", "beamer", "--choose", "6"]),
            ),
            (
                "ring-slides",
                [&example_43[..], &["--choose", "2", "--format", "beamer"]].concat(),
            ),
            (
                "stack-slides",
                [&list_stack[..], &["--format", "beamer"]].concat(),
            ),
        ]);
    } else {
        eprintln!("pgf is not installed: the beamer export is not compiled here");
    }
    for (name, args) in exports {
        let tex = folder.join(format!("{name}.tex"));
        let source = rep_text(&args);
        if name.ends_with("slides") {
            assert!(
                source.contains("\\documentclass[aspectratio=169]{beamer}"),
                "{source}"
            );
        }
        std::fs::write(&tex, source).expect("written");
        let run = std::process::Command::new("pdflatex")
            .args(["-interaction=nonstopmode", "-halt-on-error"])
            .arg(&tex)
            .current_dir(&folder)
            .output()
            .expect("pdflatex runs");
        let pdf = folder.join(format!("{name}.pdf"));
        assert!(
            run.status.success() && pdf.exists(),
            "{name}.tex does not compile:\n{}",
            String::from_utf8_lossy(&run.stdout)
        );
        // Nothing runs off a page's bottom or its right edge, and no
        // line is stretched thin.
        let log = std::fs::read_to_string(folder.join(format!("{name}.log"))).unwrap();
        for bad in [
            "Overfull \\hbox",
            "Overfull \\vbox",
            "Underfull \\hbox",
            "Underfull \\vbox",
        ] {
            assert!(!log.contains(bad), "{name}: {bad}\n{log}");
        }
        if installed("pdffonts", "-v") {
            let fonts = std::process::Command::new("pdffonts")
                .arg(&pdf)
                .output()
                .unwrap();
            let fonts = String::from_utf8_lossy(&fonts.stdout);
            assert!(!fonts.contains("Type 3"), "{name}: bitmap fonts\n{fonts}");
        }
    }
    // Text copied from the PDF keeps its ligatures ("different", not
    // "dierent").
    if installed("pdftotext", "-v") {
        let text = std::process::Command::new("pdftotext")
            .arg(folder.join("ring.pdf"))
            .arg("-")
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&text.stdout);
        assert!(text.contains("different n-values"), "{text}");
        assert!(text.contains("split off"), "{text}");
    }
    let _ = std::fs::remove_dir_all(&folder);
}

/// Issue 61: every export says what step 3 did, also when it had
/// nothing to choose.
#[test]
fn every_export_says_what_step_3_did() {
    let split = example_37(&["--format", "markdown"]);
    assert!(
        split.contains("Step 3: split off a member once, each of a fully symmetric cell"),
        "{split}"
    );
    for format in ["markdown", "latex", "svg"] {
        let out = rep_text(&[
            "models/liststack.csp",
            "--after",
            "push.T0.A, push.T1.B",
            "--format",
            format,
        ]);
        // (LaTeX writes the dash its own way.)
        assert!(
            out.contains("Step 3: nothing to choose")
                && out.contains("after step 2 every cell is a single component"),
            "{format}: {out}"
        );
    }
}

#[test]
fn a_state_with_nothing_to_show_stage_by_stage_says_so() {
    let fixture = "tests/fixtures/symmetry/nothing_to_show.csp";
    rep(&[
        fixture,
        "One",
        "--symmetry",
        "T",
        "--after",
        "c.A",
        "--stages",
    ])
    .code(2)
    .stdout("")
    .stderr(predicate::str::contains(
        "error: nothing to show stage by stage: the state has one component (Holding(A))",
    ));
    for format in ["markdown", "latex", "svg"] {
        rep(&[fixture, "Idlers", "--symmetry", "T", "--format", format])
            .code(2)
            .stdout("")
            .stderr(predicate::str::contains(
                "error: nothing to show stage by stage: no component of the state holds a value \
                 of T",
            ));
    }
    // Without --stages the same state is shown as ever.
    rep(&[fixture, "Idlers", "--symmetry", "T"]).success();
    // JSON and DOT are not stage by stage.
    rep(&[
        fixture,
        "Idlers",
        "--symmetry",
        "T",
        "--stages",
        "--format",
        "json",
    ])
    .code(2)
    .stderr(predicate::str::contains(
        "--format json already holds every stage",
    ));
}

/// Asserts that a run succeeded and its output has every one of `parts`.
fn prints_all(assert: assert_cmd::assert::Assert, parts: &[&str]) {
    let out = String::from_utf8(assert.success().get_output().stdout.clone()).unwrap();
    for part in parts {
        assert!(out.contains(part), "no `{part}` in:\n{out}");
    }
}

#[test]
fn the_assertion_gives_the_process_and_the_types() {
    prints_all(
        rep(&["models/liststack.csp", "--after", "push.T1.B"]),
        &[
            "process    System",
            "symmetry   from the assertion at models/liststack.csp:100:1",
            "group      3!·2!·2! = 24 permutations",
        ],
    );
}

#[test]
fn automatic_mode_says_what_it_left_out() {
    prints_all(
        rep(&["models/liststack.csp", "System", "--symmetry", "auto"]),
        &[
            "chosen automatically",
            // The script's own name for NodeIDType less Null.
            "           NodeID = {N0, N1, N2}\n",
            "Null left out: it is named at models/liststack.csp:43:28",
        ],
    );
}

#[test]
fn automatic_mode_names_the_set_it_permutes_not_the_whole_type() {
    // No definition names {W0, W1, W2}: the datatype less what was left
    // out, in the types and in every permutation.
    let fixture = "tests/fixtures/symmetry_errors/automatic_drops_one.csp";
    let out = rep_text(&[fixture, "--after", "start.W1"]);
    assert!(
        out.contains("           Id less Idle = {W0, W1, W2}\n"),
        "{out}"
    );
    assert!(
        out.contains("\n  Id less Idle: W0 ↦ W0, W1 ↦ W2, W2 ↦ W1\n"),
        "{out}"
    );
    assert!(!out.contains("Id = "), "{out}");
}

#[test]
fn a_permutation_names_the_types_it_leaves_alone() {
    // After push.T0.A only node values move: Data and ThreadID are left
    // alone, and each is listed as `identity` (issue 61).
    let out = rep_text(&["models/liststack.csp", "--after", "push.T0.A"]);
    let permutation = out
        .split("\npermutation\n")
        .nth(1)
        .and_then(|rest| rest.split("\ncomponents (α)").next())
        .expect("a permutation section");
    assert_eq!(
        permutation, "  NodeID: N0 ↦ N2, N1 ↦ N0, N2 ↦ N1\n  Data: identity\n  ThreadID: identity",
        "{out}"
    );
    // A state that is its own representative says so once.
    let out = rep_text(&["models/liststack.csp"]);
    assert_eq!(out.matches("identity").count(), 1, "{out}");
    assert!(
        out.contains("permutation  the identity: the state is its own representative\n"),
        "{out}"
    );
}

#[test]
fn explore_in_automatic_mode_says_what_it_left_out() {
    let explore = [
        "explore",
        "models/tokenring.csp",
        "System",
        "--symmetry",
        "auto",
    ];
    prints_all(
        symcsp().args(explore).assert(),
        &[
            "no type to permute — group order 1",
            "N0 left out: it is named at models/tokenring.csp:51:9",
            "N3 left out: it is named at models/tokenring.csp:51:21",
        ],
    );
}

#[test]
fn a_path_by_move_numbers_reaches_the_state_the_animator_numbers() {
    // At the start the stack offers only τs (a thread taking the lock):
    // the second is thread T1's; then its first move reads the top. The
    // heading gives each τ with the event it hides, as the animator does.
    let one = rep_text(&["models/liststack.csp", "--path", "2"]);
    assert!(one.contains("after      τ ‹lock.T1›\n"), "{one}");
    let two = rep_text(&["models/liststack.csp", "--path", "2,1"]);
    assert!(
        two.contains("after      τ ‹lock.T1›, τ ‹getTop.T1.Null›\n"),
        "{two}"
    );
    // Not the state `--after` with no events gives: the initial one.
    assert_ne!(one, rep_text(&["models/liststack.csp"]));
    // A move the state does not have; the path and --after together.
    rep(&["models/liststack.csp", "--path", "2,99"])
        .code(2)
        .stderr(predicate::str::contains(
            "error: --path: step 2 asks for move 99, but the state after moves 2 of System has",
        ));
    rep(&["models/liststack.csp", "--path", "0"])
        .code(2)
        .stderr(predicate::str::contains("step 1 asks for move 0"));
    rep(&[
        "models/liststack.csp",
        "--path",
        "1",
        "--after",
        "push.T0.A",
    ])
    .code(2)
    .stderr(predicate::str::contains("cannot be used with"));
}

#[test]
fn bad_requests_are_diagnostics_with_exit_two() {
    // A trace the process cannot perform: the caret at the event.
    rep(&["models/liststack.csp", "--after", "push.T1.B, pop.T0.A"])
        .code(2)
        .stderr(predicate::str::contains(
            "after push.T1.B, System cannot perform pop.T0.A",
        ))
        // And the events that could happen there instead.
        .stderr(predicate::str::contains(
            "= note: it could perform push.T0.A, push.T0.B, push.T1.A, push.T1.B, pop.T0.B, \
             pop.T1.B\n",
        ));
    // Types the script is not symmetric in.
    rep(&["models/liststack.csp", "--symmetry", "NodeIDType"])
        .code(2)
        .stderr(predicate::str::contains(
            "Null is named here, so NodeIDType is not symmetric",
        ));
    // Not types at all, and nonsense.
    rep(&["models/liststack.csp", "--symmetry", "{1, 2}"])
        .code(2)
        .stderr(predicate::str::contains(
            "is not a set of datatype constructors",
        ));
    // Each type of the list is pointed at where it stands in it.
    rep(&["models/liststack.csp", "--symmetry", "Data, {N0, Bogus}"])
        .code(2)
        .stderr(predicate::str::contains(
            "error: `Bogus` is not defined\n --> <symmetry>:1:12\n  |\n1 | Data, {N0, Bogus}\n  |            ^^^^^",
        ));
    rep(&["models/liststack.csp", "--symmetry", "off"])
        .code(2)
        .stderr(predicate::str::contains("--symmetry off"));
    rep(&["tests/fixtures/symmetry/variables.csp"])
        .code(2)
        .stderr(predicate::str::contains("name the process"));
}

/// The JSON `symcsp COMMAND ARGS --format json` prints, when it succeeds.
fn json_of(command: &str, args: &[&str]) -> Value {
    let out = symcsp()
        .arg(command)
        .args(args)
        .args(["--format", "json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    serde_json::from_slice(&out).expect("JSON")
}

#[test]
fn explore_counts_representatives_with_symmetry() {
    let explore = |args: &[&str]| json_of("explore", args);
    let plain = explore(&["models/liststack.csp", "System"]);
    let off = explore(&["models/liststack.csp", "System", "--symmetry", "off"]);
    let reduced = explore(&[
        "models/liststack.csp",
        "System",
        "--symmetry",
        "NodeID, Data, ThreadID",
    ]);
    let auto = explore(&["models/liststack.csp", "System", "--symmetry", "auto"]);
    assert_eq!(plain["states"], 1867);
    assert_eq!(off["states"], 1867);
    assert_eq!(off["symmetry"], Value::Null);
    assert_eq!(plain["symmetry"], Value::Null);
    // One representative per orbit here (tests/symmetry_oracle.rs).
    assert_eq!(reduced["states"], 93);
    assert_eq!(
        reduced["symmetry"],
        serde_json::json!({
            "types": [
                {"name": "NodeID", "size": 3},
                {"name": "Data", "size": 2},
                {"name": "ThreadID", "size": 2}
            ],
            "group_order": "24",
            "representatives": 93,
            "transitions": reduced["transitions"],
            "deadlock_states": reduced["deadlock_states"],
        })
    );
    assert_eq!(reduced["deadlock_states"], 8);
    assert_eq!(auto["states"], 93);
    assert_eq!(auto["symmetry"]["types"][0]["name"], "NodeID");
}

#[test]
fn check_reduces_as_the_assertion_or_the_command_line_says() {
    let check = |args: &[&str]| json_of("check", args);
    // Assertion 2 asks for reduction, assertion 1 does not.
    let asked = check(&["models/liststack.csp", "--assert", "1", "--assert", "2"]);
    let [plain, reduced] = [&asked["assertions"][0], &asked["assertions"][1]];
    assert_eq!(plain["symmetry"], Value::Null);
    assert_eq!(plain["states"], 1867);
    assert_eq!(reduced["result"], "passed");
    assert_eq!(reduced["states"], 93);
    assert_eq!(
        reduced["symmetry"],
        serde_json::json!({
            "types": [
                {"name": "NodeID", "size": 3},
                {"name": "Data", "size": 2},
                {"name": "ThreadID", "size": 2}
            ],
            "group_order": "24",
            "representatives": 93,
        })
    );
    // --symmetry off checks both unreduced; auto reduces both.
    let off = check(&["models/liststack.csp", "--assert", "2", "--symmetry", "off"]);
    assert_eq!(off["assertions"][0]["symmetry"], Value::Null);
    assert_eq!(off["assertions"][0]["states"], 1867);
    // The assertion asked for the reduction: a note says it was not made.
    assert_eq!(
        off["assertions"][0]["notes"][0],
        "symmetry: the reduction the assertion asks for is switched off (--symmetry off): \
         the states are all counted"
    );
    let auto = check(&[
        "models/liststack.csp",
        "--assert",
        "1",
        "--symmetry",
        "auto",
    ]);
    assert_eq!(auto["assertions"][0]["states"], 93);
    assert_eq!(
        auto["assertions"][0]["symmetry"]["types"][0]["name"],
        "NodeID"
    );
    // In plain text, the line says what was reduced.
    symcsp()
        .args(["check", "models/liststack.csp", "--assert", "2"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "Passed — 93 representatives, 100 transitions",
        ))
        .stdout(predicate::str::contains(
            "    symmetry: NodeID (3), Data (2), ThreadID (2) — group order 24, 93 representatives",
        ));
    // A failing reduced check shows a counterexample of the real system.
    symcsp()
        .args(["check", "models/philosophers.csp", "--assert", "4"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "after <sit.P0.0, enter.P0, sit.P1.1, enter.P1, sit.P2.2, enter.P2, pickup.P0.0.0, \
             pickup.P1.1.1, pickup.P2.2.2> the process deadlocks",
        ));
}

#[test]
fn check_refuses_a_reduction_it_cannot_apply() {
    // NodeIDType holds Null, which the script names.
    symcsp()
        .args([
            "check",
            "models/liststack.csp",
            "--assert",
            "2",
            "--symmetry",
            "NodeIDType, Data",
        ])
        .assert()
        .code(2)
        .stdout(predicate::str::contains("Error"))
        .stdout(predicate::str::contains(
            "this check cannot be reduced by symmetry",
        ))
        .stdout(predicate::str::contains("Null is named here"))
        .stdout(predicate::str::contains("--symmetry off"));
    // Not a set of constructors, and a type that does not parse.
    symcsp()
        .args(["check", "models/liststack.csp", "--symmetry", "{1, 2}"])
        .assert()
        .code(2)
        .stdout(predicate::str::contains(
            "is not a set of datatype constructors",
        ));
    symcsp()
        .args(["check", "models/liststack.csp", "--symmetry", "NodeID,,"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("is not a list of types"));
    // The JSON says it too.
    let out = symcsp()
        .args([
            "check",
            "models/liststack.csp",
            "--assert",
            "2",
            "--symmetry",
            "NodeIDType",
            "--format",
            "json",
        ])
        .assert()
        .code(2)
        .get_output()
        .stdout
        .clone();
    let report: Value = serde_json::from_slice(&out).expect("JSON");
    assert_eq!(report["assertions"][0]["result"], "error");
    assert_eq!(report["assertions"][0]["symmetry"], Value::Null);
}

#[test]
fn explore_refuses_symmetry_it_cannot_apply() {
    symcsp()
        .args([
            "explore",
            "models/tokenring.csp",
            "System",
            "--symmetry",
            "NodeID",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("N0 is named here"));
    symcsp()
        .args([
            "explore",
            "models/liststack.csp",
            "System",
            "--engine",
            "terms",
            "--symmetry",
            "auto",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--engine terms explores without symmetry",
        ));
}

#[test]
fn the_legend_of_values_appearing_nowhere_is_shown_only_when_some_do_not() {
    // After enqCall.T1.B every NodeID, ThreadID and Data value is held by
    // some component: no ordering has a `|`, so no legend explains one.
    let out = rep_text(&["models/lockfreequeue.csp", "--after", "enqCall.T1.B"]);
    assert!(
        out.contains("  type orderings\n    NodeID: N1, N2, N0\n"),
        "{out}"
    );
    assert!(!out.contains("appear nowhere"), "{out}");
    assert!(!out.contains(" | "), "{out}");
}

/// `symcsp rep`'s arguments for Example 43's ring holding A, A, B, B.
const RING_AABB: [&str; 6] = [
    "models/paper/example43.csp",
    "Ring",
    "--symmetry",
    "NodeID, Data",
    "--after",
    "link.N0.A.N1, link.N1.A.N2, link.N2.B.N3, link.N3.B.N0",
];

/// Step 3 by hand on Example 43's ring: splitting off the second node
/// gives the paper's other representative, shown beside the algorithm's
/// with the permutation between them; a component that is not there is
/// a plain error.
#[test]
fn step_3_by_hand_gives_the_other_representative_of_the_class() {
    let mut args = RING_AABB.to_vec();
    args.extend(["--choose", "2"]);
    let out = String::from_utf8(rep(&args).success().get_output().stdout.clone()).unwrap();
    let by_hand = &out[out.find("step 3 by hand").expect("the section")..];
    assert!(
        by_hand.contains(
            "split 1: splits off #2 Linked(N1, A, N2) (the algorithm's: #1 Linked(N0, A, N1))"
        ),
        "{by_hand}"
    );
    assert!(
        by_hand.contains("  2* Linked(N1, A, N2)               Linked(N1, B, N2)"),
        "{by_hand}"
    );
    assert!(
        by_hand.contains("  4* Linked(N3, B, N0)               Linked(N3, A, N0)"),
        "{by_hand}"
    );
    assert!(
        by_hand.contains("one symmetry class, two representatives"),
        "{by_hand}"
    );
    // The algorithm's own choice changes nothing.
    let mut args = RING_AABB.to_vec();
    args.extend(["--choose", "1"]);
    let out = String::from_utf8(rep(&args).success().get_output().stdout.clone()).unwrap();
    assert!(
        out.contains("the same representative as the algorithm's own choices give"),
        "{out}"
    );
    let mut args = RING_AABB.to_vec();
    args.extend(["--choose", "5"]);
    rep(&args).code(2).stderr(predicates::str::contains(
        "error: --choose 5: the state's components are numbered 1 to 4",
    ));
}

#[test]
fn a_hand_choice_the_algorithm_cannot_follow_is_refused_not_replaced() {
    // Example 37's one step-3 split is of the free nodes, components 3
    // and 6: component 4 is a list node, and there is no second split.
    // Slides must never say a member was chosen by hand when the first
    // one was split off instead.
    rep(&example_37_args(&["--choose", "4", "--format", "svg", "--stage", "4"]))
        .code(2)
        .stdout("")
        .stderr(predicates::str::contains(
            "error: --choose 4: step 3's split 1 splits the cell of components 3, 6; choose one of them",
        ));
    rep(&example_37_args(&["--choose", "6", "--choose", "3"]))
        .code(2)
        .stderr(predicates::str::contains(
            "error: --choose 3: step 3 splits one cell here, so --choose takes at most 1 component",
        ));
    rep(&example_37_args(&["--choose", "6"])).success();
}

/// Issue 61: beamer slides, a frame per stage (a round of step 2 a
/// frame of tables and one of what split), n-value tables folded to at
/// most 13 columns between variables.
#[test]
fn beamer_gives_a_frame_per_stage_with_tables_folded() {
    let slides = example_37(&["--format", "beamer"]);
    assert!(
        slides.contains("\\documentclass[aspectratio=169]{beamer}"),
        "{slides}"
    );
    for k in 1..=5 {
        assert!(
            slides.contains(&format!(
                "\\begin{{frame}}[allowframebreaks]{{Stage {k} of 5}}"
            )),
            "{slides}"
        );
    }
    // Example 37's n-values have 22 entries over three variables (me 9,
    // datum 4, next 9): two tables, me and datum, then next, none
    // splitting a variable.
    let columns = |line: &str| -> Vec<String> {
        line.split("\\texttt{")
            .skip(1)
            .map(|head| head.split('}').next().unwrap().to_string())
            .collect()
    };
    let variable = |head: &String| head.split("$\\to$").next().unwrap().to_string();
    let heads: Vec<Vec<String>> = slides
        .lines()
        .filter(|l| l.starts_with("cell & component & "))
        .map(columns)
        .collect();
    assert!(!heads.is_empty(), "{slides}");
    for pair in heads.windows(2) {
        assert!(pair[0].len() <= 13, "{:?}", pair[0]);
        // A table going on from the one before (not a new one, which
        // starts at me→c1.me) starts with a new variable.
        if pair[1][0] != "me$\\to$c1.me" {
            assert_ne!(
                pair[0].last().map(variable),
                pair[1].first().map(variable),
                "{pair:?}"
            );
        }
    }
    assert!(
        heads
            .iter()
            .any(|h| h.len() == 13 && variable(&h[0]) == "me" && variable(&h[12]) == "datum"),
        "{heads:?}"
    );
    assert!(!slides.contains("adjustbox"));
    let one = example_37(&["--format", "beamer", "--stage", "2"]);
    let frames: Vec<&str> = one
        .lines()
        .filter(|l| l.starts_with("\\begin{frame}"))
        .collect();
    assert_eq!(
        frames,
        [
            "\\begin{frame}[allowframebreaks]{Stage 2 of 5}",
            "\\begin{frame}[allowframebreaks]{Stage 2 of 5, continued}"
        ],
        "{one}"
    );
}

/// Issue 61: an export of step 3 by hand closes with the two
/// representatives of one class and the permutation between them.
#[test]
fn an_export_with_step_3_by_hand_shows_both_representatives() {
    let mut args = RING_AABB.to_vec();
    args.extend(["--choose", "2", "--format", "markdown"]);
    let page = rep_text(&args);
    let hand = page.split("## Step 3 by hand").nth(1).expect("the section");
    assert!(
        hand.contains("one symmetry class, two representatives"),
        "{hand}"
    );
    for format in ["latex", "beamer", "svg"] {
        let mut args = RING_AABB.to_vec();
        args.extend(["--choose", "2", "--format", format]);
        let out = rep_text(&args);
        assert!(out.contains("Step 3 by hand"), "{format}: {out}");
    }
    // Without --choose, no such section.
    let mut args = RING_AABB.to_vec();
    args.extend(["--format", "markdown"]);
    assert!(!rep_text(&args).contains("Step 3 by hand"));
}

/// Issue 61: what step 3 splits off takes the new colour; the rest of
/// the cell keeps the cell's (Example 43's ring: the first node).
#[test]
fn step_3_colours_the_member_split_off() {
    let mut args = RING_AABB.to_vec();
    args.extend(["--format", "svg", "--stage", "3"]);
    let slide = rep_text(&args);
    let new: Vec<usize> = boxes(&slide)
        .into_iter()
        .filter(|(_, _, new)| *new)
        .map(|(c, _, _)| c)
        .collect();
    assert_eq!(new, [1], "{slide}");
    assert!(slide.contains("cell 1 (split off): #1"), "{slide}");
    assert!(slide.contains("cell 2 (the rest): #2, #3, #4"), "{slide}");
    // A round of step 2 says of every new cell that it split off, the
    // one that keeps the old cell's colour too (Example 37's stage 2:
    // `Node(N3, B, N1)`, #4).
    let slide = example_37(&["--format", "svg", "--stage", "2"]);
    assert!(slide.contains("Node(N3, B, N1) split off"), "{slide}");
    assert!(slide.contains("cell 2 (split off): #4"), "{slide}");
}

#[test]
fn a_state_a_call_reaches_through_an_if_prints_as_that_call() {
    let out = rep_text(&[
        "tests/fixtures/structural/flags.csp",
        "System",
        "--after",
        "read.P1.P2.false, read.P1.P3.false, read.P2.P3.false",
    ]);
    // The table's rows: `  1  state  ↦    3  representative`.
    let states: Vec<&str> = out
        .lines()
        .filter_map(|line| line.split_once('↦'))
        .filter_map(|(state, _)| state.trim().split_once("  "))
        .filter(|(number, _)| number.parse::<usize>().is_ok())
        .map(|(_, text)| text.trim())
        .collect();
    assert_eq!(
        states,
        [
            // No flag left to read: the `then` branch, which holds `i`
            // only, is its text.
            "write!P1!P1!true -> enter!P1 -> leave!P1 -> write!P1!P1!false -> Proc(P1)",
            // The `else` branch holds both parameters: it is `Check(P2, {P1})`,
            // not `[] j : {P1} @ read!P2!j?v -> …`.
            "Check(P2, {P1})",
            "Check(P3, {P1, P2})",
            "Flag(P1, false)",
            "Flag(P2, false)",
            "Flag(P3, false)",
        ],
        "{out}"
    );
}
