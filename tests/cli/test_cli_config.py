"""A bad --path or configuration: one `error: ...` line, exit code 2, nothing created."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from memfold.cli import main

COMMANDS = [
    ("stats",),
    ("add", "Sam lives in Lyon"),
    ("search", "where"),
    ("export", "{tmp}/out.jsonl"),
    ("review", "status"),
    ("report",),
    ("demo",),
]


def setup_case(case: str, tmp: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, str]:
    """Prepare one bad situation; returns the --path to pass and a part of the message."""
    config = tmp / "config.toml"
    config.write_text("")
    monkeypatch.setenv("MEMFOLD_CONFIG", str(config))
    store = tmp / "m.db"
    if case == "folder":
        store = tmp / "folder"
        store.mkdir()
        return store, "is a folder"
    if case == "text file":
        store = tmp / "notes.txt"
        store.write_text("not a database\n")
        return store, "not a SQLite database"
    if case == "missing folder":
        return tmp / "missing" / "m.db", "does not exist"
    if case == "bad value":
        monkeypatch.setenv("MEMFOLD_CONSOLIDATION__DISCOVERY_THRESHOLD", "high")
        return store, "consolidation.discovery_threshold"
    if case == "unknown env key":
        monkeypatch.setenv("MEMFOLD_CONSOLIDATON__MODE", "sync")
        return store, "MEMFOLD_CONSOLIDATON__MODE"
    if case == "unknown file key":
        config.write_text("[search]\ndefault_kk = 3\n")
        return store, "default_kk"
    assert case == "missing config file"
    monkeypatch.setenv("MEMFOLD_CONFIG", str(tmp / "nope.toml"))
    return store, "MEMFOLD_CONFIG"


CASES = [
    "folder",
    "text file",
    "missing folder",
    "bad value",
    "unknown env key",
    "unknown file key",
    "missing config file",
]


def snapshot(folder: Path) -> dict[str, bytes | None]:
    return {
        str(p.relative_to(folder)): (p.read_bytes() if p.is_file() else None)
        for p in folder.rglob("*")
    }


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: "-".join(c[:2]))
def test_bad_path_or_config_is_one_line_exit_2(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    case: str,
    command: tuple[str, ...],
) -> None:
    store, expected = setup_case(case, tmp_path, monkeypatch)
    args = [a.replace("{tmp}", str(tmp_path)) for a in command]
    before = snapshot(tmp_path)
    with pytest.raises(SystemExit) as info:
        main([*args, "--path", str(store)])
    out, err = capsys.readouterr()
    assert info.value.code == 2
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and expected in lines[0]
    assert "Traceback" not in out + err
    assert snapshot(tmp_path) == before  # no store, no export, the text file unchanged


def test_console_script_reports_a_config_error_in_one_line(tmp_path: Path) -> None:
    exe = Path(sys.executable).parent / "memfold"
    env = {"MEMFOLD_CONSOLIDATION__MODE": "later", "MEMFOLD_CONFIG": str(tmp_path / "none.toml")}
    (tmp_path / "none.toml").write_text("")
    proc = subprocess.run(
        [str(exe), "stats", "-p", str(tmp_path / "m.db")],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", **env},
    )
    assert proc.returncode == 2
    assert proc.stderr.strip().startswith("error: invalid setting consolidation.mode")
    assert len(proc.stderr.strip().splitlines()) == 1 and proc.stdout == ""
    assert not (tmp_path / "m.db").exists()


@pytest.mark.parametrize(
    "args",
    [
        ("search", "tea", "-k", "abc"),
        ("stats", "--bogus"),
        ("nosuchcommand",),
        ("add",),
        ("undo", "abc"),
    ],
)
def test_bad_option_or_argument_is_one_line_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, args: tuple[str, ...]
) -> None:
    with pytest.raises(SystemExit) as info:
        main([*args, "--path", str(tmp_path / "m.db")] if args[0] != "nosuchcommand" else [*args])
    out, err = capsys.readouterr()
    lines = [line for line in err.splitlines() if line.strip()]
    assert info.value.code == 2 and len(lines) == 1 and lines[0].startswith("error: ")
    assert "--help" in lines[0] and "Usage:" not in out + err
    assert not (tmp_path / "m.db").exists()


def test_help_still_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["search", "--help"])
    assert info.value.code == 0 and "Usage" in capsys.readouterr().out
