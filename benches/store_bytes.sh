#!/usr/bin/env bash
# Issue 64's in-memory figure: the store's bytes per state (rows and
# index, as `explore` reports them) and the run's peak memory and wall
# time, on every model docs/performance.md names, on one thread. With a
# second binary, each figure beside that binary's and their ratio.
#
#   bash benches/store_bytes.sh [SYMCSP]            # default target/release/symcsp
#   BASE=/path/to/older/symcsp bash benches/store_bytes.sh
#   BIG=1 bash benches/store_bytes.sh               # adds ListStack (6,4,3): 154 M states
#
# The models are the shipped ones widened (written to a temporary folder)
# as benches/scaling.rs and benches/many_cores.sh widen them.
set -u
here="$(cd "$(dirname "$0")/.." && pwd)"
bin="${1:-$here/target/release/symcsp}"
base="${BASE:-}"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT

# shellcheck source=benches/widen.sh
source "$here/benches/widen.sh"
cp "$here/benches/models/dining.csp" "$dir/dining.csp"
cp "$here/models/lockfreequeue.csp" "$dir/lfq.csp"
sed -e 's/^N = 3/N = 5/' -e 's/^datatype Id = P0 | P1 | P2$/datatype Id = P0 | P1 | P2 | P3 | P4/' \
  "$here/models/philosophers.csp" > "$dir/phil5.csp"
widen "$here/models/liststack.csp" 5 4 2 > "$dir/ls542.csp"
widen "$here/models/lockfreequeue.csp" 3 2 3 > "$dir/lfq332.csp"
widen "$here/models/liststack.csp" 10 4 3 > "$dir/ls1043.csp"
widen "$here/models/liststack.csp" 6 4 3 > "$dir/ls643.csp"

runs=(
  "dining|dining.csp System"
  "LockFreeQueue (3,2,2)|lfq.csp System"
  "phil5|phil5.csp System"
  "ListStack (5,4,2)|ls542.csp System"
  "LockFreeQueue (3,3,2)|lfq332.csp System"
  "ListStack (10,4,3), reduced|ls1043.csp System --symmetry NodeID,Data,ThreadID"
)
[ -n "${BIG:-}" ] && runs+=("ListStack (6,4,3)|ls643.csp System")

# measure SYMCSP ARGS...: "states bytes/state seconds peak-MB" of one run.
measure() {
  local symcsp="$1"; shift
  # shellcheck disable=SC2068
  /usr/bin/time -f "%e %M" -o "$dir/time.txt" "$symcsp" explore "$dir/$1" ${@:2} \
    --threads 1 --format json > "$dir/out.json" 2> /dev/null
  python3 - "$dir/out.json" "$dir/time.txt" <<'EOF'
import json, sys
out = json.load(open(sys.argv[1]))
wall, peak_kb = open(sys.argv[2]).read().split()[-2:]
states = out["states"]
print(states, "%.1f" % (out["store_bytes"] / states), wall, "%.0f" % (int(peak_kb) / 1024))
EOF
}

echo "machine: $(nproc) cores; $("$bin" --version 2>/dev/null || echo symcsp)"
if [ -n "$base" ]; then
  echo
  echo "| model | states | store B/state, base → this | wall s, base → this | peak MB, base → this |"
  echo "|---|---|---|---|---|"
else
  echo
  echo "| model | states | store B/state | wall s | peak MB |"
  echo "|---|---|---|---|---|"
fi
for run in "${runs[@]}"; do
  name="${run%%|*}"
  # shellcheck disable=SC2086
  set -- ${run#*|}
  read -r states bytes wall peak <<< "$(measure "$bin" "$@")"
  if [ -n "$base" ]; then
    read -r _ bbytes bwall bpeak <<< "$(measure "$base" "$@")"
    pct() { echo "$1 $2" | awk '{ printf "%.0f %%", 100 * $2 / $1 }'; }
    echo "| $name | $states | $bbytes → $bytes ($(pct "$bbytes" "$bytes")) | $bwall → $wall ($(pct "$bwall" "$wall")) | $bpeak → $peak |"
  else
    echo "| $name | $states | $bytes | $wall | $peak |"
  fi
done
