# Sourced by the benchmark scripts: widen FILE NODES DATA THREADS prints
# the shipped script FILE with its datatypes widened to NODES nodes (and
# Null), DATA data values and THREADS threads.
widen() {
  local nodes="Null" data threads_list="T0" i
  for ((i = 0; i < $2; i++)); do nodes="$nodes | N$i"; done
  data=$(echo A B C D E F | cut -d' ' -f1-"$3" | sed 's/ / | /g')
  for ((i = 1; i < $4; i++)); do threads_list="$threads_list | T$i"; done
  sed -e "s/^datatype NodeIDType = .*/datatype NodeIDType = $nodes/" \
      -e "s/^datatype Data = .*/datatype Data = $data/" \
      -e "s/^datatype ThreadID = .*/datatype ThreadID = $threads_list/" "$1"
}
