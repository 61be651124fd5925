#!/usr/bin/env bash
# Prints the path of a Chromium for the browser checks (browser-check.sh,
# studio-check.sh), installing Debian's `chromium` with apt-get when it is
# missing and this is root; prints nothing where there is none.
set -euo pipefail
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$browser" ] && command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
  echo "installing chromium with apt-get" >&2
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) >/dev/null 2>&1 || true
  browser=$(command -v chromium || true)
fi
echo "$browser"
