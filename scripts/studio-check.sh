#!/usr/bin/env bash
# Drives `reach studio` in headless Chromium as a designer would
# (scripts/studio_check.py): draws a piece, makes a mistake, plays a
# solution, runs a census and opens its hardest start, saves; foreign hosts refused.
# Installs Debian's `chromium` with apt-get when it is missing; where it
# cannot be installed, says so and skips.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$browser" ] && command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
  echo "studio check: installing chromium with apt-get"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) >/dev/null 2>&1 || true
  browser=$(command -v chromium || true)
fi
if [ -z "$browser" ]; then
  echo "NOTICE: studio check SKIPPED: no Chromium and it could not be installed (apt-get install chromium)"
  exit 0
fi
exec python3 scripts/studio_check.py target/release/reach "$browser" "${1:-target/studio-check}"
