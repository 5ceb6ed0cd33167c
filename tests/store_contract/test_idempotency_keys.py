"""Idempotency keys on every backend (store/sql/idempotency.py): a claim, its outcome,
the expiry purge, claims by token, and one winner among concurrent claims from several
store instances (as several server processes) on one database."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from memfold.store.base import IdempotencyEntry
from memfold.store.postgres import PostgresStore
from memfold.store.sqlite import SQLiteStore

T0 = datetime(2026, 3, 1, 12, 0, 0, tzinfo=UTC)
DAY = timedelta(days=1)


def _claim(store: Any, owner: str, key: str, token: str, now: datetime = T0) -> Any:
    return store.claim_idempotency_key(
        owner, key, fingerprint=f"fp-{key}", claim=token, now=now, expires_at=now + DAY
    )


def test_a_claim_its_outcome_and_a_second_claim(store: Any) -> None:
    assert _claim(store, "key:a", "k1", "t1") is None
    running = _claim(store, "key:a", "k1", "t2")
    assert isinstance(running, IdempotencyEntry)
    assert (running.state, running.claim, running.status, running.body) == (
        "running",
        "t1",
        None,
        None,
    )
    assert running.created_at == T0 and running.expires_at == T0 + DAY
    done = store.finish_idempotency_key(
        "key:a",
        "k1",
        claim="t1",
        status=201,
        content_type="application/json",
        body='{"id": "ü"}',
        expires_at=T0 + 2 * DAY,
    )
    assert done is True
    entry = _claim(store, "key:a", "k1", "t3", now=T0 + DAY)
    assert (entry.state, entry.status, entry.body, entry.fingerprint) == (
        "done",
        201,
        '{"id": "ü"}',
        "fp-k1",
    )
    assert entry.expires_at == T0 + 2 * DAY
    # Owners are apart: another owner's equal key is free.
    assert _claim(store, "key:b", "k1", "t4") is None
    assert store.idempotency_entry("key:b", "k1").claim == "t4"


def test_expired_rows_are_purged_by_a_later_claim(store: Any) -> None:
    assert _claim(store, "key:a", "old", "t1") is None
    assert _claim(store, "key:a", "kept", "t2", now=T0 + timedelta(hours=12)) is None
    # At T0 + DAY the first expires (expires_at <= now), the second not.
    assert _claim(store, "key:a", "other", "t3", now=T0 + DAY) is None
    assert store.idempotency_entry("key:a", "old") is None
    assert store.idempotency_entry("key:a", "kept") is not None
    assert _claim(store, "key:a", "old", "t4", now=T0 + DAY) is None  # free again


def test_only_the_claims_own_token_finishes_or_releases_it(store: Any) -> None:
    assert _claim(store, "key:a", "k", "mine") is None
    kw: dict[str, Any] = {"status": 200, "content_type": None, "body": "{}"}
    assert store.finish_idempotency_key("key:a", "k", claim="theirs", expires_at=T0, **kw) is False
    assert store.release_idempotency_key("key:a", "k", claim="theirs") is False
    assert store.idempotency_entry("key:a", "k").state == "running"
    assert store.release_idempotency_key("key:a", "k", claim="mine") is True
    assert store.idempotency_entry("key:a", "k") is None
    # A done row is never released nor finished again.
    assert _claim(store, "key:a", "k", "again") is None
    assert store.finish_idempotency_key("key:a", "k", claim="again", expires_at=T0 + DAY, **kw)
    assert store.release_idempotency_key("key:a", "k", claim="again") is False
    assert (
        store.finish_idempotency_key(
            "key:a", "k", claim="again", expires_at=T0 + DAY, **{**kw, "status": 500}
        )
        is False
    )
    assert store.idempotency_entry("key:a", "k").status == 200


@pytest.fixture(params=["sqlite", "postgres"])
def opener(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[[], Any]:
    if request.param == "sqlite":
        path = tmp_path / "shared.db"
        return lambda: SQLiteStore(path)
    url = request.getfixturevalue("pg_url")
    return lambda: PostgresStore(url)


def test_one_claim_wins_among_concurrent_stores_on_one_database(
    opener: Callable[[], Any],
) -> None:
    stores = [opener() for _ in range(4)]
    barrier = threading.Barrier(len(stores) * 2)
    won: list[str] = []
    errors: list[BaseException] = []

    def contend(store: Any, token: str) -> None:
        try:
            barrier.wait()
            if _claim(store, "key:a", "same", token) is None:
                won.append(token)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [
        threading.Thread(target=contend, args=(s, f"t{n}-{m}"))
        for n, s in enumerate(stores)
        for m in range(2)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    try:
        assert not errors and len(won) == 1
        assert stores[0].idempotency_entry("key:a", "same").claim == won[0]
    finally:
        for s in stores:
            s.close()
