#!/usr/bin/env bash
# Issue 83's one worker against one search: `explore --workers 1` timed
# against `explore --threads 1` by `farm-bench --vs` (pairs run in turn,
# the ratio taken pair by pair) on the dining philosophers (N = 7,
# 930 431 states), LockFreeQueue (3 nodes, 2 data, 3 threads; 7.7 M) and
# ListStack (5, 4, 2; 4.3 M). Target: one worker's time per state within
# 5 % of one search's (a ratio ≤ 1.05).
#
#   bash benches/one_worker.sh [SYMCSP]      # default target/release/symcsp
set -u
here="$(cd "$(dirname "$0")/.." && pwd)"
bin="${1:-$here/target/release/symcsp}"
runs="${RUNS:-3}"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
# shellcheck source=benches/widen.sh
source "$here/benches/widen.sh"
widen "$here/models/lockfreequeue.csp" 3 2 3 > "$dir/lfq.csp"
widen "$here/models/liststack.csp" 5 4 2 > "$dir/ls.csp"

for model in "$here/benches/models/dining.csp System" "$dir/lfq.csp" "$dir/ls.csp"; do
  echo "== explore $(basename "${model%% *}")"
  # shellcheck disable=SC2086
  farm-bench -n "$runs" --timeout 900 --vs "$bin explore $model --threads 1" \
    -- $bin explore $model --workers 1 2>&1 | grep -E "wall|A/B cpu"
done
