#!/usr/bin/env bash
# Issue 66's table: how explore and the checks scale with the cores, on
# threads (--threads N, the one search) and on timely workers of one
# process (--workers N). Every figure is the wall time of the whole run
# (start-up and loading included) of one process, with the speed-up over
# one thread beside it.
#
#   bash benches/many_cores.sh [SYMCSP]          # default target/release/symcsp
#   THREADS="1 2" WORKERS="2" bash benches/many_cores.sh   # on two cores
#   ROWS="1 2" bash benches/many_cores.sh        # only some rows
#   NODES=10 bash benches/many_cores.sh          # ListStack (10,4,3)
#
# The models are the shipped ones widened (written to a temporary
# folder): LockFreeQueue with 3 nodes, 3 threads and 2 data (7.7 M
# states unreduced), ListStack with NODES (default 11) nodes, 4 data and
# 3 threads (3.3 M representatives at 11). Each run is held to TIMEOUT seconds (default 300);
# one that passes it shows as `>T`.
set -u
here="$(cd "$(dirname "$0")/.." && pwd)"
bin="${1:-$here/target/release/symcsp}"
threads="${THREADS:-1 4 16}"
workers="${WORKERS:-4 16}"
rows="${ROWS:-1 2 3 4 5}"
timeout="${TIMEOUT:-300}"
nodes="${NODES:-11}"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT

# shellcheck source=benches/widen.sh
source "$here/benches/widen.sh"
widen "$here/models/lockfreequeue.csp" 3 2 3 > "$dir/lfq332.csp"
widen "$here/models/liststack.csp" "$nodes" 4 3 > "$dir/liststack.csp"

# The rows: a name, then symcsp's arguments (the parallel option follows).
row_name() {
  case $1 in
    1) echo "explore LockFreeQueue (3,3,2), unreduced" ;;
    2) echo "\`Spec [T= System\`, LockFreeQueue (3,3,2), unreduced" ;;
    3) echo "\`System :[divergence free]\`, LockFreeQueue (3,3,2)" ;;
    4) echo "explore ListStack ($nodes,4,3), reduced" ;;
    5) echo "\`Spec(<>) [T= System :[symmetry reduce]\`, ListStack ($nodes,4,3)" ;;
  esac
}
row_args() {
  case $1 in
    1) echo "explore $dir/lfq332.csp System" ;;
    2) echo "check $dir/lfq332.csp --assert 3" ;;
    3) echo "check $dir/lfq332.csp --assert 5" ;;
    4) echo "explore $dir/liststack.csp System --symmetry NodeID,Data,ThreadID" ;;
    5) echo "check $dir/liststack.csp --assert 2" ;;
  esac
}

# seconds ARGS...: the wall time of one run, or >T past the time-out.
seconds() {
  local start end code
  start=$(date +%s.%N)
  timeout "$timeout" "$bin" "$@" --format json > "$dir/out.json" 2> "$dir/err.txt"
  code=$?
  end=$(date +%s.%N)
  if [ "$code" = 124 ]; then echo ">$timeout"; return; fi
  if [ "$code" != 0 ] && [ "$code" != 1 ]; then echo "exit$code"; return; fi
  echo "$start $end" | awk '{ printf "%.2f", $2 - $1 }'
}

ratio() {
  echo "$1 $2" | awk '{ if ($1 + 0 > 0 && $2 + 0 > 0) printf "%.1fx", $1 / $2; else printf "-" }'
}

echo "machine: $(nproc) cores; $("$bin" --version 2>/dev/null || echo symcsp)"
header="| work |"
rule="|---|"
for t in $threads; do header="$header $t thread$([ "$t" = 1 ] || echo s) |"; rule="$rule---|"; done
for w in $workers; do header="$header --workers $w |"; rule="$rule---|"; done
echo
echo "$header"
echo "$rule"
for r in $rows; do
  # shellcheck disable=SC2046
  set -- $(row_args "$r")
  line="| $(row_name "$r") |"
  one=""
  for t in $threads; do
    s=$(seconds "$@" --threads "$t")
    [ "$t" = 1 ] && one=$s
    if [ "$t" = 1 ]; then line="$line $s s |"; else line="$line $s s ($(ratio "$one" "$s")) |"; fi
  done
  for w in $workers; do
    s=$(seconds "$@" --workers "$w")
    line="$line $s s ($(ratio "$one" "$s")) |"
  done
  echo "$line"
done
