"""update, delete, feedback, --version, --json everywhere, stores that do not exist, the
configured consolidation mode, and commands that load no model."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest

from cli.support import Cli, Result
from memfold import Memory
from memfold.embed.local import LocalEmbedder


def ok_json(result: Result) -> Any:
    assert result.code == 0, result.err
    return json.loads(result.out)


def test_version(cli: Cli) -> None:
    result = cli("--version")
    assert result.code == 0 and result.out.strip() == f"memfold {version('memfold')}"
    # python -m memfold.cli (the benchmarks' way in) and python -m memfold are the same
    for module in ("memfold.cli", "memfold"):
        proc = subprocess.run(
            [sys.executable, "-m", module, "--version"],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert proc.returncode == 0 and proc.stdout == result.out


def test_update_delete_feedback_and_undo(
    cli: Cli, store: dict[str, str], embedder: LocalEmbedder
) -> None:
    p, sam = store["path"], store["sam"]
    out = ok_json(cli("update", sam, "Sam lives in Lyon and works nights", "-p", p, "--json"))
    assert isinstance(out, dict)
    assert out["memory"]["text"] == "Sam lives in Lyon and works nights"
    assert out["memory"]["version"] == 2
    edit_log = out["log_id"]
    result = cli("update", sam, "-p", p, "--importance", "0.8", "--metadata", '{"shift": "night"}')
    assert result.code == 0 and "`memfold undo" in result.out
    got = ok_json(cli("get", sam, "-p", p, "--json"))
    assert isinstance(got, dict)
    assert got["importance"] == 0.8 and got["metadata"] == {"shift": "night"}
    out = ok_json(cli("delete", sam, "-p", p, "--reason", "wrong person", "--json"))
    assert isinstance(out, dict) and out["memory"]["status"] == "archived"
    listed = ok_json(cli("list", "-p", p, "-u", "sam", "--json"))
    assert isinstance(listed, list) and sam not in [m["id"] for m in listed]
    assert cli("undo", str(out["log_id"]), "-p", p).code == 0
    with Memory(p, embedder=embedder, consolidate="off") as mem:
        assert mem.get(sam).status.value == "active"
        assert mem.history(sam)[0].id == edit_log
    fb = ok_json(cli("feedback", sam, "used", "-p", p, "--context", "asked", "--json"))
    assert fb == {"memory_id": sam, "kind": "used", "log_ids": []}
    status = ok_json(cli("review", "status", "-p", p, "--json"))
    assert isinstance(status, dict) and status["feedback"]["records"] == 1


JSON_COMMANDS = [
    ("list", "-u", "sam"),
    ("search", "tea", "-u", "sam"),
    ("get", "{sam}"),
    ("history", "{tea}"),
    ("log",),
    ("stats",),
    ("usage",),
    ("review", "status"),
    ("review", "pending"),
    ("review", "scan", "-u", "sam"),
    ("export", "{tmp}/out.jsonl"),
    ("feedback", "{sam}", "ignored"),
    ("update", "{sam}", "--importance", "0.7"),
    ("delete", "{tea}"),
    ("undo", "1"),
    ("scopes",),
    ("delete", "--all", "-u", "ana"),
]


@pytest.mark.parametrize("args", JSON_COMMANDS, ids=lambda a: "-".join(a[:2]))
def test_json_on_every_command_that_prints(
    cli: Cli, store: dict[str, str], tmp_path: Path, args: tuple[str, ...]
) -> None:
    filled = [a.format(sam=store["sam"], tea=store["tea"], tmp=tmp_path) for a in args]
    result = cli(*filled, "-p", store["path"], "--json")
    assert result.code == 0, result.err
    json.loads(result.out)


READ_COMMANDS = [
    ("get", "0123456789abcdef"),
    ("list",),
    ("search", "tea"),
    ("log",),
    ("history", "0123456789abcdef"),
    ("stats",),
    ("usage",),
    ("export", "{tmp}/out.jsonl"),
    ("review", "status"),
    ("review", "pending"),
    ("review", "scan"),
    ("review", "run"),
    ("report",),
    ("update", "0123456789abcdef", "new text"),
    ("delete", "0123456789abcdef"),
    ("feedback", "0123456789abcdef", "used"),
    ("undo", "1"),
    ("reembed",),
    ("scopes",),
    ("delete", "--all", "-u", "sam"),
    ("forget", "--user", "sam", "--yes"),
]


@pytest.mark.parametrize("args", READ_COMMANDS, ids=lambda a: "-".join(a[:2]))
def test_a_store_that_does_not_exist_is_refused(
    cli: Cli, tmp_path: Path, config_file: Path, args: tuple[str, ...]
) -> None:
    typo = tmp_path / "memfodl.db"
    result = cli(*(a.format(tmp=tmp_path) for a in args), "-p", str(typo))
    assert result.code == 2 and len(result.err_lines) == 1
    assert result.err_lines[0] == (
        f"error: store {typo} does not exist (check --path or MEMFOLD_PATH; "
        "`memfold add` creates one)"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.toml"]  # nothing created


@pytest.mark.parametrize(
    ("configured", "override", "mode", "queued"),
    [
        (None, None, "sync", 0),  # default "background": decided before the command returns
        ("sync", None, "sync", 0),
        ("queue", None, "queue", 2),
        ("off", None, "off", 0),
        ("queue", "sync", "sync", 0),
        ("sync", "off", "off", 0),
    ],
)
def test_add_follows_the_configured_consolidation_mode(
    cli: Cli,
    tmp_path: Path,
    config_file: Path,
    configured: str | None,
    override: str | None,
    mode: str,
    queued: int,
) -> None:
    if configured is not None:
        config_file.write_text(f'[consolidation]\nmode = "{configured}"\n')
    p = str(tmp_path / "m.db")
    extra = [] if override is None else ["--consolidate", override]
    for _ in range(2):  # the second save repeats the first: a decision when one is made
        out = ok_json(cli("add", "Sam lives in Lyon", "-p", p, *extra, "--json"))
    assert isinstance(out, dict)
    assert out["mode"] == mode
    assert (out["decision"] is not None) is (mode == "sync")
    stats = ok_json(cli("stats", "-p", p, "--json"))
    assert isinstance(stats, dict)
    assert stats["jobs_pending"] == queued
    assert stats["mode"] == (configured or "background")
    if mode == "queue":
        assert "memfold worker" in cli("add", "Sam likes tea", "-p", p).out


LOAD_CHECK = """
import sys
from memfold.cli import main

def run(*args):
    try:
        main(list(args))
    except SystemExit as exc:
        assert exc.code in (0, None), (args, exc.code)

p, memory_id = sys.argv[1], sys.argv[2]
for args in (["log"], ["get", memory_id], ["stats"], ["history", memory_id], ["list"]):
    run(*args, "-p", p, "--json")
print("before search:", "onnxruntime" in sys.modules, file=sys.stderr)
run("search", "tea", "-p", p, "--json")
print("after search:", "onnxruntime" in sys.modules, file=sys.stderr)
"""


def test_reading_commands_load_no_model(store: dict[str, str], tmp_path: Path) -> None:
    script = tmp_path / "load_check.py"
    script.write_text(LOAD_CHECK)
    proc = subprocess.run(
        [sys.executable, str(script), store["path"], store["sam"]],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    # onnxruntime is imported only when the local embedder is built
    assert proc.stderr.splitlines() == ["before search: False", "after search: True"]


def test_text_from_stdin(cli: Cli, store: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    p = store["path"]
    monkeypatch.setattr("sys.stdin", io.StringIO("Sam's sister Lea lives in Nantes\n"))
    out = ok_json(cli("add", "-", "-p", p, "-u", "sam", "--consolidate", "off", "--json"))
    assert out["memory"]["text"] == "Sam's sister Lea lives in Nantes"
    monkeypatch.setattr("sys.stdin", io.StringIO("Sam's sister Lea lives in Rennes"))
    out = ok_json(cli("update", out["memory"]["id"], "-", "-p", p, "--json"))
    assert out["memory"]["text"] == "Sam's sister Lea lives in Rennes"
