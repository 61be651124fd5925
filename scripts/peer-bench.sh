#!/usr/bin/env bash
# reach against twsearch on whole twisty puzzles, side by side in one run:
# for each file, `reach count FILE` (the store it chooses) and `twsearch
# -g FILE`, interleaved REPEATS times, with median wall seconds, CPU
# seconds (user + system) and peak RSS, and the levels checked equal.
#
#   TWSEARCH=path/to/twsearch scripts/peer-bench.sh FILE...
#   REPEATS=5 THREADS=2 TWSEARCH=... scripts/peer-bench.sh FILE...
#   scripts/peer-bench.sh --quick
#
# With no FILE: pyraminx, skewb, skewb_diamond, 2x2x2, dino and
# Jing_pyraminx from $SAMPLES (twsearch's samples/main). Without TWSEARCH,
# reach alone. Wherever `reach show` gives the group's order (Schreier-Sims,
# no search), the count must equal it. --quick (CI's form): reach alone,
# once, on the repository's 2x2x2.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
if [ "${1:-}" = "--quick" ]; then
    exec python3 scripts/peer_bench.py target/release/reach "" 1 2 tests/data/cube2.tws
fi
if [ $# -eq 0 ]; then
    dir="${SAMPLES:-}"
    if [ -z "$dir" ] || ! [ -d "$dir" ]; then
        echo "usage: scripts/peer-bench.sh FILE... (or SAMPLES=twsearch's samples/main)" >&2
        exit 2
    fi
    set -- "$dir/pyraminx.tws" "$dir/skewb.tws" "$dir/skewb_diamond.tws" "$dir/2x2x2.tws" \
        "$dir/dino.tws" "$dir/Jing_pyraminx.tws"
fi
exec python3 scripts/peer_bench.py target/release/reach "${TWSEARCH:-}" \
    "${REPEATS:-3}" "${THREADS:-2}" "$@"
