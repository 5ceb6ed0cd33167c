"""Memory picks its backend: a SQLite path or a PostgreSQL url, never both."""

from __future__ import annotations

from pathlib import Path

import pytest

from memfold import Memory, StoreUnavailable
from memfold.embed.local import LocalEmbedder
from memfold.errors import ConfigError, InvalidInput, ReadOnlyStore
from memfold.store.postgres import PostgresStore
from memfold.store.sqlite import SQLiteStore


def test_url_argument_env_and_positional_url(
    pg_url: str, tmp_path: Path, embedder: LocalEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Memory(url=pg_url, embedder=embedder, consolidate="off") as mem:
        assert isinstance(mem.store, PostgresStore)
        mem.add("Erin runs a bakery in Porto", user_id="erin")
    with Memory(pg_url, embedder=embedder, consolidate="off") as mem:  # a url as the path
        assert isinstance(mem.store, PostgresStore)
        assert [m.text for m in mem.list(user_id="erin")] == ["Erin runs a bakery in Porto"]
    monkeypatch.setenv("MEMFOLD_URL", pg_url)
    with Memory(embedder=embedder, consolidate="off") as mem:
        assert isinstance(mem.store, PostgresStore)
        assert mem.search("bakery", user_id="erin")[0].memory.text.startswith("Erin")
    with Memory(tmp_path / "file.db", embedder=embedder, consolidate="off") as mem:
        assert isinstance(mem.store, SQLiteStore)  # an explicit path wins over the env
        assert mem.list(user_id="erin") == []


def test_two_backends_are_refused(
    pg_url: str, tmp_path: Path, embedder: LocalEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(InvalidInput, match="not both"):
        Memory(tmp_path / "x.db", url=pg_url, embedder=embedder)
    monkeypatch.setenv("MEMFOLD_URL", pg_url)
    monkeypatch.setenv("MEMFOLD_PATH", str(tmp_path / "x.db"))
    with pytest.raises(ConfigError, match="one backend"):
        Memory(embedder=embedder)
    with pytest.raises(InvalidInput, match="postgresql://"):
        Memory(url="mysql://x", embedder=embedder)
    assert not (tmp_path / "x.db").exists()


def test_unreachable_server_fails_at_memory(tmp_path: Path, embedder: LocalEmbedder) -> None:
    url = f"postgresql://u:hunter2@/db?host={tmp_path}"
    with pytest.raises(StoreUnavailable, match="cannot connect to PostgreSQL") as caught:
        Memory(url=url, embedder=embedder)
    assert "hunter2" not in str(caught.value)


def test_export_from_sqlite_imports_into_postgres(
    pg_url: str, tmp_path: Path, embedder: LocalEmbedder
) -> None:
    dump = tmp_path / "all.jsonl"
    with Memory(tmp_path / "src.db", embedder=embedder, consolidate="off") as src:
        src.add("Finn's flight leaves at 07:40", user_id="finn", metadata={"trip": "Oslo"})
        src.add("Finn is allergic to peanuts", user_id="finn")
        assert src.export(dump) == 2
    with Memory(url=pg_url, embedder=embedder, consolidate="off") as dst:
        dst.import_(dump)
        got = {m.text: m.metadata for m in dst.list(user_id="finn")}
        assert got == {
            "Finn's flight leaves at 07:40": {"trip": "Oslo"},
            "Finn is allergic to peanuts": {},
        }
        assert dst.export(tmp_path / "back.jsonl") == 2  # no store file to collide with


def test_read_only_reads_and_refuses_every_write(pg_url: str, embedder: LocalEmbedder) -> None:
    with pytest.raises(ConfigError, match="holds no memfold store"):
        Memory(url=pg_url, embedder=embedder, read_only=True)
    with Memory(url=pg_url, embedder=embedder, consolidate="off") as mem:
        mem.add("Gus keeps bees on the roof", user_id="gus")
    ro = Memory(url=pg_url, embedder=embedder, read_only=True)
    try:
        assert ro.read_only and ro.ctx.accesses is None
        hit = ro.search("bees", user_id="gus", k=1)[0].memory
        assert hit.text == "Gus keeps bees on the roof"
        with pytest.raises(ReadOnlyStore, match="open read-only"):
            ro.add("Gus sold the bees", user_id="gus")
        with pytest.raises(ReadOnlyStore):
            ro.update(hit.id, importance=0.9)
        with pytest.raises(ReadOnlyStore):
            ro.delete(hit.id)
        assert ro.stats()["memories"] == 1
        assert ro.get(hit.id).version == hit.version
    finally:
        ro.close()
