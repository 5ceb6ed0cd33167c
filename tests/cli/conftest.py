"""Running the CLI in-process through its real entry point, and a small real store."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli.support import Cli, Result
from memfold import Memory
from memfold.cli import main
from memfold.embed.local import LocalEmbedder


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Cli:
    """``cli("list", "-p", path)``: exit code, stdout, stderr, at 80 columns unless told."""

    def run(*args: str, columns: int = 80) -> Result:
        monkeypatch.setenv("COLUMNS", str(columns))
        capsys.readouterr()
        with pytest.raises(SystemExit) as info:
            main(list(args))
        out, err = capsys.readouterr()
        code = info.value.code
        return Result(code if isinstance(code, int) else (0 if code is None else 1), out, err)

    return run


@pytest.fixture
def config_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty config file of this test's own (the defaults)."""
    path = tmp_path / "config.toml"
    path.write_text("")
    monkeypatch.setenv("MEMFOLD_CONFIG", str(path))
    return path


FACTS = [
    ("Sam lives in Lyon and works as a [senior] nurse at the hospital", "sam"),
    ("Sam prefers green tea over coffee in the morning", "sam"),
    ("Ana keeps her bike in the garage behind the house", "ana"),
]


@pytest.fixture
def store(db_path: Path, embedder: LocalEmbedder, config_file: Path) -> dict[str, str]:
    """Three memories in two scopes, one edited and one archived (so the log has rows).
    Returns the ids by user and the path."""
    with Memory(db_path, embedder=embedder, consolidate="off") as mem:
        ids = [mem.add(text, user_id=user, sources=["chat-1"]).memory.id for text, user in FACTS]
        mem.update(ids[1], importance=0.9, reason="asked twice " * 12)
        mem.delete(ids[2], reason="moved away")
    return {"path": str(db_path), "sam": ids[0], "tea": ids[1], "ana": ids[2]}
