"""Output that reads at 80 columns, and empty results that say what is empty."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli.support import Cli, Result
from memfold import Memory
from memfold.embed.local import LocalEmbedder
from memfold.engine.review.runs import BREAKER_KEY


def fits(result: Result, width: int = 80) -> list[str]:
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    too_wide = [line for line in lines if len(line) > width]
    assert not too_wide, too_wide
    return lines


def test_log_at_80_columns_keeps_every_field(cli: Cli, store: dict[str, str]) -> None:
    lines = fits(cli("log", "-p", store["path"]))
    text = "\n".join(lines)
    for needed in ("#1", "#2", "EDIT", "ARCHIVE", "api", "moved away", store["tea"][:8]):
        assert needed in text
    # The reasoning is wrapped whole under its entry, not cut into 6-character columns.
    assert text.count("asked twice") == 12
    header = next(line for line in lines if line.startswith("#1"))
    assert "EDIT" in header and header.count(":") == 2  # the time, whole


def test_log_is_a_table_on_a_wide_console(cli: Cli, store: dict[str, str]) -> None:
    lines = fits(cli("log", "-p", store["path"], columns=160), 160)
    assert any("reasoning" in line and "action" in line for line in lines)


def test_history_list_search_get_stats_fit_80_columns(cli: Cli, store: dict[str, str]) -> None:
    p = store["path"]
    text = "\n".join(fits(cli("history", store["tea"], "-p", p)))
    assert "EDIT" in text and "asked twice" in text
    text = "\n".join(fits(cli("list", "-p", p, "-u", "sam")))
    assert store["sam"][:8] in text and "[senior]" in text  # brackets printed, not markup
    assert "chat-1" in text  # the sources column
    text = "\n".join(fits(cli("search", "what does Sam drink", "-p", p, "-u", "sam")))
    assert "green tea" in text and store["tea"][:8] in text
    text = "\n".join(fits(cli("search", "bike", "-p", p, "-u", "ana", "--deep")))
    assert "(archived)" in text
    text = "\n".join(fits(cli("get", store["sam"], "-p", p)))
    assert store["sam"] in text and "chat-1" in text and "Lyon" in text
    text = "\n".join(fits(cli("stats", "-p", p)))
    assert "active 2, archived 1" in text


def test_review_status_reads_at_80_columns(
    cli: Cli, store: dict[str, str], embedder: LocalEmbedder
) -> None:
    lines = fits(cli("review", "status", "-p", store["path"]))
    text = "\n".join(lines)
    assert "breaker" in text and "closed" in text and "merges today  0 of 50" in text
    with Memory(store["path"], embedder=embedder, consolidate="off") as mem:
        state = {"open": True, "opened_at": "2026-11-22T10:00:00.123456+00:00", "run_id": 7}
        mem.store.set_meta(BREAKER_KEY, json.dumps({**state, "anomalies": 3}))
    text = "\n".join(fits(cli("review", "status", "-p", store["path"])))
    flat = " ".join(text.split())
    assert "OPEN since 2026-11-22T10:00:00.123456+00:00 (run #7, 3 anomalies)" in flat
    assert "`memfold review resume` closes it" in flat


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("list", "-u", "nobody"), "no active memories for user 'nobody'"),
        (("list", "-u", "ana"), "no active memories for user 'ana'"),
        (("list", "-u", "sam", "--area", "solutions"), "in area solutions"),
        (("search", "bike", "-u", "nobody"), "no memories of user 'nobody' match 'bike'"),
        (("review", "pending"), "nothing waits for review"),
        (("usage",), "no LLM calls recorded"),
    ],
)
def test_empty_results_say_what_is_empty(
    cli: Cli, store: dict[str, str], args: tuple[str, ...], says: str
) -> None:
    result = cli(*args, "-p", store["path"])
    assert result.code == 0, result.err
    assert result.out.strip().splitlines() == [result.out.strip()]  # one line, no table
    assert says in result.out and "┏" not in result.out


def test_empty_log_and_history(cli: Cli, tmp_path: Path, config_file: Path) -> None:
    p = str(tmp_path / "fresh.db")
    added = cli("add", "Sam lives in Lyon", "-p", p, "--consolidate", "off", "--json")
    memory_id = json.loads(added.out)["memory"]["id"]
    result = cli("log", "-p", p)
    assert result.code == 0 and result.out.strip() == (
        "the consolidation log is empty: nothing was merged, changed or undone"
    )
    result = cli("history", memory_id, "-p", p)
    assert result.code == 0 and "no logged change touched memory" in result.out
    assert len(result.out.strip().splitlines()) == 1


def test_review_run_scan_import_export_fit_80_columns(
    cli: Cli, store: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMFOLD_REVIEW__MIN_PAIR_AGE_S", "0")
    p = store["path"]
    text = "\n".join(fits(cli("review", "scan", "-p", p, "-u", "sam")))
    assert "scope_key" in text and "u=sam|a=|s=" in text
    text = "\n".join(fits(cli("review", "run", "-p", p, "-u", "sam")))
    assert "status" in text and "done" in text
    out = tmp_path / "all.jsonl"
    assert "exported 3 memories" in "\n".join(fits(cli("export", str(out), "-p", p)))
    text = "\n".join(fits(cli("import", str(out), "-p", str(tmp_path / "copy.db"))))
    assert "imported" in text and "3" in text
