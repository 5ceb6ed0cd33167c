"""A bad store path or configuration raises a memfold error and creates or changes nothing."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from memfold import Memory
from memfold.embed.local import LocalEmbedder
from memfold.errors import ConfigError, InvalidInput
from memfold.store.sqlite.connection import SQLITE_HEADER


def files_under(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


@pytest.fixture(autouse=True)
def empty_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "config" / "memfold.toml"
    config.parent.mkdir()
    config.write_text("")
    monkeypatch.setenv("MEMFOLD_CONFIG", str(config))
    monkeypatch.delenv("MEMFOLD_PATH", raising=False)


def test_a_folder_is_refused(tmp_path: Path, embedder: LocalEmbedder) -> None:
    folder = tmp_path / "store"
    folder.mkdir()
    with pytest.raises(InvalidInput, match="is a folder"):
        Memory(folder, embedder=embedder)
    assert list(folder.iterdir()) == []


@pytest.mark.parametrize(
    "content",
    [
        b"hello, this is a text file\n",
        b"SQLite",  # shorter than the header
        SQLITE_HEADER[:-1] + b"!" + b"\x00" * 100,
    ],
)
def test_a_file_that_is_not_sqlite_is_left_byte_for_byte(
    tmp_path: Path, embedder: LocalEmbedder, content: bytes
) -> None:
    path = tmp_path / "notes.txt"
    path.write_bytes(content)
    before = files_under(tmp_path)
    with pytest.raises(InvalidInput, match="not a SQLite database"):
        Memory(path, embedder=embedder)
    assert files_under(tmp_path) == before  # unchanged, and no -wal / -shm beside it


def test_a_damaged_sqlite_file_is_an_input_error(tmp_path: Path, embedder: LocalEmbedder) -> None:
    path = tmp_path / "damaged.db"
    path.write_bytes(SQLITE_HEADER + b"\xff" * 4000)
    with pytest.raises(InvalidInput, match=r"cannot open .* as a memfold store"):
        Memory(path, embedder=embedder)


def test_a_missing_folder_is_refused_not_created(tmp_path: Path, embedder: LocalEmbedder) -> None:
    with pytest.raises(InvalidInput, match="does not exist"):
        Memory(tmp_path / "missing" / "sub" / "m.db", embedder=embedder)
    assert not (tmp_path / "missing").exists()


def test_memfold_path_in_a_missing_folder_is_refused(
    tmp_path: Path, embedder: LocalEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMFOLD_PATH", str(tmp_path / "missing" / "m.db"))
    with pytest.raises(InvalidInput, match="does not exist"):
        Memory(embedder=embedder)
    assert not (tmp_path / "missing").exists()


def test_the_default_location_creates_its_folder(
    tmp_path: Path, embedder: LocalEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    default = tmp_path / "data" / "memfold" / "memfold.db"
    monkeypatch.setattr("memfold.memory.default_store_path", lambda: default)
    with Memory(embedder=embedder, consolidate="off") as mem:
        mem.add("a first memory")
    assert default.is_file()


def test_an_empty_file_becomes_a_store(tmp_path: Path, embedder: LocalEmbedder) -> None:
    path = tmp_path / "empty.db"
    path.touch()
    with Memory(path, embedder=embedder, consolidate="off") as mem:
        mem.add("stored in a file that was empty")
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT count(*) FROM memories").fetchone()[0] == 1


@pytest.mark.parametrize(
    ("var", "value", "match"),
    [
        ("MEMFOLD_SEARCH__DEFAULT_K", "many", "invalid setting search.default_k"),
        ("MEMFOLD_CONSOLIDATON__MODE", "sync", "no section \\[consolidaton\\]"),
    ],
)
def test_a_bad_configuration_creates_no_store(
    tmp_path: Path,
    embedder: LocalEmbedder,
    monkeypatch: pytest.MonkeyPatch,
    var: str,
    value: str,
    match: str,
) -> None:
    monkeypatch.setenv(var, value)
    before = files_under(tmp_path)
    with pytest.raises(ConfigError, match=match):
        Memory(tmp_path / "m.db", embedder=embedder)
    assert files_under(tmp_path) == before
