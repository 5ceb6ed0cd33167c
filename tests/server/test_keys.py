"""API keys (engine/keys.py) on both backends: tokens verify, only their hash is stored,
revoked and malformed tokens are refused, bad requests write nothing."""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from helpers.postgres import BACKENDS
from memfold.engine.keys import create_key, list_keys, revoke_key, verify_key
from memfold.errors import InvalidInput, NotFound, ReadOnlyStore
from memfold.model import Role, utcnow
from memfold.store.postgres import PostgresStore
from memfold.store.postgres.copy import migrate
from memfold.store.sqlite import SQLiteStore

Opener = Any  # (read_only: bool) -> a store on the same file or schema


@pytest.fixture(params=BACKENDS)
def opener(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Opener]:
    opened: list[Any] = []
    on_sqlite = request.param == "sqlite"
    where = str(tmp_path / "keys.db") if on_sqlite else request.getfixturevalue("pg_url")

    def open_store(read_only: bool = False) -> Any:
        if on_sqlite:
            store: Any = SQLiteStore(where, read_only=read_only)
        else:
            store = PostgresStore(where, read_only=read_only)
        opened.append(store)
        return store

    yield open_store
    for store in opened:
        store.close()


@pytest.fixture
def store(opener: Opener) -> Any:
    return opener()


def _rows(store: Any) -> list[tuple[Any, ...]]:
    rows: list[tuple[Any, ...]] = store._q("SELECT * FROM api_keys")
    return rows


def test_a_created_token_verifies_and_only_its_hash_is_stored(store: Any) -> None:
    key, token = create_key(store, role="write", user_id="sam", agent_id="bot", label="ci")
    assert token.startswith("mf_") and len(token) == 46 and token.startswith(key.prefix)
    found = verify_key(store, token)
    assert found is not None and found.id == key.id
    assert (found.role, found.user_id, found.agent_id, found.label) == (
        Role.WRITE,
        "sam",
        "bot",
        "ci",
    )
    [row] = _rows(store)
    cells = [str(cell) for cell in row]
    assert hashlib.sha256(token.encode()).hexdigest() in cells
    assert not any(token in cell for cell in cells)  # the token itself is nowhere
    assert [k.id for k in list_keys(store)] == [key.id]


def test_wrong_malformed_and_revoked_tokens_are_refused(store: Any) -> None:
    key, token = create_key(store, role="read", user_id="sam")
    other = "mf_" + ("A" if token[3] != "A" else "B") + token[4:]
    for bad in (other, token[:-1], token + "x", "", None, 42, "Bearer " + token, "mf_" + "a" * 300):
        assert verify_key(store, bad) is None, bad
    assert verify_key(store, token) is not None
    revoked = revoke_key(store, key.id)
    assert revoked.revoked_at is not None and not revoked.active
    assert verify_key(store, token) is None
    assert list_keys(store) == []
    assert [k.id for k in list_keys(store, include_revoked=True)] == [key.id]


def test_revoke_by_id_start_or_prefix_and_unknown_is_not_found(store: Any) -> None:
    first, first_token = create_key(store, role="admin")
    second, second_token = create_key(store, role="write", user_id="ana")
    assert revoke_key(store, second.prefix).id == second.id
    assert verify_key(store, second_token) is None
    assert revoke_key(store, first.id[:8]).id == first.id
    assert verify_key(store, first_token) is None
    again = revoke_key(store, first.id)  # already revoked: its first time is kept
    assert again.revoked_at == list_keys(store, include_revoked=True)[0].revoked_at
    with pytest.raises(NotFound):
        revoke_key(store, "mf_nothere")
    with pytest.raises(NotFound):
        revoke_key(store, first.id[:7])  # too short to name a key by its start
    with pytest.raises(InvalidInput):
        revoke_key(store, "  ")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"role": "read"}, "needs a user_id"),
        ({"role": "write", "agent_id": "bot"}, "needs a user_id"),
        ({"role": "admin", "agent_id": "bot"}, "agent_id needs a user_id"),
        ({"role": "owner", "user_id": "sam"}, "role must be one of"),
        ({"role": "read", "user_id": " "}, "user_id"),
        ({"role": "read", "user_id": "sam", "label": "x" * 201}, "label"),
    ],
)
def test_a_bad_request_writes_nothing(store: Any, kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(InvalidInput, match=message):
        create_key(store, **kwargs)
    assert _rows(store) == []


def test_a_duplicate_id_or_hash_is_refused(store: Any) -> None:
    key, _ = create_key(store, role="admin")
    with pytest.raises(InvalidInput):
        store.insert_api_key(key, "0" * 64)  # same id
    with pytest.raises(InvalidInput):
        store.insert_api_key(dataclasses.replace(key, id="other"), _rows(store)[0][2])
    assert len(_rows(store)) == 1


def test_a_read_only_store_verifies_but_refuses_writes(opener: Opener) -> None:
    writable = opener()
    key, token = create_key(writable, role="read", user_id="sam")
    reader = opener(read_only=True)
    assert verify_key(reader, token) is not None
    with pytest.raises(ReadOnlyStore):
        create_key(reader, role="admin")
    with pytest.raises(ReadOnlyStore):
        reader.revoke_api_key(key.id, utcnow())
    assert len(list_keys(writable)) == 1 and verify_key(writable, token) is not None


def test_memfold_migrate_carries_the_keys(tmp_path: Path, pg_url: str) -> None:
    source = SQLiteStore(tmp_path / "src.db")
    live, live_token = create_key(source, role="write", user_id="sam", label="bot")
    gone, gone_token = create_key(source, role="admin")
    revoke_key(source, gone.id)
    source.close()
    counts = migrate(tmp_path / "src.db", pg_url)
    assert counts["api_keys"] == 2
    target = PostgresStore(pg_url)
    try:
        found = verify_key(target, live_token)
        assert found is not None and found.to_dict() == live.to_dict()
        assert verify_key(target, gone_token) is None
        assert [k.id for k in list_keys(target, include_revoked=True)] == [live.id, gone.id]
    finally:
        target.close()
