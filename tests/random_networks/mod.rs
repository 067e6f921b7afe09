//! Random networks of rings, with an assertion of each kind: what the
//! property tests of the search on threads and on workers draw from.

use proptest::prelude::*;

/// One component of a random network: a ring of `length` local states
/// where state `n` offers `e.first` (to the next state) and `e.second`
/// (`skip` states on); state `dead`, if any, is `STOP`.
#[derive(Debug, Clone)]
struct Ring {
    length: u32,
    first: u32,
    second: u32,
    skip: u32,
    dead: Option<u32>,
}

fn ring() -> impl Strategy<Value = Ring> {
    (
        2u32..10,
        0u32..4,
        0u32..4,
        1u32..10,
        proptest::option::weighted(0.3, 0u32..10),
    )
        .prop_map(|(length, first, second, skip, dead)| Ring {
            length,
            first,
            second,
            skip: skip % length,
            dead: dead.map(|d| d % length),
        })
}

/// A random network of two to four rings, each composed with the ones
/// before on a random set of the events (interleaved on none), and its
/// assertions: deadlock freedom, divergence freedom with one event
/// hidden, a traces refinement that fails where the network does an
/// event outside a random set, a failures refinement of CHAOS, and a
/// random trace looked for with the event hidden, in the traces model and
/// in failures-divergences (where a divergence on the way completes it).
pub fn network() -> impl Strategy<Value = String> {
    (
        proptest::collection::vec(ring(), 2..5),
        proptest::collection::vec(proptest::collection::vec(0u32..4, 0..2), 3),
        0u32..4,
        proptest::collection::vec(0u32..4, 2..6),
        proptest::collection::vec(0u32..4, 0..6),
    )
        .prop_map(|(rings, syncs, hidden, allowed, trace)| {
            let mut text = String::from("channel e : {0..3}\n");
            for (i, r) in rings.iter().enumerate() {
                let dead = r
                    .dead
                    .map_or(String::new(), |d| format!("if n == {d} then STOP else "));
                text += &format!(
                    "C{i}(n) = {dead}(e.{} -> C{i}((n + 1) % {}) [] e.{} -> C{i}((n + {}) % {}))\n",
                    r.first, r.length, r.second, r.skip, r.length
                );
            }
            let mut system = "C0(0)".to_string();
            for i in 1..rings.len() {
                let events: Vec<String> = syncs[i - 1].iter().map(|x| format!("e.{x}")).collect();
                system = if events.is_empty() {
                    format!("({system}) ||| C{i}(0)")
                } else {
                    format!("({system}) [| {{{}}} |] C{i}(0)", events.join(", "))
                };
            }
            let allowed: Vec<String> = allowed.iter().map(|x| format!("e.{x}")).collect();
            let trace: Vec<String> = trace.iter().map(|x| format!("e.{x}")).collect();
            let trace = trace.join(", ");
            text += &format!(
                "System = {system}\n\
                 Hidden = System \\ {{e.{hidden}}}\n\
                 Spec = [] x : {{{}}} @ x -> Spec\n\
                 assert System :[deadlock free]\n\
                 assert Hidden :[divergence free]\n\
                 assert Spec [T= System\n\
                 assert CHAOS({{| e |}}) [F= Hidden\n\
                 assert Hidden :[has trace]: <{trace}>\n\
                 assert Hidden :[has trace [FD]]: <{trace}>\n",
                allowed.join(", ")
            );
            text
        })
}
