#!/usr/bin/env bash
# The 3x3x3 counted to a depth, side by side in one run: reach with its
# levels on disk, reach in memory (to depth 7: coded levels, and
# --plain-levels), and `twsearch -g` when TWSEARCH names its binary; wall
# time and peak RSS of each, and bytes a state in the levels. Every level must equal OEIS A080601.
#
#   scripts/cube3-bench.sh                         depth 7, tests/data/cube3.tws
#   scripts/cube3-bench.sh 8                       depth 8 (1,332,343,288; ~25 GiB of disk)
#   TWSEARCH=path/to/twsearch scripts/cube3-bench.sh 7 path/to/samples/main/3x3x3.tws
#   THREADS=4 scripts/cube3-bench.sh
#   TWSEARCH=path/to/twsearch scripts/cube3-bench.sh 8 tests/data/cube3-rotations.tws
#       by classes of symmetric positions (the file declares the rotations;
#       reach searches by them by default) against `twsearch -F -g`
set -euo pipefail
cd "$(dirname "$0")/.."
depth="${1:-7}"
file="${2:-tests/data/cube3.tws}"
cargo build --release --quiet
exec python3 scripts/cube3_bench.py target/release/reach "$file" "$depth" "${TWSEARCH:-}" "${THREADS:-2}"
