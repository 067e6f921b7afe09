#!/usr/bin/env bash
# Issue 63's table: partial order reduction against the whole search, and
# with symmetry reduction, in one run of one binary. Each row is one
# assertion checked (or one process explored) four ways: whole, reduced
# by partial order (`--por on`), by symmetry, and by both; states and the
# wall time of the search, as `symcsp check --format json` reports them.
#
#   bash benches/por.sh [SYMCSP]          # default target/release/symcsp
#   PHILS="8 10" bash benches/por.sh      # the dining tables to check
#   TIMEOUT=60 bash benches/por.sh        # each run's time-out (default 120)
#
# The models are the shipped ones, widened where asked (written to a
# temporary folder): models/forks.csp at N philosophers (PHILS, default
# "8 10 12"), without a butler (it deadlocks: the check stops at the
# deadlock) and with one (deadlock free: the whole state space), its
# symmetry the structure's (the rotations of the table);
# models/lockfreequeue.csp and models/liststack.csp as shipped, their
# traces refinements; tests/fixtures/por/reads.csp, where reads of a
# shared cell commute. A run its time-out stops shows `>T`.
set -u
here="$(cd "$(dirname "$0")/.." && pwd)"
bin="${1:-$here/target/release/symcsp}"
phils="${PHILS:-8 10 12}"
timeout="${TIMEOUT:-120}"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT

# run FILE ASSERT SYMMETRY POR: "states seconds" of one check.
run() {
    local json
    json="$("$bin" check "$1" --assert "$2" --symmetry "$3" --por "$4" --timeout "$timeout" \
        --format json 2>/dev/null)"
    python3 - "$json" <<'PY' 2>/dev/null || echo "? ?"
import json, sys
a = json.loads(sys.argv[1])["assertions"][0]
mark = "" if a["result"] in ("passed", "failed") else ">"
print(a["states"], mark + "%.2f" % a["seconds"])
PY
}

# row NAME FILE ASSERT TYPES: the four ways of one assertion.
row() {
    local name="$1" file="$2" assert="$3" types="$4"
    local whole por sym both
    whole="$(run "$file" "$assert" off off)"
    por="$(run "$file" "$assert" off on)"
    sym="$(run "$file" "$assert" "$types" off)"
    both="$(run "$file" "$assert" "$types" on)"
    printf '| %s | %s | %s | %s | %s |\n' "$name" \
        "$(echo "$whole" | awk '{print $1 " / " $2 " s"}')" \
        "$(echo "$por" | awk '{print $1 " / " $2 " s"}')" \
        "$(echo "$sym" | awk '{print $1 " / " $2 " s"}')" \
        "$(echo "$both" | awk '{print $1 " / " $2 " s"}')"
}

echo "symcsp: $("$bin" --version 2>/dev/null) on $(nproc) cores, time-out ${timeout} s"
echo
echo "| assertion | whole | por | symmetry | both |"
echo "|---|---|---|---|---|"
for n in $phils; do
    sed "s/^N = 5$/N = $n/" "$here/models/forks.csp" >"$dir/forks$n.csp"
    row "forks N=$n, Table :[deadlock free] (no butler)" "$dir/forks$n.csp" 1 structural
    row "forks N=$n, Served :[deadlock free] (butler)" "$dir/forks$n.csp" 3 structural
done
row "lockfreequeue, System :[deadlock free]" "$here/models/lockfreequeue.csp" 1 auto
row "lockfreequeue, Spec [T= System" "$here/models/lockfreequeue.csp" 3 auto
row "liststack, Spec(<>) [T= System" "$here/models/liststack.csp" 1 auto
row "ring, System :[deadlock free]" "$here/models/ring.csp" 1 auto
row "treebroadcast, InOrder [T= Delivery" "$here/models/treebroadcast.csp" 3 auto
row "pollers over a cell, System :[deadlock free [F]]" "$here/tests/fixtures/por/reads.csp" 1 auto
