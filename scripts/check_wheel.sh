#!/usr/bin/env bash
# Build the sdist and, from it, the wheel; install the wheel with its runtime dependencies
# only (no extras) in a fresh venv outside the repository; run `memfold demo` from there.
# Also checks the wheel holds the package data and that the scripted LLM server, used
# without memfold[testing], fails with one clear error naming the extra.
# Uses uv (from the dev extra, or on PATH): its cache makes the install take seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"
echo "== wheel: build sdist + wheel, install in a fresh venv, run memfold demo"
UV="${UV:-}"
if [ -z "$UV" ]; then
  if [ -x .venv/bin/uv ]; then UV=.venv/bin/uv; else UV="$(command -v uv || true)"; fi
fi
if [ -z "$UV" ]; then
  echo "check_wheel: uv not found (bash scripts/setup.sh installs it with the dev extra)" >&2
  exit 1
fi
PYTHON="${PYTHON:-python3}"
export UV_PYTHON_DOWNLOADS=never
work="$(mktemp -d "${TMPDIR:-/tmp}/memfold-wheel.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# `uv build` with no target builds the sdist, then the wheel from that sdist.
"$UV" build --quiet --out-dir "$work/dist" .
sdist=("$work"/dist/memfold-*.tar.gz)
wheel=("$work"/dist/memfold-*.whl)
[ -f "${sdist[0]}" ] || { echo "check_wheel: no sdist built" >&2; exit 1; }
[ -f "${wheel[0]}" ] || { echo "check_wheel: no wheel built" >&2; exit 1; }

"$UV" venv --quiet --python "$PYTHON" "$work/venv"
"$UV" pip install --quiet --python "$work/venv/bin/python" "${wheel[0]}"
py="$work/venv/bin/python"

# Every file git tracks under src/memfold must be in the wheel (none where this is no checkout).
git ls-files src/memfold 2>/dev/null | sed 's|^src/||' >"$work/tracked.txt" || true
# Run from a folder outside the repository, so nothing is imported from src/.
cd "$work"
"$py" - "${wheel[0]}" "$work/tracked.txt" "$root" <<'EOF'
import importlib.util
import sys
import zipfile
from collections import Counter
from importlib import resources

names = zipfile.ZipFile(sys.argv[1]).namelist()
twice = [n for n, k in Counter(names).items() if k > 1]
assert not twice, f"files in the wheel twice: {twice}"
need = [
    "memfold/py.typed",
    "memfold/embed/assets/tokenizer.json",
    "memfold/judge/prompts/consolidation.md",
    "memfold/templates/report.html.j2",
    "memfold/templates/report.md.j2",
    "memfold/samples/demo_stream.jsonl",
]
from pathlib import Path

src = Path(sys.argv[3]) / "src"
tracked = [n for n in Path(sys.argv[2]).read_text().split() if (src / n).is_file()]
missing = [n for n in need + tracked if n not in names]
assert not missing, f"missing from the wheel: {missing}"
import memfold

where = resources.files("memfold")
assert "site-packages" in str(where), f"memfold imported from {where}, not the fresh venv"
for extra in ("starlette", "uvicorn"):
    assert importlib.util.find_spec(extra) is None, f"{extra} installed without an extra"
try:
    import memfold.testing.fake_llm  # noqa: F401
except ImportError as exc:
    assert "memfold[testing]" in str(exc), str(exc)
    print(f"memfold.testing without its extra: {exc}")
else:
    raise AssertionError("memfold.testing.fake_llm imported without starlette/uvicorn")
print(f"wheel ok: {len(names)} files ({len(tracked)} tracked under src/memfold, all there)")
print(f"installed memfold: {where}")
EOF
want="memfold $(sed -n 's/^version = "\(.*\)"$/\1/p' "$root/pyproject.toml")"
got="$("$work/venv/bin/memfold" --version)"
[ "$got" = "$want" ] || { echo "check_wheel: memfold --version said '$got', not '$want'" >&2; exit 1; }
"$work/venv/bin/memfold" demo >"$work/demo.out" 2>&1 || {
  cat "$work/demo.out"
  echo "check_wheel: memfold demo failed in the fresh venv" >&2
  exit 1
}
grep -q "memfold demo" "$work/demo.out" || {
  cat "$work/demo.out"
  echo "check_wheel: memfold demo printed no demo" >&2
  exit 1
}
echo "$got: memfold demo from the installed wheel ok ($(wc -l <"$work/demo.out") lines)"
