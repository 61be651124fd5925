#!/usr/bin/env bash
# The count across processes (the TCP mesh) on this machine's loopback:
# every configuration of processes x workers, each process started from a
# hostfile and measured on its own (peak RSS per process), the counts and
# level profiles checked against the single-process engine.
#
#   scripts/cluster-bench.sh            pe766, then eleven (about 10 minutes)
#   scripts/cluster-bench.sh --quick    pe766 only
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
exec python3 scripts/cluster_bench.py target/release/reach "${1:-full}"
