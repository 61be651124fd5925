#!/usr/bin/env bash
# Plays `reach solve klotski --metric piece --html` in headless Chromium
# with the page's keyboard controls and compares the screenshots of the
# first and last positions with the boards (scripts/browser_check.py).
# Installs Debian's `chromium` with apt-get when it is missing; where it
# cannot be installed, says so and skips.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$browser" ] && command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
  echo "browser check: installing chromium with apt-get"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) >/dev/null 2>&1 || true
  browser=$(command -v chromium || true)
fi
if [ -z "$browser" ]; then
  echo "NOTICE: browser check SKIPPED: no Chromium and it could not be installed (apt-get install chromium)"
  exit 0
fi
exec python3 scripts/browser_check.py target/release/reach "$browser" "${1:-target/browser-check}"
