#!/usr/bin/env bash
# The workstation-scale runs. The 2x7 sliding-tile puzzle (43,589,145,600
# states, depth 108) counted at two threads, from a puzzle file and as
# tiles-2x7 side by side, next to the 3x4 puzzle (`eleven`, 2.4e8 states)
# for the states-per-second ratio; every level checked against the
# published histogram (tests/data/tiles-2x7-levels.txt, OEIS A346736).
# Prints one table.
#
#   scripts/big-run.sh            the full run: two counts of 14-16 minutes, 10.2 GiB
#   scripts/big-run.sh --quick    their first 46 levels (7.3e8 states): about a minute
#   scripts/big-run.sh --twisty FILE --table LEVELS [--kill-at D]
#                                 a twisty puzzle's count with --checkpoint,
#                                 killed with SIGKILL at level D (its widest
#                                 by default) and resumed, checked against the
#                                 published table LEVELS (a level size a line):
#                                 MoonSpinner, 47,151,720,000 positions, from
#                                 twsearch's samples/main/moonspinner.tws with
#                                 tests/data/moonspinner-levels.txt
#   scripts/big-run.sh [--quick] -- ARGS   extra arguments for the 2x7 count
#   scripts/big-run.sh --processes 2 [-- ARGS]   the count on 2 MPI ranks of this
#                                     machine (-j 1 each; built with --features mpi
#                                     into target/mpi), their summed RSS and disk sampled
#   scripts/big-run.sh --kill-at 69   the count with --checkpoint, killed with
#                                     SIGKILL at level 69 and resumed: the
#                                     result checked, each part timed
#
# Not part of .ci/run in full (too long); its quick form is. A full run
# appends its table to docs/benchmarks.md (scripts/record.py; NO_RECORD=1
# does not).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=target/release/reach
if [[ " $* " == *" --processes "* ]]; then
    cargo build --release --quiet --features mpi --target-dir target/mpi
    bin=target/mpi/release/reach
else
    cargo build --release --quiet
fi
run=(python3 scripts/big_run.py "$bin" "$@")
# A full run that passes goes into docs/benchmarks.md's record.
if [[ " $* " != *" --quick "* ]]; then run=(python3 scripts/record.py "scripts/big-run.sh $*" -- "${run[@]}"); fi
exec "${run[@]}"
