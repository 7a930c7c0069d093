#!/usr/bin/env bash
# Installs Debian's chromium for the headless Dagster UI test, when missing.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then exit 0; fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
  echo "installing Debian's chromium for the UI test ..." >&2
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
else
  echo "chromium is missing: install Debian's chromium (sudo apt-get install chromium) for the UI test" >&2
  exit 1
fi
