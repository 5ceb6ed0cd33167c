"""Several queries of one scope in one product: the same answers as one search each."""

from __future__ import annotations

import numpy as np
import pytest

from memfold.errors import EmbeddingMismatch
from memfold.index.vector_index import VectorIndex
from memfold.model import Area, Status
from memfold.store.base import IndexRow

DIM = 16


def _index(n: int, seed: int = 3) -> tuple[VectorIndex, np.ndarray]:
    rng = np.random.default_rng(seed)
    vecs = rng.normal(size=(n, DIM)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    index = VectorIndex("m", DIM)
    rows = []
    for i in range(n):
        status = Status.SUPERSEDED if i % 7 == 0 else Status.ACTIVE
        rows.append(IndexRow(i + 1, f"m{i}", "s", status, Area.MAIN, vecs[i], "m"))
    rows.append(IndexRow(n + 1, "other", "t", Status.ACTIVE, Area.MAIN, vecs[0], "m"))
    index.apply(rows)
    return index, vecs


@pytest.mark.parametrize("n", [5, 300, 5000])
def test_search_many_equals_one_search_per_query(n: int) -> None:
    index, vecs = _index(n)
    queries = [vecs[i] for i in (0, 1, 2, 3)]
    exclude = ["m0", "m1", None, "nobody"]
    many = index.search_many("s", queries, 10, min_score=0.1, exclude=exclude)
    for query, own, got in zip(queries, exclude, many, strict=True):
        one = index.search("s", query, 10, min_score=0.1, exclude=[own] if own else [])
        # The same ids in the same order; scores equal up to float32 summation order.
        assert [mid for mid, _ in got] == [mid for mid, _ in one]
        assert [s for _, s in got] == pytest.approx([s for _, s in one], abs=1e-5)
        assert own is None or own not in {mid for mid, _ in got}
        assert all(score >= 0.1 for _, score in got)
        # Superseded rows and other scopes are never candidates.
        assert all(int(mid[1:]) % 7 for mid, _ in got)


def test_search_many_edges() -> None:
    index, vecs = _index(50)
    assert index.search_many("s", [], 5, min_score=0.0) == []
    assert index.search_many("nowhere", [vecs[1]], 5, min_score=0.0) == [[]]
    assert index.search_many("s", [vecs[1]], 0, min_score=0.0) == [[]]
    with pytest.raises(EmbeddingMismatch):
        index.search_many("s", [np.zeros(DIM + 1, dtype=np.float32)], 5, min_score=0.0)
