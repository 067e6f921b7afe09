//! The generated CSPM the parse and type benchmarks read: blocks of
//! ordinary declarations, numbered so that blocks do not clash.

/// One block of ordinary CSPM: datatypes, channels, pattern-matching
/// functions, processes with every common operator, comprehensions and
/// assertions. Names are numbered so that blocks do not clash.
pub fn block(n: usize) -> String {
    format!(
        "-- block {n}
datatype T{n} = A{n} | B{n}.{{0..3}} | C{n}.Bool
channel c{n}, d{n} : {{0..3}}.T{n}
f{n}(0) = 1
f{n}(k) = k * f{n}(k - 1)
P{n}(x) = c{n}.x?y -> d{n}!x.y -> P{n}((x + 1) % 4) [] x > 0 & c{n}.0.A{n} -> SKIP
Q{n} = [] i : {{0..3}} @ c{n}.i?v:{{A{n}, C{n}.true}} -> STOP
R{n} = (P{n}(0) [| {{| c{n} |}} |] Q{n}) \\ {{| d{n} |}}
S{n} = <x * 2 | x <- <1..10>, x % 2 == 0>
U{n} = {{(x, y) | x <- {{0..3}}, y <- {{0..3}}, x < y}}
V{n} = let g(z) = z + 1 within if g(1) == 2 then STOP else SKIP
W{n} = ||| j : {{0..2}} @ (c{n}.j.A{n} -> SKIP ; d{n}.j.B{n}.1 -> STOP)
assert R{n} :[deadlock free]
assert STOP [T= R{n} [[ c{n}.0.A{n} <- d{n}.0.A{n} ]]
"
    )
}
