"""`memfold review ...` and `memfold report` through the real entry point and the rule judge."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memfold import Memory
from memfold.cli import main
from memfold.embed.local import LocalEmbedder
from review.support import FACTS


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    with pytest.raises(SystemExit) as info:
        main(list(args))
    out, err = capsys.readouterr()
    assert info.value.code == 0, err
    return int(info.value.code or 0), out


def test_review_run_status_pending_report(
    capsys: pytest.CaptureFixture[str],
    db_path: Path,
    embedder: LocalEmbedder,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    monkeypatch.setenv("MEMFOLD_REVIEW__MIN_PAIR_AGE_S", "0")
    monkeypatch.setenv("MEMFOLD_REVIEW__MAX_DAILY_QUEUE_SHARE", "1.0")
    with Memory(db_path, embedder=embedder, consolidate="off") as mem:
        for fact in FACTS:
            for _ in range(2):  # each fact twice: twelve exact-duplicate pairs
                mem.add(fact, user_id="u")
    p = str(db_path)
    _, out = run(capsys, "review", "run", "-p", p, "-u", "u", "--json")
    result = json.loads(out)
    assert result["status"] == "done"
    assert result["counts"]["queued"] == 12
    assert result["counts"]["merged"] == 10  # P90 >= 0.90: at most 10 merges a run
    _, out = run(capsys, "list", "-p", p, "-u", "u", "--json")
    assert len(json.loads(out)) == 24 - 10
    _, out = run(capsys, "review", "status", "-p", p, "--json")
    status = json.loads(out)
    assert status["breaker"]["open"] is False
    _, out = run(capsys, "review", "pending", "-p", p, "--json")
    assert json.loads(out)["held"] == []
    _, out = run(capsys, "review", "resume", "-p", p)
    assert "closed" in out
    _, md = run(capsys, "report", "-p", p, "--since", "7d", "--format", "md")
    assert "P90" in md and "10" in md
    html_file = tmp_path / "report.html"
    run(capsys, "report", "-p", p, "--format", "html", "-o", str(html_file))
    html = html_file.read_text()
    assert html.startswith("<!DOCTYPE html>") or "<html" in html
    assert "<svg" in html
