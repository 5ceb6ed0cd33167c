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


def test_review_scan_and_run_take_scope_ids(
    capsys: pytest.CaptureFixture[str],
    db_path: Path,
    embedder: LocalEmbedder,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MEMFOLD_REVIEW__MIN_PAIR_AGE_S", "0")
    monkeypatch.setenv("MEMFOLD_REVIEW__MAX_DAILY_QUEUE_SHARE", "1.0")
    monkeypatch.setenv("MEMFOLD_REVIEW__GATE_MIN_PAIRS", "1")
    with Memory(db_path, embedder=embedder, consolidate="off") as mem:
        for fact in FACTS[:2]:
            for _ in range(2):
                mem.add(fact, user_id="u", agent_id="bot")
                mem.add(fact, user_id="other")
    p = str(db_path)
    _, out = run(capsys, "review", "scan", "-p", p, "--user-id", "u", "--agent-id", "bot", "--json")
    scanned = json.loads(out)
    assert scanned["scope_key"] == "u=u|a=bot|s=" and scanned["queued"] == 2
    _, out = run(capsys, "review", "run", "-p", p, "--user-id", "u", "--agent-id", "bot", "--json")
    result = json.loads(out)
    assert result["scope_key"] == "u=u|a=bot|s=" and result["counts"]["merged"] == 2
    with Memory(db_path, embedder=embedder, consolidate="off") as mem:
        assert len(mem.list(user_id="u", agent_id="bot")) == 2
        assert len(mem.list(user_id="other")) == 4  # another scope: untouched
    with pytest.raises(SystemExit) as info:
        main(["review", "run", "-p", p, "--all", "--user-id", "u"])
    assert info.value.code == 2 and "--all" in capsys.readouterr().err
    with pytest.raises(SystemExit) as info:
        main(["review", "scan", "-p", p, "--session-id", "a|b"])
    assert info.value.code == 2 and "session_id" in capsys.readouterr().err
