"""FTS5-ranked keyword hits kept while the full-text index is unchanged
(store/sqlite/keyword_cache.py): a store keeping rankings answers exactly as one that
asks FTS5 every time, through status, text, insert and delete writes, and asks FTS5
again only when the index changed."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from helpers.store_records import rec
from memfold import Memory, Settings
from memfold.embed.local import LocalEmbedder
from memfold.engine.worker import drain
from memfold.model import Scope, Status
from memfold.store.sqlite import SQLiteStore

HOME = Scope("u1")
ACTIVE = (Status.ACTIVE,)
QUERY = "Sam lives in Lyon near the river"


def _texts() -> list[tuple[str, str]]:
    """Ranks spread out (a, c, h, b, d, g, f, e): more query words rank higher."""
    return [
        ("a", "Sam lives in Lyon near the river"),
        ("b", "Sam lives in Lyon"),
        ("c", "Sam lives near the river with a dog"),
        ("d", "Lyon has a river"),
        ("e", "Sam likes coffee in the morning"),
        ("f", "The river floods in spring"),
        ("g", "Ana lives in Porto"),
        ("h", "Sam lives in Lyon near the river, in a flat"),
    ]


def _stores(tmp_path: Path) -> tuple[SQLiteStore, SQLiteStore]:
    path = tmp_path / "kw.db"
    kept = SQLiteStore(path, keyword_rank_cache_depth=1)  # 1 row past k: refills too
    kept.insert_memories([rec(mid, text, HOME) for mid, text in _texts()])
    return kept, SQLiteStore(path, keyword_rank_cache_queries=0)


def _matches(kept: SQLiteStore) -> list[str]:
    """The FTS5 queries the store runs from now on (statements with MATCH)."""
    ran: list[str] = []
    kept._db.get().set_trace_callback(lambda sql: ran.append(sql) if "MATCH" in sql else None)
    return ran


def _same(kept: SQLiteStore, fresh: SQLiteStore, k: int = 3) -> list[tuple[str, float]]:
    got = kept.keyword_search(HOME, QUERY, k, statuses=ACTIVE)
    assert got == fresh.keyword_search(HOME, QUERY, k, statuses=ACTIVE)
    return got


def test_a_kept_ranking_answers_as_fts5_through_status_writes(tmp_path: Path) -> None:
    kept, fresh = _stores(tmp_path)
    first = _same(kept, fresh)
    assert [mid for mid, _ in first] == ["a", "c", "h"]
    ran = _matches(kept)
    assert _same(kept, fresh) == first
    assert ran == []  # the index did not change: no ranking anew

    # A status write leaves the index alone: the kept rows are filtered again.
    top = kept.get_memory("a")
    assert top is not None
    kept.put_memory(top.copy(status=Status.SUPERSEDED, version=2), expected_version=1)
    assert [mid for mid, _ in _same(kept, fresh, k=2)] == ["c", "h"]
    assert ran == []
    # k + depth rows were kept (a, c, h, b): asking past the active ones ranks anew.
    assert [mid for mid, _ in _same(kept, fresh, k=4)] == ["c", "h", "b", "d"]
    assert len(ran) == 1


def test_a_text_insert_or_delete_write_ranks_anew(tmp_path: Path) -> None:
    kept, fresh = _stores(tmp_path)
    _same(kept, fresh)
    ran = _matches(kept)

    # New words for a low-ranked memory lift it to the top: the kept ranking is stale.
    low = kept.get_memory("f")
    assert low is not None
    kept.put_memory(low.copy(text="Sam lives in Lyon near the river now", version=2))
    assert "f" in [mid for mid, _ in _same(kept, fresh)]
    assert len(ran) == 1

    kept.insert_memories([rec("i", "Sam lives in Lyon near the river", HOME)])
    assert "i" in [mid for mid, _ in _same(kept, fresh)]
    kept.delete_memory_row("a")
    assert "a" not in [mid for mid, _ in _same(kept, fresh)]
    assert len(ran) == 3


def test_inside_a_transaction_fts5_is_asked(tmp_path: Path) -> None:
    kept, fresh = _stores(tmp_path)
    _same(kept, fresh)
    low = kept.get_memory("g")
    assert low is not None
    with kept.transaction():
        kept.put_memory(low.copy(text="Sam lives in Lyon near the river", version=2))
        inside = kept.keyword_search(HOME, QUERY, 3, statuses=ACTIVE)
        assert "g" in [mid for mid, _ in inside]  # the uncommitted write is seen
    assert _same(kept, fresh) == inside


def _drained(path: Path, embedder: LocalEmbedder, kept: int) -> tuple[list[Any], int]:
    """The saves' log rows of one drain of ``path`` and the FTS5 queries it ran."""
    # FTS5's own ranking (the update channel ranks as search is set to rank).
    settings = Settings(search={"keyword_rank_cache_queries": kept, "keyword_scoring": "table"})
    with Memory(path, settings=settings, embedder=embedder, consolidate="queue") as mem:
        ran = _matches(mem.store)  # type: ignore[arg-type]
        drain(mem.ctx, mem.judge)
        rows = sorted(
            (e.input_ids, e.action, e.output_ids, e.reasoning, e.confidence)
            for e in mem.log(100)
            if e.path == "on_save"
        )
    return rows, len(ran)


def test_a_drain_decides_alike_with_kept_rankings(tmp_path: Path, embedder: LocalEmbedder) -> None:
    """The update channel's saves are checked again after earlier saves of their pass
    wrote (statuses, versions): the checks read kept rankings, the decisions are the
    same as when FTS5 ranks every time."""
    loaded = tmp_path / "loaded.db"
    with Memory(loaded, embedder=embedder, consolidate="off") as mem:
        for text in ("Sam lives in Lyon, France.", "Sam lives in Lyon near the river."):
            mem.add(text, user_id="u")
    with Memory(loaded, embedder=embedder, consolidate="queue") as mem:
        for text in (
            "Sam lives in Lyon, France.",  # folds into the older one: the pass wrote
            "Sam lives in Lyon near the river.",
            "Sam moved to Berlin last month.",  # change cues: the update channel
            "Sam now lives in Berlin with Ana.",
        ):
            mem.add(text, user_id="u")
    for name in ("kept.db", "fresh.db"):
        shutil.copyfile(loaded, tmp_path / name)
    kept, kept_queries = _drained(tmp_path / "kept.db", embedder, 64)
    fresh, fresh_queries = _drained(tmp_path / "fresh.db", embedder, 0)
    assert kept == fresh
    assert {row[1] for row in kept} >= {"UPDATE", "DELETE"}
    assert kept_queries < fresh_queries  # the checks were answered by kept rankings
