#!/usr/bin/env bash
# Debian's chromium for the console's browser test (driven by playwright-core). Installed once; a no-op after.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then exit 0; fi
if ! command -v apt-get >/dev/null; then
  echo "[chromium] /usr/bin/chromium is missing and apt-get is not available: install Chromium by hand" >&2
  exit 1
fi
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
echo "[chromium] installing Debian's chromium (first run only)"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
