"""The memfold command line, run in-process through its real entry point."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from memfold.cli import main


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as info:
        main(list(args))
    out, err = capsys.readouterr()
    return int(info.value.code or 0), out, err


def test_add_search_get_list_history_log(capsys: pytest.CaptureFixture[str], db_path: Path) -> None:
    p = str(db_path)
    code, out, _ = run(
        capsys,
        "add",
        "Sam lives in Lyon",
        "-p",
        p,
        "-u",
        "sam",
        "-s",
        "c1",
        "--consolidate",
        "off",
        "--json",
    )
    assert code == 0
    memory_id = json.loads(out)["memory"]["id"]
    code, out, _ = run(capsys, "search", "Where does Sam live?", "-p", p, "-u", "sam", "--json")
    assert code == 0 and json.loads(out)[0]["id"] == memory_id
    code, out, _ = run(capsys, "get", memory_id, "-p", p, "--json")
    assert json.loads(out)["sources"] == ["c1"]
    code, out, _ = run(capsys, "list", "-p", p, "-u", "sam", "--json")
    assert [m["id"] for m in json.loads(out)] == [memory_id]
    code, out, _ = run(capsys, "list", "-p", p, "-u", "sam")
    assert code == 0 and "Sam lives in Lyon" in out
    code, out, _ = run(capsys, "history", memory_id, "-p", p, "--json")
    assert code == 0 and json.loads(out) == []
    code, out, _ = run(capsys, "stats", "-p", p, "--json")
    assert json.loads(out)["memories"] == 1
    code, out, _ = run(capsys, "log", "-p", p, "--json")
    assert code == 0 and json.loads(out) == []


def test_export_import_reembed(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    a, b, f = str(tmp_path / "a.db"), str(tmp_path / "b.db"), str(tmp_path / "x.jsonl")
    run(capsys, "add", "first fact", "-p", a, "--consolidate", "off")
    run(capsys, "add", "second fact", "-p", a, "--consolidate", "off")
    code, out, _ = run(capsys, "export", f, "-p", a)
    assert code == 0 and "exported 2" in out
    code, out, _ = run(capsys, "import", f, "-p", b, "--json")
    assert code == 0 and json.loads(out)["imported"] == 2
    code, out, _ = run(capsys, "reembed", "-p", b, "--all")
    assert code == 0 and "re-embedded 2" in out


@pytest.mark.parametrize(
    "args",
    [
        ("add", "   "),
        ("add", "x", "--importance", "3"),
        ("add", "x", "--area", "attic"),
        ("get", "no-such-id"),
        ("undo", "999"),
        ("search", "q", "-k", "0"),
        ("import", "/no/such/file.jsonl"),
    ],
)
def test_bad_input_exits_2_with_one_line(
    capsys: pytest.CaptureFixture[str], db_path: Path, args: tuple[str, ...]
) -> None:
    code, out, err = run(capsys, *args, "-p", str(db_path))
    assert code == 2
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ")
    assert "Traceback" not in err + out


def test_malformed_import_names_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    f = tmp_path / "bad.jsonl"
    f.write_text('{"id": "a", "text": "ok", "user_id": "u"}\n{broken\n')
    code, _, err = run(capsys, "import", str(f), "-p", str(tmp_path / "m.db"))
    assert code == 2 and "line 2" in err


def test_console_script_installed(tmp_path: Path) -> None:
    exe = Path(sys.executable).parent / "memfold"
    proc = subprocess.run(
        [str(exe), "add", "", "-p", str(tmp_path / "m.db")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2 and proc.stderr.strip().startswith("error: text is empty")


def test_queue_then_separate_worker_process(tmp_path: Path) -> None:
    db = str(tmp_path / "q.db")
    exe = str(Path(sys.executable).parent / "memfold")
    for _ in range(2):
        proc = subprocess.run(
            [
                exe,
                "add",
                "Sam prefers Rust for systems work",
                "-p",
                db,
                "-u",
                "sam",
                "--consolidate",
                "queue",
                "--json",
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert proc.returncode == 0, proc.stderr
        assert json.loads(proc.stdout)["decision"] is None
    stats = subprocess.run(
        [exe, "stats", "-p", db, "--json"], capture_output=True, text=True, timeout=120
    )
    assert json.loads(stats.stdout)["jobs_pending"] == 2
    work = subprocess.run(
        [exe, "worker", "-p", db, "--once"], capture_output=True, text=True, timeout=120
    )
    assert work.returncode == 0 and "consolidated" in work.stdout
    listed = subprocess.run(
        [exe, "list", "-p", db, "-u", "sam", "--json"], capture_output=True, text=True, timeout=120
    )
    assert len(json.loads(listed.stdout)) == 1


def test_add_leaves_the_category_to_the_rules_unless_given(
    capsys: pytest.CaptureFixture[str], db_path: Path
) -> None:
    p = str(db_path)
    event = "Yesterday I went to the dentist at 9 am"
    code, out, _ = run(capsys, "add", event, "-p", p, "--consolidate", "off", "--json")
    chosen = json.loads(out)["memory"]
    assert code == 0 and chosen["category_source"] == "rules"
    assert chosen["category"] == "episodic"  # an event decays as one
    code, out, _ = run(
        capsys,
        "add",
        "Sam likes tea",
        "-p",
        p,
        "--category",
        "core",
        "--consolidate",
        "off",
        "--json",
    )
    given = json.loads(out)["memory"]
    assert (given["category"], given["category_source"]) == ("core", "given")
