#!/usr/bin/env bash
# Runs LangGraph's own store tests against memfold's MemfoldStore (docs/langgraph.md).
#
#   bash scripts/langgraph_suite.sh [LANGGRAPH]
#
# LANGGRAPH: a langgraph checkout, or a (bare) git dir of one; else $LANGGRAPH_REPO;
# else the mirror at /work/.mirror/langchain-ai+langgraph/repo. $LANGGRAPH_REV picks the
# commit of a git dir (default HEAD). $LANGGRAPH_SUITE_ARGS: extra pytest arguments.
#
# The test files are copied into a temp dir (never into this repository) with a
# conftest that builds every store they make as a MemfoldStore over a fresh memfold
# Memory in a temp file (scripts/langgraph_suite/memfold_shim.py); what they need is
# installed into .venv when missing. Prints each file's pass/fail counts and failures.
# Exit status: 0 when every file ran (failures included: docs/langgraph.md lists the
# ones expected), 2 when a file could not be run.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PY="$ROOT/.venv/bin/python"
SRC=${1:-${LANGGRAPH_REPO:-/work/.mirror/langchain-ai+langgraph/repo}}
REV=${LANGGRAPH_REV:-HEAD}
HERE="$ROOT/scripts/langgraph_suite"
FILES=(
  libs/checkpoint/tests/test_store.py
  libs/checkpoint-sqlite/tests/test_store.py
  libs/checkpoint-sqlite/tests/test_async_store.py
  libs/checkpoint-sqlite/tests/test_ttl.py
)

if [ ! -x "$PY" ]; then
  echo "no $PY: run scripts/setup.sh first" >&2
  exit 2
fi

# --- where the tests come from --------------------------------------------------------
if [ -f "$SRC/libs/checkpoint/tests/test_store.py" ]; then
  fetch() { cp "$SRC/$1" "$2"; }
  FROM="$SRC (work tree)"
elif git --git-dir="$SRC" rev-parse --verify -q "$REV^{commit}" >/dev/null 2>&1; then
  fetch() { git --git-dir="$SRC" show "$REV:$1" >"$2"; }
  FROM="$SRC @ $(git --git-dir="$SRC" rev-parse --short "$REV^{commit}")"
else
  echo "no langgraph tests at $SRC (a checkout or a git dir; see the header)" >&2
  exit 2
fi

# --- what the tests import --------------------------------------------------------------
if ! "$PY" -c 'import langgraph.store.sqlite, aiosqlite, sqlite_vec, pytest_mock' 2>/dev/null; then
  echo "installing the tests' requirements into .venv ..."
  "$PY" -m pip install -q langgraph-checkpoint-sqlite aiosqlite sqlite-vec pytest-mock
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/langgraph-suite.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# libs/<lib>/tests/<file> -> $WORK/<lib>/tests/<file>, with LangGraph's helpers
for lib in checkpoint checkpoint-sqlite; do
  mkdir -p "$WORK/$lib/tests"
  fetch "libs/$lib/tests/__init__.py" "$WORK/$lib/tests/__init__.py"
  cp "$HERE/conftest.py" "$HERE/memfold_shim.py" "$WORK/$lib/tests/"
  cp "$HERE/pytest.ini" "$WORK/$lib/pytest.ini"
done
fetch libs/checkpoint/tests/embed_test_utils.py "$WORK/checkpoint/tests/embed_test_utils.py"

echo "LangGraph store tests from $FROM against MemfoldStore"
declare -a SUMMARY=()
status=0
for file in "${FILES[@]}"; do
  rel=${file#libs/}
  lib=${rel%%/*}
  fetch "$file" "$WORK/$rel"
  log="$WORK/${rel//\//_}.log"
  echo
  echo "=== $file"
  set +e
  # shellcheck disable=SC2086  # LANGGRAPH_SUITE_ARGS is a list of words
  (cd "$WORK/$lib" && "$PY" -m pytest -c pytest.ini -p no:cacheprovider -q -rfE \
    ${LANGGRAPH_SUITE_ARGS:-} "${rel#"$lib"/}") 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  set -e
  counts=$(grep -E '(passed|failed|error).* in [0-9.]+s' "$log" | tail -1 |
    sed -E 's/^=+ //; s/ in [0-9.]+s.*$//' || true)
  if [ "$rc" -gt 1 ] || [ -z "$counts" ]; then
    counts="did not run (pytest exit $rc)"
    status=2
  fi
  SUMMARY+=("$(printf '%-50s %s' "$file" "$counts")")
  while read -r failed; do
    SUMMARY+=("    ${failed%% - *}")
  done < <(grep -E '^(FAILED|ERROR) ' "$log" | sed -E 's/^(FAILED|ERROR) tests\///' || true)
done

echo
echo "=== summary (LangGraph $FROM)"
printf '%s\n' "${SUMMARY[@]}"
exit "$status"
