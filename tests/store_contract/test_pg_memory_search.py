"""Memory.search on PostgreSQL finds nearest vectors in the database (pgvector's HNSW
index for big scopes, an exact scan for small ones) without loading the scope into the
process, and ranks as the in-process index does."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from memfold import Memory, Settings
from memfold.cli import app
from memfold.embed.local import LocalEmbedder
from memfold.errors import InvalidInput

FACTS = [
    ("Sam prefers Rust for systems work", "main"),
    ("Sam lives in Lyon with two cats", "main"),
    ("The staging database runs PostgreSQL 15 on port 5433", "main"),
    ("Nora's sister teaches chemistry in Oslo", "main"),
    ("Sam's cats are called Pixel and Byte", "main"),
    ("Run the migrations before deploying the API", "solutions"),
    ("Sam drinks green tea every morning", "main"),
    ("The office moved to the fourth floor in May", "main"),
]
QUERIES = ["what pets does Sam have", "database port", "tea", "deploy steps", "Oslo"]


def _settings(where: str, exact_max_rows: int) -> Settings:
    return Settings(store={"pg_vector_search": where, "pg_exact_max_rows": exact_max_rows})


def _fill(pg_url: str, embedder: LocalEmbedder) -> None:
    with Memory(url=pg_url, embedder=embedder, consolidate="off") as mem:
        for text, area in FACTS:
            mem.add(text, user_id="sam", area=area, metadata={"n": len(text)})
        mem.add("Erin runs a bakery in Porto", user_id="erin")


def _ranking(mem: Memory, query: str, **kw: object) -> list[tuple[str, float | None]]:
    hits = mem.search(query, user_id="sam", k=5, **kw)  # type: ignore[arg-type]
    return [(h.memory.text, h.vector_score) for h in hits]


@pytest.mark.parametrize("mode", ["vector", "hybrid"])
def test_the_database_ranks_as_the_process_index_does(
    pg_url: str, embedder: LocalEmbedder, mode: str
) -> None:
    _fill(pg_url, embedder)
    with Memory(url=pg_url, embedder=embedder, consolidate="off") as mem:
        built = mem.build_vector_index()
        assert built.built and built.dim == embedder.dim
        assert mem.build_vector_index().built is False  # exists now
    got: dict[str, list[list[tuple[str, float | None]]]] = {}
    # exact_max_rows 0: every scope goes through the HNSW index.
    for where in ("database", "process"):
        settings = _settings(where, exact_max_rows=0)
        with Memory(url=pg_url, settings=settings, embedder=embedder, consolidate="off") as mem:
            got[where] = [_ranking(mem, q, mode=mode) for q in QUERIES]
            loaded = mem.ctx.index.loaded_scopes()
            assert (loaded == []) is (where == "database")
    for db, proc in zip(got["database"], got["process"], strict=True):
        assert [t for t, _ in db] == [t for t, _ in proc]
        assert [s for _, s in db] == pytest.approx([s for _, s in proc], abs=1e-5)


def test_areas_metadata_filters_and_thresholds_hold_in_the_database(
    pg_url: str, embedder: LocalEmbedder
) -> None:
    _fill(pg_url, embedder)
    with Memory(url=pg_url, settings=_settings("database", 0), embedder=embedder) as mem:
        mem.build_vector_index()
        tools = _ranking(mem, "deploy steps", mode="vector", area="solutions")
        assert [t for t, _ in tools] == ["Run the migrations before deploying the API"]
        short = _ranking(mem, "Sam", mode="vector", filters={"n": {"$lt": 34}})
        assert short and all(len(t) < 34 for t, _ in short)
        strict = _ranking(mem, "what pets does Sam have", mode="vector", threshold=0.5)
        assert strict and all(s is not None and s >= 0.5 for _, s in strict)
        # another user's memories never come back
        assert all("Erin" not in t for t, _ in _ranking(mem, "bakery in Porto", mode="vector"))
        assert mem.ctx.index.loaded_scopes() == []


def test_the_cli_builds_the_index_and_sqlite_refuses(
    pg_url: str, embedder: LocalEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fill(pg_url, embedder)
    monkeypatch.setenv("MEMFOLD_URL", pg_url)
    runner = CliRunner()
    first = runner.invoke(app, ["vector-index", "--json"])
    assert first.exit_code == 0, first.output
    assert '"built": true' in first.output
    again = runner.invoke(app, ["vector-index"])
    assert again.exit_code == 0 and "exists already" in again.output
    with Memory(url=pg_url, embedder=embedder) as mem:
        assert embedder.dim in mem.store.vector_indexes()  # type: ignore[union-attr]


def test_a_sqlite_store_has_no_database_index(tmp_path: Path, embedder: LocalEmbedder) -> None:
    with (
        Memory(tmp_path / "m.db", embedder=embedder) as mem,
        pytest.raises(InvalidInput, match="in-process index"),
    ):
        mem.build_vector_index()
