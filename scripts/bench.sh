#!/usr/bin/env bash
# End-to-end benchmarks of the release binary: wall time, states per second,
# peak RSS and speed-up over one thread, printed as markdown tables, every
# count checked against its published figure (a wrong answer fails the run).
#
#   scripts/bench.sh              full run: adds `eleven` (240 million states)
#   scripts/bench.sh --quick      no `eleven` (what CI runs)
#   THREADS="1 2 16" scripts/bench.sh   choose the thread counts
#
# A full run appends its tables to docs/benchmarks.md (scripts/record.py;
# NO_RECORD=1 does not).
set -euo pipefail
cd "$(dirname "$0")/.."

mode=full
if [ "${1:-}" = "--quick" ]; then mode=quick; fi

cargo build --release --quiet
cores=$(nproc)
if [ -z "${THREADS:-}" ]; then
  THREADS="1"
  for t in 2 4 8 16; do
    if [ "$t" -le "$cores" ]; then THREADS="$THREADS $t"; fi
  done
  case " $THREADS " in *" $cores "*) ;; *) THREADS="$THREADS $cores" ;; esac
fi
echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "mode: $mode; threads: $THREADS"
echo
run=(python3 scripts/bench.py target/release/reach "$mode" $THREADS)
# A full run that passes goes into docs/benchmarks.md's record.
if [ "$mode" = full ]; then run=(python3 scripts/record.py "THREADS=\"$THREADS\" scripts/bench.sh $*" -- "${run[@]}"); fi
exec "${run[@]}"
