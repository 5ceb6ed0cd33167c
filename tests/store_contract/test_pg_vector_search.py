"""PostgreSQL vector search (store/postgres/vector.py) on a real server: the HNSW path,
the exact scan of small scopes, the fallback when the filter leaves fewer than k, and
the per-dimension index registry of schema migration 3."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from helpers.store_records import rec
from memfold.model import Scope, Status
from memfold.store.postgres import PostgresStore

# Rows of an old store are written by today's codec: the columns later migrations add
# come first (migration 4 adds expires_at only if it is missing).
OLD_ROWS_FIT_TODAYS_CODEC = (
    "ALTER TABLE memories ADD COLUMN expires_at TIMESTAMPTZ, "
    "ADD COLUMN category_source TEXT NOT NULL DEFAULT 'given', "
    "ADD COLUMN passages BYTEA"
)

DIM = 16
BIG, SMALL = Scope("big"), Scope("small")


def _unit(rng: np.random.Generator, n: int, dim: int = DIM) -> np.ndarray:
    v = rng.standard_normal((n, dim)).astype(np.float32)
    out: np.ndarray = v / np.linalg.norm(v, axis=1, keepdims=True)
    return out


@pytest.fixture
def filled(pg_url: str) -> Any:
    """300 memories in BIG (every 7th superseded), 40 in SMALL, one 8-dim row in BIG;
    the HNSW index of DIM built. Yields (store, {id: (scope key, status, vector)})."""
    rng = np.random.default_rng(11)
    store = PostgresStore(pg_url)
    rows: dict[str, tuple[str, Status, np.ndarray]] = {}
    records = []
    for i, v in enumerate(_unit(rng, 340)):
        scope = BIG if i < 300 else SMALL
        status = Status.SUPERSEDED if i % 7 == 0 else Status.ACTIVE
        mid = f"m{i:03d}"
        rows[mid] = (scope.key(), status, v)
        records.append(rec(mid, f"text {i}", scope, embedding=v, status=status))
    records.append(rec("other-dim", "eight dims", BIG, embedding=_unit(rng, 1, 8)[0]))
    store.insert_memories(records)
    assert store.ensure_vector_index(DIM) is True
    yield store, rows
    store.close()


def _exact(rows: dict[str, Any], scope: Scope, q: np.ndarray, k: int, statuses: Any) -> Any:
    cands = [
        (mid, float(v @ q))
        for mid, (key, st, v) in rows.items()
        if key == scope.key() and st in statuses
    ]
    return sorted(cands, key=lambda c: (-c[1], c[0]))[:k]


def _no(name: str) -> Any:
    def refuse(*args: Any, **kw: Any) -> Any:
        raise AssertionError(f"{name} should not run")

    return refuse


def _check(got: list[tuple[str, float]], want: list[tuple[str, float]]) -> None:
    assert [g[0] for g in got] == [w[0] for w in want]
    assert [g[1] for g in got] == pytest.approx([w[1] for w in want], abs=1e-5)


def test_hnsw_path_returns_the_exact_top_k_of_the_scope(
    filled: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, rows = filled
    monkeypatch.setattr(store, "_exact", _no("the exact scan"))
    queries = _unit(np.random.default_rng(5), 10)
    for q in queries:  # ef_search above the row count: the graph search is exhaustive
        got = store.vector_search(BIG, q, 10, ef_search=400, exact_max_rows=0)
        _check(got, _exact(rows, BIG, q, 10, {Status.ACTIVE}))


def test_the_hnsw_path_scans_the_index(filled: Any) -> None:
    """The partial expression index matches the search's inner query."""
    store, _ = filled
    with store._db.transaction() as conn:
        conn.execute("SET LOCAL enable_seqscan = off")
        plan = conn.execute(
            f"EXPLAIN SELECT id FROM memories WHERE embedding_dim = {DIM} "
            f"ORDER BY embedding::vector({DIM}) <=> %s::vector({DIM}) LIMIT 40",
            (np.ones(DIM, dtype=np.float32),),
        ).fetchall()
    assert "Index Scan using memories_hnsw_16" in " ".join(str(r[0]) for r in plan)


def test_statuses_filter_the_hnsw_path(filled: Any) -> None:
    store, rows = filled
    q = _unit(np.random.default_rng(6), 1)[0]
    got = store.vector_search(
        BIG, q, 5, statuses=(Status.SUPERSEDED,), ef_search=400, exact_max_rows=0
    )
    _check(got, _exact(rows, BIG, q, 5, {Status.SUPERSEDED}))
    assert all(rows[mid][1] is Status.SUPERSEDED for mid, _ in got)


def test_small_scope_is_scanned_exactly(filled: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    store, rows = filled
    monkeypatch.setattr(store, "_hnsw", _no("the HNSW search"))
    q = _unit(np.random.default_rng(7), 1)[0]
    got = store.vector_search(SMALL, q, 10, exact_max_rows=1000)
    _check(got, _exact(rows, SMALL, q, 10, {Status.ACTIVE}))
    assert {rows[mid][0] for mid, _ in got} == {SMALL.key()}


def test_a_filter_leaving_fewer_than_k_falls_back_to_the_exact_scan(
    filled: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SMALL is an eighth of the rows: with ef_search = k the index's candidates hold
    few of its rows, so the search falls back and still returns the exact top k."""
    store, rows = filled
    calls: list[int] = []
    hnsw = store._hnsw

    def counted(*args: Any) -> Any:
        hits = hnsw(*args)
        calls.append(len(hits))
        return hits

    monkeypatch.setattr(store, "_hnsw", counted)
    q = _unit(np.random.default_rng(8), 1)[0]
    got = store.vector_search(SMALL, q, 10, ef_search=1, exact_max_rows=0)
    assert len(calls) == 1 and calls[0] < 10
    _check(got, _exact(rows, SMALL, q, 10, {Status.ACTIVE}))


def test_a_dimension_without_an_index_is_scanned_and_other_dims_never_match(
    filled: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, _ = filled
    monkeypatch.setattr(store, "_hnsw", _no("the HNSW search"))
    q8 = _unit(np.random.default_rng(9), 1, 8)[0]
    got = store.vector_search(BIG, q8, 10, exact_max_rows=0)
    assert [mid for mid, _ in got] == ["other-dim"]
    assert store.vector_search(BIG, q8, 0) == []


def test_index_registry_is_built_once_and_survives_reopening(filled: Any, pg_url: str) -> None:
    store, _ = filled
    assert store.ensure_vector_index(DIM) is False
    assert store.vector_indexes() == {DIM: "memories_hnsw_16"}
    again = PostgresStore(pg_url)
    assert again.vector_indexes() == {DIM: "memories_hnsw_16"}
    assert again.ensure_vector_index(DIM) is False
    again.close()
    with pytest.raises(ValueError):
        store.ensure_vector_index(0)


def test_migration_3_adds_the_registry_to_a_version_2_store(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import memfold.store.postgres.connection as connection
    from memfold.store.postgres.schema import MIGRATIONS

    with monkeypatch.context() as patched:
        patched.setattr(connection, "MIGRATIONS", MIGRATIONS[:2])
        patched.setattr(connection, "LATEST_VERSION", 2)
        old = PostgresStore(pg_url)
        old._db.write(OLD_ROWS_FIT_TODAYS_CODEC)
        old.insert_memories([rec("a", "kept", embedding=np.ones(DIM, dtype=np.float32))])
        assert old._q("SELECT to_regclass('vector_indexes')") == [(None,)]
        old.close()
    store = PostgresStore(pg_url)
    assert store.schema_version() >= 3 and store.vector_indexes() == {}
    assert store.ensure_vector_index(DIM) is True
    got = store.vector_search(Scope("u1"), np.ones(DIM, dtype=np.float32), 3, exact_max_rows=0)
    assert [mid for mid, _ in got] == ["a"] and got[0][1] == pytest.approx(1.0)
    store.close()
