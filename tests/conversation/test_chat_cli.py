"""`memfold chat append / show / export` through the real entry point."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memfold.cli import main


@pytest.fixture(autouse=True)
def _own_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "config.toml"
    config.write_text("")
    monkeypatch.setenv("MEMFOLD_CONFIG", str(config))


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    with pytest.raises(SystemExit) as info:
        main(list(args))
    out, err = capsys.readouterr()
    code = info.value.code
    return (code if isinstance(code, int) else (0 if code is None else 1)), out, err


def test_append_show_export(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    db = str(tmp_path / "chat.db")
    code, out, err = run(capsys, "chat", "append", "s1", "user", "I moved to Lisbon", "-p", db,
                         "--user", "ana")  # fmt: skip
    assert code == 0, err
    assert "appended message 0 to session s1" in out
    code, out, err = run(capsys, "chat", "append", "s1", "assistant", "Nice!", "-p", db,
                         "--user", "ana", "--metadata", '{"model": "m1"}', "--json")  # fmt: skip
    assert code == 0, err
    assert json.loads(out)["position"] == 1 and json.loads(out)["metadata"] == {"model": "m1"}
    code, out, _ = run(capsys, "chat", "show", "s1", "-p", db, "--user", "ana", "--json")
    shown = json.loads(out)
    assert [m["content"] for m in shown["messages"]] == ["I moved to Lisbon", "Nice!"]
    assert shown["summary"] == []
    code, out, _ = run(capsys, "chat", "show", "s1", "-p", db, "--user", "ana")
    assert code == 0 and "I moved to Lisbon" in out and "assistant" in out
    target = tmp_path / "s1.jsonl"
    code, out, _ = run(capsys, "chat", "export", "s1", str(target), "-p", db, "--user", "ana")
    assert code == 0 and "exported 2 messages" in out
    lines = [json.loads(line) for line in target.read_text().splitlines()]
    assert [(m["position"], m["role"]) for m in lines] == [(0, "user"), (1, "assistant")]


def test_bad_input_is_an_error_and_writes_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    db = str(tmp_path / "chat.db")
    assert run(capsys, "chat", "append", "s1", "user", "hello", "-p", db)[0] == 0
    code, _, err = run(capsys, "chat", "append", "s1", "wizard", "hi", "-p", db)
    assert code == 2 and "'wizard' is not one of 'system', 'user', 'assistant', 'tool'" in err
    code, _, err = run(capsys, "chat", "append", "s1", "user", "   ", "-p", db)
    assert code == 2 and "content" in err
    code, out, _ = run(capsys, "chat", "show", "s1", "-p", db, "--json")
    assert [m["content"] for m in json.loads(out)["messages"]] == ["hello"]
    code, _, err = run(capsys, "chat", "show", "s1", "-p", str(tmp_path / "none.db"))
    assert code == 2 and "does not exist" in err
    code, _, err = run(capsys, "chat", "export", "s1", str(tmp_path / "no" / "x.jsonl"), "-p", db)
    assert code == 2 and "no such folder" in err
    code, _, err = run(capsys, "chat", "export", "s1", db, "-p", db)
    assert code == 2 and "overwrite the store" in err
