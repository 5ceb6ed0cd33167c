"""SQLite tables of conversations: append-only transcripts and summary parts
(engine/conversation). Rows are only ever inserted; the schema's triggers refuse an
update (schema.py, migration 9)."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from memfold.model import new_id, parse_time
from memfold.policy.messages import Message, NewMessage, Role
from memfold.policy.summary_parts import NewSummaryPart, PartKind, SummaryPart
from memfold.store.sqlite.connection import Connections
from memfold.store.transcripts import check_part, stamped

_MESSAGE = "id, session_key, position, role, content, created_at, metadata"
_PART = "id, session_key, part, kind, text, created_at, covers_from, covers_to, replaces"


def _time(value: object) -> datetime:
    when = parse_time(value)
    assert when is not None  # NOT NULL columns
    return when


def _message(row: tuple[Any, ...]) -> Message:
    return Message(
        id=row[0],
        session_key=row[1],
        position=int(row[2]),
        role=Role(row[3]),
        content=row[4],
        created_at=_time(row[5]),
        metadata=json.loads(row[6] or "{}"),
    )


def _part(row: tuple[Any, ...]) -> SummaryPart:
    return SummaryPart(
        id=row[0],
        session_key=row[1],
        part=int(row[2]),
        kind=PartKind(row[3]),
        text=row[4],
        created_at=_time(row[5]),
        covers_from=row[6],
        covers_to=row[7],
        replaces=tuple(json.loads(row[8] or "[]")),
    )


class TranscriptTablesMixin:
    """``transcripts`` and ``summaries``: append, read, count; erased with a scope."""

    _db: Connections
    _q: Callable[..., list[tuple[Any, ...]]]

    def append_messages(
        self, session_key: str, messages: Sequence[NewMessage], now: datetime
    ) -> list[Message]:
        """Append ``messages`` after the session's last, in one transaction; a time
        before the last message's is ``InvalidInput`` and writes nothing."""
        if not messages:
            return []
        with self._db.transaction() as conn:
            row = conn.execute(
                "SELECT position, created_at FROM transcripts WHERE session_key = ? "
                "ORDER BY position DESC LIMIT 1",
                (session_key,),
            ).fetchone()
            rows = stamped(
                session_key,
                messages,
                next_position=0 if row is None else int(row[0]) + 1,
                last_time=None if row is None else _time(row[1]),
                now=now,
            )
            conn.executemany(
                f"INSERT INTO transcripts ({_MESSAGE}) VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        m.id,
                        m.session_key,
                        m.position,
                        m.role.value,
                        m.content,
                        m.created_at.isoformat(),
                        json.dumps(m.metadata, ensure_ascii=False),
                    )
                    for m in rows
                ],
            )
        return rows

    def messages(self, session_key: str, start: int = 0, end: int | None = None) -> list[Message]:
        """The session's messages at positions ``start <= p < end`` (``end`` None: to
        the last), in order."""
        sql = f"SELECT {_MESSAGE} FROM transcripts WHERE session_key = ? AND position >= ?"
        params: list[Any] = [session_key, start]
        if end is not None:
            sql += " AND position < ?"
            params.append(end)
        return [_message(r) for r in self._q(sql + " ORDER BY position", params)]

    def count_messages(self, session_key: str) -> int:
        return int(
            self._q("SELECT count(*) FROM transcripts WHERE session_key = ?", (session_key,))[0][0]
        )

    def append_summary_part(
        self, session_key: str, part: NewSummaryPart, now: datetime
    ) -> SummaryPart:
        """Append one part after the session's last (numbered from 0)."""
        check_part(part)
        with self._db.transaction() as conn:
            row = conn.execute(
                "SELECT coalesce(max(part), -1) FROM summaries WHERE session_key = ?",
                (session_key,),
            ).fetchone()
            out = SummaryPart(
                id=new_id(),
                session_key=session_key,
                part=int(row[0]) + 1,
                kind=part.kind,
                text=part.text,
                created_at=now,
                covers_from=part.covers_from,
                covers_to=part.covers_to,
                replaces=tuple(part.replaces),
            )
            conn.execute(
                f"INSERT INTO summaries ({_PART}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    out.id,
                    session_key,
                    out.part,
                    out.kind.value,
                    out.text,
                    now.isoformat(),
                    out.covers_from,
                    out.covers_to,
                    json.dumps(list(out.replaces)),
                ),
            )
        return out

    def summary_parts(self, session_key: str) -> list[SummaryPart]:
        rows = self._q(
            f"SELECT {_PART} FROM summaries WHERE session_key = ? ORDER BY part", (session_key,)
        )
        return [_part(r) for r in rows]

    # erasure ----------------------------------------------------------------
    def transcript_sessions(self) -> list[str]:
        """Every session key with a message or a summary part."""
        rows = self._q(
            "SELECT session_key FROM transcripts UNION SELECT session_key FROM summaries"
        )
        return sorted(str(r[0]) for r in rows)

    def delete_transcripts(self, session_keys: Sequence[str]) -> int:
        """Erase whole sessions (``Memory.forget`` of their scope): messages and summary
        parts; the rows deleted."""
        deleted = 0
        with self._db.transaction() as conn:
            for key in session_keys:
                deleted += conn.execute(
                    "DELETE FROM transcripts WHERE session_key = ?", (key,)
                ).rowcount
                deleted += conn.execute(
                    "DELETE FROM summaries WHERE session_key = ?", (key,)
                ).rowcount
        return deleted
