"""``scripts/render_benchmarks.py record``: a replaced result is kept in the history,
however many times a day it is replaced."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _script(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "render_benchmarks", ROOT / "scripts" / "render_benchmarks.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    # Its dataclasses look their module up by name while they are made.
    monkeypatch.setitem(sys.modules, spec.name, module)
    spec.loader.exec_module(module)
    return module


def _result(folder: Path, commit: str, started: str) -> Path:
    path = folder / "eval-x.json"
    body = {"command": "memfold eval x", "commit": commit, "started": started, "n": 1}
    path.write_text(json.dumps(body), encoding="utf-8")
    return path


def test_each_replaced_result_of_a_day_stays_in_the_history(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = _script(monkeypatch)
    results, made = tmp_path / "results", tmp_path / "made"
    made.mkdir()
    monkeypatch.setattr(script, "ROOT", tmp_path)
    monkeypatch.setattr(script, "RESULTS", results)
    monkeypatch.setattr(script, "HISTORY", results / "history")
    results.mkdir()
    for commit, hour in (("aaa111", "09"), ("bbb222+dirty", "10"), ("ccc333", "11")):
        script.record([_result(made, commit, f"2026-11-29T{hour}:00:00")])
    kept = sorted(p.name for p in (results / "history").iterdir())
    assert kept == ["2026-11-29-aaa111-eval-x.json", "2026-11-29-bbb222_dirty-eval-x.json"]
    assert json.loads((results / "eval-x.json").read_text())["commit"] == "ccc333"
