#!/usr/bin/env bash
# Reads every .tws file of a directory (twsearch's samples/main/ on its
# forked-cpp-main branch, say) the way a user would, and prints a markdown
# table: the file, whether reach reads it (or why not, first line of the
# error), its key space and how many 64-bit words a key takes, and its
# positions: all of them when the count ends within the time limit, else
# those of the levels it completed (SIGTERM at the limit). With TWSEARCH
# set to a twsearch binary, each count is also compared level by level
# with `twsearch -g` under the same limit, on the levels both reached.
#
#   scripts/twsearch-samples.sh DIR              counts of 10 s each
#   LIMIT=60 scripts/twsearch-samples.sh DIR     a minute each
#   TWSEARCH=path/to/twsearch scripts/twsearch-samples.sh DIR
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -ne 1 ] || ! [ -d "$1" ]; then
    echo "usage: scripts/twsearch-samples.sh DIR (a directory of .tws files)" >&2
    exit 2
fi
cargo build --release --quiet
exec python3 scripts/twsearch_samples.py target/release/reach "$1" "${LIMIT:-10}" "${TWSEARCH:-}"
