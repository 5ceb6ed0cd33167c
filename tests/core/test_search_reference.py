"""Vector search agrees with a brute-force reference, with filters and other writers."""

from __future__ import annotations

import numpy as np

from memfold.index.vector_index import VectorIndex
from memfold.model import Area, Status
from memfold.store.base import IndexRow

DIM = 32


def _rows(n: int, seed: int) -> tuple[list[IndexRow], np.ndarray]:
    rng = np.random.default_rng(seed)
    vecs = rng.normal(size=(n, DIM)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    statuses = list(Status)
    areas = list(Area)
    rows = [
        IndexRow(
            seq=i + 1,
            id=f"m{i}",
            scope_key="u=a|a=|s=" if i % 3 else "u=b|a=|s=",
            status=statuses[int(rng.integers(0, len(statuses)))],
            area=areas[int(rng.integers(0, len(areas)))],
            embedding=vecs[i],
            embedding_model="test",
        )
        for i in range(n)
    ]
    return rows, vecs


def _brute(
    rows: list[IndexRow],
    q: np.ndarray,
    scope: str,
    k: int,
    statuses: set[Status],
    areas: set[Area] | None,
) -> list[str]:
    scored = [
        (float(r.embedding @ q), r.id)
        for r in rows
        if r.scope_key == scope and r.status in statuses and (areas is None or r.area in areas)
    ]
    scored.sort(key=lambda t: -t[0])
    return [mid for _, mid in scored[:k]]


def test_matches_brute_force_under_filters() -> None:
    rows, _ = _rows(3000, 1)
    index = VectorIndex("test", DIM)
    index.apply(rows)
    rng = np.random.default_rng(2)
    for trial in range(40):
        q = rng.normal(size=DIM).astype(np.float32)
        q /= np.linalg.norm(q)
        scope = "u=a|a=|s=" if trial % 2 else "u=b|a=|s="
        statuses = {Status.ACTIVE} if trial % 3 else {Status.ACTIVE, Status.SUPERSEDED}
        areas = None if trial % 4 else {Area.MAIN, Area.SOLUTIONS}
        k = [1, 5, 10, 50][trial % 4]
        got = index.search(
            scope, q, k, statuses=tuple(statuses), areas=None if areas is None else tuple(areas)
        )
        assert [mid for mid, _ in got] == _brute(rows, q, scope, k, statuses, areas)
        scores = [s for _, s in got]
        assert scores == sorted(scores, reverse=True)


def test_updates_moves_and_deletes_are_applied() -> None:
    rows, vecs = _rows(200, 3)
    index = VectorIndex("test", DIM)
    index.apply(rows)
    q = vecs[5]
    scope = rows[5].scope_key
    index.apply([IndexRow(1000, "m5", scope, Status.ACTIVE, Area.MAIN, vecs[5], "test")])
    assert index.search(scope, q, 1)[0][0] == "m5"
    index.apply([IndexRow(1001, "m5", scope, Status.SUPERSEDED, Area.MAIN, vecs[5], "test")])
    assert "m5" not in [m for m, _ in index.search(scope, q, 200)]
    index.apply([IndexRow(1002, "m5", "", Status.ARCHIVED, Area.MAIN, None, None, deleted=True)])
    assert "m5" not in [m for m, _ in index.search(scope, q, 200, statuses=tuple(Status))]
    assert index.vector_of("m5") is None
