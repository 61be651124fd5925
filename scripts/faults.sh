#!/usr/bin/env bash
# Crashes and failures at every kind of moment of checkpointed runs (kill -9
# at random moments; with strace, SIGKILL at the N-th rename, unlink or
# fsync, ENOSPC at the N-th write, EIO at the N-th fsync), each followed by
# `reach resume` until the answer is in: every answer must equal the
# uninterrupted run's. Prints a table of tries and how each ended.
#
#   scripts/faults.sh            every case and pe766, more tries (about 10 minutes)
#   scripts/faults.sh --quick    no pe766, fewer tries (CI, about 3 minutes)
#   SEED=42 scripts/faults.sh    the same kill moments again
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
exec python3 scripts/faults.py target/release/reach "$@"
