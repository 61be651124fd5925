#!/usr/bin/env bash
# Drives `reach studio` in headless Chromium as a designer would
# (scripts/studio_check.py): draws a piece, makes a mistake, plays a
# solution, runs a census and opens its hardest start, saves; foreign hosts refused;
# a twisty puzzle pasted in: its God's-number table, a scramble's solution, its census.
# Takes Chromium from scripts/chromium.sh (which installs it when it can);
# where there is none, says so and skips.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
browser=$(scripts/chromium.sh)
if [ -z "$browser" ]; then
  echo "NOTICE: studio check SKIPPED: no Chromium and it could not be installed (apt-get install chromium)"
  exit 0
fi
exec python3 scripts/studio_check.py target/release/reach "$browser" "${1:-target/studio-check}"
