#!/usr/bin/env bash
# Issue 64's spilling figures: LockFreeQueue with 4 nodes (3 data values,
# 2 threads; 12.2 M states explored, 20.3 M in the `[T=` product),
# explored and checked in memory, then under --max-memory a third of the
# peak the run in memory needed, spilling to a folder (`auto`). Prints,
# for each, the states (and verdict), wall time and peak resident
# memory of both runs, and the ratios the issue asks for: time ≤ 3x,
# peak within 15 % of the budget.
#
#   bash benches/spill.sh [SYMCSP]      # default target/release/symcsp
#   THREADS="1 2" bash benches/spill.sh # thread counts (default: 1 and every core)
#   SPILL_DIR=/big/disk bash benches/spill.sh
set -u
here="$(cd "$(dirname "$0")/.." && pwd)"
bin="${1:-$here/target/release/symcsp}"
threads="${THREADS:-1 $(nproc)}"
spill="${SPILL_DIR:-auto}"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT

# shellcheck source=benches/widen.sh
source "$here/benches/widen.sh"
widen "$here/models/lockfreequeue.csp" 4 3 2 > "$dir/lfq432.csp"

runs=(
  "explore|explore $dir/lfq432.csp System"
  "[T=|check $dir/lfq432.csp --assert 3"
)

# measure ARGS...: "answer wall-seconds peak-KiB" of one run.
measure() {
  # shellcheck disable=SC2068
  /usr/bin/time -f "%e %M" -o "$dir/time.txt" "$bin" $@ > "$dir/out.txt" 2> /dev/null
  local answer
  answer=$(grep -oE '^states +[0-9]+|Passed — [0-9]+ states|Failed — [0-9]+ states|incomplete.*|Inconclusive.*' \
    "$dir/out.txt" | head -1 | tr -s ' ')
  echo "$answer|$(cat "$dir/time.txt")"
}

echo "machine: $(nproc) cores; spill folder: $spill"
echo
echo "| run | threads | in memory: answer, s, peak MB | budget MB | spilling: answer, s, peak MB | time ratio | peak / budget |"
echo "|---|---|---|---|---|---|---|"
for run in "${runs[@]}"; do
  name="${run%%|*}"
  args="${run#*|}"
  for t in $threads; do
    IFS='|' read -r answer times <<< "$(measure $args --threads "$t")"
    read -r wall peak <<< "$times"
    budget=$((peak / 3))
    IFS='|' read -r spilt_answer spilt_times <<< \
      "$(measure $args --threads "$t" --max-memory "${budget}K" --spill-dir "$spill")"
    read -r spilt_wall spilt_peak <<< "$spilt_times"
    python3 - "$name" "$t" "$answer" "$wall" "$peak" "$budget" "$spilt_answer" "$spilt_wall" "$spilt_peak" <<'EOF'
import sys
name, t, answer, wall, peak, budget, s_answer, s_wall, s_peak = sys.argv[1:]
mb = lambda kib: int(kib) * 1024 / 1e6
print(f"| {name} | {t} | {answer}, {float(wall):.1f} s, {mb(peak):.0f} | {mb(budget):.0f} | "
      f"{s_answer}, {float(s_wall):.1f} s, {mb(s_peak):.0f} | "
      f"{float(s_wall) / float(wall):.2f}x | {int(s_peak) / int(budget):.2f} |")
EOF
  done
done
