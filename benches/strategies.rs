//! The paper's Table 2 on our models: every representative strategy side
//! by side, each model at two sizes, reduced over the types that index
//! its processes only (as Bošnački et al.'s strategies need), one
//! `symcsp compare` run per row. Reports, never fails.
//!
//! `cargo bench --bench strategies` (add a model's name to run only its
//! rows). Each strategy gets `TIMEOUT` seconds a row; one stopped says
//! so (`stopped`), which is where it blows up.

use std::path::PathBuf;
use std::process::Command;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const TIMEOUT: &str = "60";

/// A model at one size: the shipped script with lines replaced.
struct Row {
    model: &'static str,
    size: &'static str,
    file: &'static str,
    replace: &'static [(&'static str, &'static str)],
    process: &'static str,
    types: &'static str,
}

const ROWS: &[Row] = &[
    Row {
        model: "ListStack",
        size: "(5, 3, 2)",
        file: "models/liststack.csp",
        replace: &[
            (
                "datatype NodeIDType = Null | N0 | N1 | N2",
                "datatype NodeIDType = Null | N0 | N1 | N2 | N3 | N4",
            ),
            ("datatype Data = A | B", "datatype Data = A | B | C"),
        ],
        process: "System",
        types: "NodeID, ThreadID",
    },
    Row {
        model: "ListStack",
        size: "(6, 4, 3)",
        file: "models/liststack.csp",
        replace: &[
            (
                "datatype NodeIDType = Null | N0 | N1 | N2",
                "datatype NodeIDType = Null | N0 | N1 | N2 | N3 | N4 | N5",
            ),
            ("datatype Data = A | B", "datatype Data = A | B | C | D"),
            (
                "datatype ThreadID = T0 | T1",
                "datatype ThreadID = T0 | T1 | T2",
            ),
        ],
        process: "System",
        types: "NodeID, ThreadID",
    },
    Row {
        model: "TreeBroadcast",
        size: "3 nodes",
        file: "models/treebroadcast.csp",
        replace: &[],
        process: "System",
        types: "NodeID",
    },
    Row {
        model: "TreeBroadcast",
        size: "4 nodes",
        file: "models/treebroadcast.csp",
        replace: &[(
            "datatype NodeID = N0 | N1 | N2",
            "datatype NodeID = N0 | N1 | N2 | N3",
        )],
        process: "System",
        types: "NodeID",
    },
    Row {
        model: "Philosophers",
        size: "3",
        file: "models/philosophers.csp",
        replace: &[],
        process: "System",
        types: "Id",
    },
    Row {
        model: "Philosophers",
        size: "4",
        file: "models/philosophers.csp",
        replace: &[
            ("N = 3", "N = 4"),
            (
                "datatype Id = P0 | P1 | P2",
                "datatype Id = P0 | P1 | P2 | P3",
            ),
        ],
        process: "System",
        types: "Id",
    },
    Row {
        model: "LockFreeQueue",
        size: "(3, 2, 2)",
        file: "models/lockfreequeue.csp",
        replace: &[],
        process: "System",
        types: "NodeID, ThreadID",
    },
    Row {
        model: "LockFreeQueue",
        size: "(4, 2, 2)",
        file: "models/lockfreequeue.csp",
        replace: &[(
            "datatype NodeIDType = Null | N0 | N1 | N2",
            "datatype NodeIDType = Null | N0 | N1 | N2 | N3",
        )],
        process: "System",
        types: "NodeID, ThreadID",
    },
    Row {
        model: "Peterson",
        size: "3",
        file: "models/peterson.csp",
        replace: &[],
        process: "System",
        types: "ProcID",
    },
    Row {
        model: "Peterson",
        size: "4",
        file: "models/peterson.csp",
        replace: &[(
            "datatype ProcID = P0 | P1 | P2",
            "datatype ProcID = P0 | P1 | P2 | P3",
        )],
        process: "System",
        types: "ProcID",
    },
    Row {
        model: "Database",
        size: "3",
        file: "models/database.csp",
        replace: &[],
        process: "System",
        types: "Manager",
    },
    Row {
        model: "Database",
        size: "5",
        file: "models/database.csp",
        replace: &[(
            "datatype Manager = M0 | M1 | M2",
            "datatype Manager = M0 | M1 | M2 | M3 | M4",
        )],
        process: "System",
        types: "Manager",
    },
    Row {
        model: "Ring",
        size: "4 nodes",
        file: "models/ring.csp",
        replace: &[],
        process: "System",
        types: "NodeID",
    },
    Row {
        model: "Ring",
        size: "5 nodes",
        file: "models/ring.csp",
        replace: &[(
            "datatype NodeID = N0 | N1 | N2 | N3",
            "datatype NodeID = N0 | N1 | N2 | N3 | N4",
        )],
        process: "System",
        types: "NodeID",
    },
];

fn main() {
    let only: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let dir = std::env::temp_dir().join(format!("symcsp-strategies-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    println!(
        "| model | size | types | unreduced | fdr | sorted | segmented | flooding | exact | exact / fdr time per state |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for row in ROWS {
        if !only.is_empty() && !only.iter().any(|o| row.model.eq_ignore_ascii_case(o)) {
            continue;
        }
        let mut text =
            std::fs::read_to_string(PathBuf::from(ROOT).join(row.file)).expect("a model");
        for (from, to) in row.replace {
            assert!(text.contains(from), "{}: `{from}` not found", row.file);
            text = text.replace(from, to);
        }
        let path = dir.join(format!("{}-{}.csp", row.model, row.size.replace(' ', "")));
        std::fs::write(&path, text).expect("written");
        let output = Command::new(env!("CARGO_BIN_EXE_symcsp"))
            .arg("compare")
            .arg(&path)
            .arg(row.process)
            .args([
                "--symmetry",
                row.types,
                "--format",
                "json",
                "--timeout",
                TIMEOUT,
            ])
            .output()
            .expect("symcsp runs");
        let Ok(report) = serde_json::from_slice::<serde_json::Value>(&output.stdout) else {
            println!(
                "| {} | {} | {} | error: {} |",
                row.model,
                row.size,
                row.types,
                String::from_utf8_lossy(&output.stderr).trim()
            );
            continue;
        };
        let rows = report["rows"].as_array().cloned().unwrap_or_default();
        let cell = |name: &str| -> String {
            rows.iter()
                .find(|r| r["strategy"] == name)
                .map_or_else(String::new, |r| {
                    let states = r["states"].as_u64().unwrap_or(0);
                    let seconds = r["seconds"].as_f64().unwrap_or(0.0);
                    match r["stopped"].as_str() {
                        Some(stop) => format!("stopped ({stop}) at {states}"),
                        None => format!("{states} in {seconds:.2} s"),
                    }
                })
        };
        let per_state = |name: &str| -> Option<f64> {
            rows.iter()
                .find(|r| r["strategy"] == name && r["stopped"].is_null())
                .and_then(|r| r["microseconds_per_state"].as_f64())
        };
        let ratio = match (per_state("exact"), per_state("fdr")) {
            (Some(e), Some(f)) if f > 0.0 => format!("{:.2}", e / f),
            _ => "—".to_string(),
        };
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {ratio} |",
            row.model,
            row.size,
            row.types,
            cell("unreduced"),
            cell("fdr"),
            cell("sorted"),
            cell("segmented"),
            cell("flooding"),
            cell("exact"),
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
