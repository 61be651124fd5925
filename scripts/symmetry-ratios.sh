#!/usr/bin/env bash
# What symmetry saves: `reach count PUZZLE --symmetry on` against
# `--symmetry none`, interleaved REPEATS times at THREADS threads, medians
# of wall and CPU seconds and peak RSS, levels checked equal, and the CPU
# a class costs against a position (what each symmetry costs a
# successor): Klotski and tests/data/mirror-5x5.toml (a board's mirror),
# the 2x2x2 and the Skewb with their rotations (twsearch's samples/symm).
#
#   scripts/symmetry-ratios.sh          # all four
#   QUICK=1 scripts/symmetry-ratios.sh  # the two sliding-block puzzles (CI)
#
# A full run appends its table to docs/benchmarks.md (scripts/record.py;
# NO_RECORD=1 runs it alone).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
run=(python3 scripts/symmetry_ratios.py target/release/reach "${REPEATS:-3}" "${THREADS:-2}"
    "${QUICK:-0}")
# A full run that passes goes into docs/benchmarks.md's record.
if [ "${QUICK:-0}" != 1 ]; then run=(python3 scripts/record.py "scripts/symmetry-ratios.sh" -- "${run[@]}"); fi
exec "${run[@]}"
