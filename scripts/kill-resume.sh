#!/usr/bin/env bash
# Kills a checkpointed count with SIGKILL at random moments, resumes it after
# each kill, and checks that the final report (states, depth, level profile)
# equals an uninterrupted run's.
#
#   scripts/kill-resume.sh                 eleven, 5 kills (about 5 minutes)
#   scripts/kill-resume.sh PUZZLE KILLS    another puzzle or number of kills
#   SEED=42 scripts/kill-resume.sh         the same moments again
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
exec python3 scripts/kill_resume.py target/release/reach "${1:-eleven}" "${2:-5}"
