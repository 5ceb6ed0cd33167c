#!/usr/bin/env bash
# One command: set up .venv (first run) and run the demo on the embedded default
# (SQLite file, local embedding model, offline rule judge; no API key, no server).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/memfold demo "$@"
