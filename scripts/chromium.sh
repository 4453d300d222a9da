#!/usr/bin/env bash
# Finds Debian's `chromium` for the console's browser tests (driven by playwright-core), installing it with
# apt-get when it is missing and this runs as root. Prints the browser's path on stdout; $CHROMIUM overrides.
set -euo pipefail

find_browser() {
  if [[ -n "${CHROMIUM:-}" && -x "${CHROMIUM}" ]]; then echo "$CHROMIUM"; return 0; fi
  for candidate in chromium chromium-browser; do
    if command -v "$candidate" >/dev/null 2>&1; then command -v "$candidate"; return 0; fi
  done
  return 1
}

if find_browser; then exit 0; fi

if [[ "$(id -u)" == "0" ]] && command -v apt-get >/dev/null 2>&1; then
  echo "chromium.sh: installing Debian's chromium (apt-get install -y chromium)" >&2
  DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >&2
  find_browser && exit 0
fi

echo "chromium.sh: the browser tests need Debian's 'chromium' package: sudo apt-get install -y chromium (or set CHROMIUM=/path/to/chromium)" >&2
exit 1
