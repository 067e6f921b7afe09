#!/usr/bin/env bash
# Issue 83's wide and long processes: a `[]` of 10 000 and of 20 000
# alternatives explored, the deadlock check of a 10 000-step prefix
# chain (its counterexample shown state by state, `--format json`), and
# 30 000 `(a -> SKIP) ;` in sequence explored. Prints each run's answer,
# wall time and peak resident memory, best of RUNS (default 3).
# Targets: 10 000 alternatives ≤ 0.3 s and ≤ 100 MB, 20 000 ≤ 0.6 s and
# ≤ 200 MB, the chain ≤ 1 s, the sequence ≤ 2 s.
#
#   bash benches/wide.sh [SYMCSP]      # default target/release/symcsp
set -u
here="$(cd "$(dirname "$0")/.." && pwd)"
bin="${1:-$here/target/release/symcsp}"
runs="${RUNS:-3}"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT

# alternatives N: a choice of N prefixes, each on its own event.
alternatives() {
  local i
  echo "channel a : {0..$(($1 - 1))}"
  printf 'P = a.0 -> STOP'
  for ((i = 1; i < $1; i++)); do printf ' [] a.%d -> STOP' "$i"; done
  echo
}
alternatives 10000 > "$dir/alt10k.csp"
alternatives 20000 > "$dir/alt20k.csp"
{
  echo "channel a"
  printf 'P = '; for ((i = 0; i < 10000; i++)); do printf 'a -> '; done; echo STOP
  echo "assert P :[deadlock free]"
} > "$dir/chain.csp"
{
  echo "channel a"
  printf 'P = '; for ((i = 0; i < 30000; i++)); do printf '(a -> SKIP) ; '; done; echo STOP
} > "$dir/sequence.csp"

table=(
  "10 000 alternatives, explore|explore $dir/alt10k.csp P"
  "20 000 alternatives, explore|explore $dir/alt20k.csp P"
  "10 000-step chain, deadlock check|check $dir/chain.csp --format json"
  "30 000 steps in sequence, explore|explore $dir/sequence.csp P"
)

printf '%-36s %-14s %8s %10s\n' "case" "answer" "wall s" "peak MB"
for row in "${table[@]}"; do
  what="${row%%|*}"
  read -r -a args <<< "${row#*|}"
  best_wall="" best_peak="" answer=""
  for ((r = 0; r < runs; r++)); do
    /usr/bin/time -o "$dir/time" -f "%e %M" "$bin" "${args[@]}" > "$dir/out" 2>/dev/null
    read -r wall peak < <(tail -1 "$dir/time")
    if [[ -z "$best_wall" ]] || awk "BEGIN{exit !($wall < $best_wall)}"; then
      best_wall="$wall" best_peak="$peak"
    fi
    answer="$(grep -oE '"result": *"[a-z]+"|^states +[0-9]+' "$dir/out" | head -1 | tr -s ' ' | tr -d '"')"
  done
  printf '%-36s %-14s %8s %10.1f\n' "$what" "$answer" "$best_wall" "$(awk "BEGIN{print $best_peak/1024}")"
done
