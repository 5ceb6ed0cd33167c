"""Hybrid search's pseudo-relevance feedback: the query vector moved towards the first
fused hits finds a memory worded like them, on a real SQLite store with an embedder
whose vectors are set by hand (the geometry is the point)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from memfold import Memory, Settings
from memfold.embed.base import normalize_rows
from memfold.engine.search_feedback import moved_query

QUERY = "question"
# "seed" is the obvious answer; "target" shares its direction, "other" the query's
# alone a little more than "target" does.
VECTORS = {
    QUERY: [1.0, 0.0, 0.0],
    "seed": [1.0, 0.8, 0.0],
    "target": [0.3, 1.0, 0.0],
    "other": [0.35, 0.0, 1.0],
}


class TableEmbedder:
    model_id = "table-3"
    dim = 3

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return normalize_rows(np.array([VECTORS[t] for t in texts], dtype=np.float32))


def search(request: pytest.FixtureRequest, backend: str, **cfg: float) -> dict[str, float | None]:
    settings = Settings.model_validate({"search": {"vector_feedback_hits": 1, **cfg}})
    kw = {"embedder": TableEmbedder(), "consolidate": "off", "settings": settings}
    if backend == "postgres":  # the database finds the nearest vectors: asked again
        mem = Memory(url=request.getfixturevalue("pg_url"), **kw)  # type: ignore[arg-type]
    else:  # the process index ranks the first search's shortlist again
        mem = Memory(request.getfixturevalue("db_path"), **kw)  # type: ignore[arg-type]
    with mem:
        if not mem.list(user_id="u"):
            mem.add_many([{"text": t, "user_id": "u"} for t in ("seed", "target", "other")])
        return {h.memory.text: h.vector_score for h in mem.search(QUERY, user_id="u", k=2)}


def test_feedback_brings_in_a_memory_worded_like_the_best_hit(
    request: pytest.FixtureRequest, backend: str
) -> None:
    assert set(search(request, backend, vector_feedback=0.0)) == {"seed", "other"}
    moved = search(request, backend, vector_feedback=1.0)
    assert set(moved) == {"seed", "target"}
    # the reported score stays the cosine to the query itself, not to the moved one
    assert moved["target"] == pytest.approx(0.3 / np.hypot(0.3, 1.0), abs=1e-6)


def test_a_threshold_still_applies_to_the_cosine_to_the_query(db_path: Path) -> None:
    # "target" is 0.29 from the query (0.59 from the moved query): the threshold drops it
    settings = Settings.model_validate({"search": {"vector_feedback": 1.0}})
    with Memory(db_path, embedder=TableEmbedder(), consolidate="off", settings=settings) as mem:
        mem.add_many([{"text": t, "user_id": "u"} for t in ("seed", "target", "other")])
        hits = mem.search(QUERY, user_id="u", k=3, threshold=0.3)
    assert {h.memory.text for h in hits} == {"seed", "other"}


def test_moved_query_is_unit_length_and_needs_seeds() -> None:
    query = np.array([1.0, 0.0], dtype=np.float32)
    seed = np.array([0.0, 1.0], dtype=np.float32)
    moved = moved_query(query, [seed], 1.0)
    assert moved is not None and moved.dtype == np.float32
    assert np.linalg.norm(moved) == pytest.approx(1.0)
    assert moved == pytest.approx(np.array([1.0, 1.0]) / np.sqrt(2.0))
    assert moved_query(query, [], 1.0) is None
    assert moved_query(query, [seed], 0.0) is None
    assert moved_query(query, [np.ones(3, dtype=np.float32)], 1.0) is None  # other shape


def test_the_index_reads_vectors_in_the_order_asked(db_path: Path) -> None:
    with Memory(db_path, embedder=TableEmbedder(), consolidate="off") as mem:
        added = mem.add_many([{"text": t, "user_id": "u"} for t in ("seed", "target", "other")])
        ids = [r.memory.id for r in added]
        scope = mem.list(user_id="u")[0].scope.key()
        found, matrix = mem.ctx.index.vectors_of(scope, [ids[2], "missing", ids[0]])
    assert found == [ids[2], ids[0]]
    expected = TableEmbedder().embed(["other", "seed"])
    assert matrix == pytest.approx(expected)
