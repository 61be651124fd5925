#!/usr/bin/env bash
# reach's count of classes of symmetric positions against twsearch's
# `-F -g` on the same file, side by side in one run: for a twisty file
# with its rotations (twsearch's samples/symm), `reach count FILE
# --max-depth D --symmetry on` and `twsearch -F -g FILE` timed to the
# line where it prints depth D (twsearch goes on past it: it is stopped
# there, its wall and CPU seconds and peak RSS read at that moment),
# interleaved REPEATS times, medians, levels checked equal; reach both in
# memory and with its levels on disk (--spill, in a temporary directory);
# and with PLAIN=1, reach with --symmetry none once (on disk), for what
# symmetry saves.
#
#   TWSEARCH=path/to/twsearch scripts/symmetry-bench.sh [FILE] [DEPTH]
#
# FILE defaults to tests/data/cube3-rotations.tws (twsearch's
# samples/symm/3x3x3.tws), DEPTH to 8. Without TWSEARCH, reach alone.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
exec python3 scripts/symmetry_bench.py target/release/reach "${TWSEARCH:-}" \
    "${REPEATS:-3}" "${THREADS:-2}" "${1:-tests/data/cube3-rotations.tws}" "${2:-8}" \
    "${PLAIN:-0}"
