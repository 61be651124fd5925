#!/usr/bin/env bash
# Plays `reach solve klotski --metric piece --html` in headless Chromium
# with the page's keyboard controls and compares the screenshots of the
# first and last positions with the boards (scripts/browser_check.py).
# Takes Chromium from scripts/chromium.sh (which installs it when it can);
# where there is none, says so and skips.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
browser=$(scripts/chromium.sh)
if [ -z "$browser" ]; then
  echo "NOTICE: browser check SKIPPED: no Chromium and it could not be installed (apt-get install chromium)"
  exit 0
fi
exec python3 scripts/browser_check.py target/release/reach "$browser" "${1:-target/browser-check}"
