#!/usr/bin/env bash
# One command: set up .venv (first run), then lint, type-check and run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --browser
echo "== ruff"
.venv/bin/ruff check src tests benchmarks
.venv/bin/ruff format --check src tests benchmarks
echo "== mypy"
.venv/bin/mypy
MYPYPATH=src:tests:benchmarks .venv/bin/mypy --explicit-package-bases tests benchmarks
bash scripts/check_wheel.sh
echo "== pytest"
.venv/bin/pytest -q -p no:cacheprovider "$@"
