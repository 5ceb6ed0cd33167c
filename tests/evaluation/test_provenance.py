"""A result says how it was made: the command line and the commit of the checkout."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from memfold.evaluation.provenance import provenance

ROOT = Path(__file__).resolve().parents[2]


def test_the_command_is_the_process_line_under_the_programs_name(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sys, "argv", ["/venv/bin/memfold", "eval", "my data", "--suite", "pairs"])
    assert provenance("memfold")["command"] == "memfold eval 'my data' --suite pairs"
    monkeypatch.setattr(sys, "argv", ["benchmarks/bench_add.py", "--repeat", "3"])
    assert provenance()["command"] == "python benchmarks/bench_add.py --repeat 3"


def test_the_commit_is_the_checkouts_head_marked_dirty_when_tracked_files_differ() -> None:
    head = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    ).stdout.strip()
    commit = provenance()["commit"]
    assert commit is not None and re.fullmatch(rf"{head}(\+dirty)?", commit)
