#!/usr/bin/env bash
# One command: set up .venv (first run), then lint, type-check and run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --browser
echo "== ruff"
.venv/bin/ruff check src tests benchmarks scripts
.venv/bin/ruff format --check src tests benchmarks scripts
echo "== mypy"
.venv/bin/mypy
MYPYPATH=src:tests:benchmarks .venv/bin/mypy --explicit-package-bases tests benchmarks
MYPYPATH=src:scripts .venv/bin/mypy --explicit-package-bases \
  scripts/docs_hooks.py scripts/draw_overview.py scripts/gen_reference.py \
  scripts/render_benchmarks.py
bash scripts/check_wheel.sh
echo "== docs"
site="$(mktemp -d)"
NO_MKDOCS_2_WARNING=1 .venv/bin/mkdocs build --strict --quiet --site-dir "$site"
rm -rf "$site"
echo "== pytest"
.venv/bin/pytest -q -p no:cacheprovider "$@"
