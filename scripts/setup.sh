#!/usr/bin/env bash
# Create .venv and install memfold with its dev tools. Safe to run again:
# it reinstalls only when pyproject.toml changed. --browser: also Debian's chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
stamp=".venv/.memfold-installed"
want="$(sha256sum pyproject.toml | cut -d' ' -f1)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  .venv/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
  echo "$want" > "$stamp"
fi
bash scripts/wordnet.sh || echo "setup: WordNet was not installed; synonyms come from the word tables alone" >&2
# With --browser (scripts/test.sh): Debian's chromium, which the report's screenshot test
# drives with Playwright (Playwright's own browser download does not work here).
if [ "${1:-}" = "--browser" ] && ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing Debian's chromium for the report's screenshot test"
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      chromium fonts-dejavu-core >/dev/null
  else
    echo "setup: chromium is missing (apt-get install chromium); the report test will fail" >&2
  fi
fi
