#!/usr/bin/env bash
# One command: the demo on the embedded default (SQLite file, local embedding model,
# offline rule judge; no API key, no server). The first run creates .venv-demo with the
# core package alone (no PostgreSQL, browser or test tools); later runs reuse it.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
if [ ! -x .venv-demo/bin/memfold ]; then
  "$PYTHON" -m venv .venv-demo
  .venv-demo/bin/python -m pip install --quiet --disable-pip-version-check .
fi
bash scripts/wordnet.sh || echo "demo: WordNet was not installed; synonyms come from the word tables alone" >&2
exec .venv-demo/bin/memfold demo "$@"
