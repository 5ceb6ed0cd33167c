"""The transcript tables on SQLite and PostgreSQL: append-only, in order, whole or not
at all."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memfold.errors import InvalidInput
from memfold.model import Scope
from memfold.policy.messages import NewMessage, Role, clean_message
from memfold.policy.summary_parts import NewSummaryPart, PartKind
from memfold.store.postgres import PostgresStore
from memfold.store.select import BackendStore
from memfold.store.sqlite import SQLiteStore

T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
KEY = Scope("ana", None, "s1").key()


@pytest.fixture
def store(request: pytest.FixtureRequest, backend: str, tmp_path: Path) -> Iterator[BackendStore]:
    opened: BackendStore
    if backend == "postgres":
        opened = PostgresStore(request.getfixturevalue("pg_url"))
    else:
        opened = SQLiteStore(tmp_path / "t.db")
    yield opened
    opened.close()


def _msg(content: str, role: str = "user", at: datetime | None = None) -> NewMessage:
    return clean_message(role, content, max_chars=1000, created_at=at, metadata={"n": content})


def test_append_numbers_positions_and_reads_back(store: BackendStore) -> None:
    first = store.append_messages(KEY, [_msg("hi"), _msg("hello", "assistant")], T0)
    assert [m.position for m in first] == [0, 1]
    later = store.append_messages(KEY, [_msg("how are you", at=T0 + timedelta(minutes=1))], T0)
    assert later[0].position == 2
    back = store.messages(KEY)
    assert [m.to_dict() for m in back] == [m.to_dict() for m in first + later]
    assert back[1].role is Role.ASSISTANT and back[0].metadata == {"n": "hi"}
    assert back[0].created_at == T0 and back[2].created_at == T0 + timedelta(minutes=1)
    assert [m.content for m in store.messages(KEY, 1, 2)] == ["hello"]
    assert store.count_messages(KEY) == 3
    assert store.count_messages(Scope("ana").key()) == 0 and store.messages("nobody") == []


def test_a_time_before_the_last_message_writes_nothing(store: BackendStore) -> None:
    store.append_messages(KEY, [_msg("one", at=T0)], T0)
    with pytest.raises(InvalidInput, match="before the last message"):
        store.append_messages(
            KEY, [_msg("two", at=T0 + timedelta(seconds=1)), _msg("three", at=T0)], T0
        )
    with pytest.raises(InvalidInput, match="before the last message"):
        store.append_messages(KEY, [_msg("undated")], T0 - timedelta(days=1))  # clock behind
    assert [m.content for m in store.messages(KEY)] == ["one"]


def test_summary_parts_append_in_order(store: BackendStore) -> None:
    a = store.append_summary_part(KEY, NewSummaryPart(PartKind.SUMMARY, "early", 0, 9), T0)
    b = store.append_summary_part(KEY, NewSummaryPart(PartKind.NOTE, "user likes tea"), T0)
    c = store.append_summary_part(
        KEY, NewSummaryPart(PartKind.META, "all of it", 0, 9, (a.id,)), T0
    )
    parts = store.summary_parts(KEY)
    assert [p.part for p in parts] == [0, 1, 2]
    assert [p.to_dict() for p in parts] == [a.to_dict(), b.to_dict(), c.to_dict()]
    assert parts[2].replaces == (a.id,) and parts[1].covers_from is None
    with pytest.raises(InvalidInput):
        store.append_summary_part(KEY, NewSummaryPart(PartKind.SUMMARY, "  ", 0, 1), T0)
    with pytest.raises(InvalidInput):
        store.append_summary_part(KEY, NewSummaryPart(PartKind.SUMMARY, "x", 5, 1), T0)
    assert len(store.summary_parts(KEY)) == 3


def test_rows_are_never_updated_and_sessions_erase_whole(store: BackendStore) -> None:
    store.append_messages(KEY, [_msg("keep me")], T0)
    store.append_summary_part(KEY, NewSummaryPart(PartKind.NOTE, "a note"), T0)
    other = Scope("bo", None, "s9").key()
    store.append_messages(other, [_msg("other")], T0)
    with pytest.raises(Exception, match="append-only"), store.transaction():
        store._w("UPDATE transcripts SET content = 'changed'")
    with pytest.raises(Exception, match="append-only"), store.transaction():
        store._w("UPDATE summaries SET text = 'changed'")
    assert store.messages(KEY)[0].content == "keep me"
    # nor deleted, but by forget's erasure (seed 002: the transcript is immutable)
    for table in ("transcripts", "summaries"):
        with pytest.raises(Exception, match="immutable"), store.transaction():
            store._w(f"DELETE FROM {table}")
    assert len(store.messages(KEY)) == 1 and len(store.summary_parts(KEY)) == 1
    assert store.transcript_sessions() == sorted([KEY, other])
    assert store.delete_transcripts([KEY]) == 2
    assert store.messages(KEY) == [] and store.summary_parts(KEY) == []
    assert store.transcript_sessions() == [other]
    with pytest.raises(Exception, match="immutable"), store.transaction():
        store._w("DELETE FROM transcripts")  # the erasure named KEY only, and for its own time
    assert [m.content for m in store.messages(other)] == ["other"]
