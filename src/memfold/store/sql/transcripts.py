"""The conversation tables, for both backends: append-only transcripts and summary
parts (engine/conversation). Rows are only ever inserted; each schema refuses an
update, and a delete outside ``delete_transcripts`` (forget's erasure). An append
reads the session's last position and writes after it in one transaction, which holds
the store's writer lock (SQLite's ``BEGIN IMMEDIATE``, PostgreSQL's advisory lock), so
two appends to one session never draw one position."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from memfold.model import new_id, parse_time
from memfold.policy.messages import Message, NewMessage, Role
from memfold.policy.summary_parts import NewSummaryPart, PartKind, SummaryPart
from memfold.store.sql.tables import SQLTables
from memfold.store.transcripts import check_part, stamped

_MESSAGE = "id, session_key, position, role, content, created_at, metadata"
_PART = "id, session_key, part, kind, text, created_at, covers_from, covers_to, replaces"


def _time(value: object) -> datetime:
    when = parse_time(value)
    assert when is not None  # NOT NULL columns
    return when


class TranscriptTables(SQLTables):
    """``transcripts`` and ``summaries``: append, read, count; erased with a scope."""

    def _message(self, row: tuple[Any, ...]) -> Message:
        return Message(
            id=row[0],
            session_key=row[1],
            position=int(row[2]),
            role=Role(row[3]),
            content=row[4],
            created_at=_time(row[5]),
            metadata=dict(self._dialect.from_json(row[6]) or {}),
        )

    def _part(self, row: tuple[Any, ...]) -> SummaryPart:
        return SummaryPart(
            id=row[0],
            session_key=row[1],
            part=int(row[2]),
            kind=PartKind(row[3]),
            text=row[4],
            created_at=_time(row[5]),
            covers_from=row[6],
            covers_to=row[7],
            replaces=tuple(self._dialect.from_json(row[8]) or ()),
        )

    def append_messages(
        self, session_key: str, messages: Sequence[NewMessage], now: datetime
    ) -> list[Message]:
        """Append ``messages`` after the session's last, in one transaction; a time
        before the last message's is ``InvalidInput`` and writes nothing."""
        if not messages:
            return []
        with self._tx():
            found = self._rows(
                "SELECT position, created_at FROM transcripts WHERE session_key = ? "
                "ORDER BY position DESC LIMIT 1",
                (session_key,),
            )
            rows = stamped(
                session_key,
                messages,
                next_position=int(found[0][0]) + 1 if found else 0,
                last_time=_time(found[0][1]) if found else None,
                now=now,
            )
            self._write_many(
                f"INSERT INTO transcripts ({_MESSAGE}) VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        m.id,
                        m.session_key,
                        m.position,
                        m.role.value,
                        m.content,
                        self._dialect.time(m.created_at),
                        self._dialect.json(m.metadata),
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
        return [self._message(r) for r in self._rows(sql + " ORDER BY position", params)]

    def count_messages(self, session_key: str) -> int:
        sql = "SELECT count(*) FROM transcripts WHERE session_key = ?"
        return int(self._rows(sql, (session_key,))[0][0])

    def append_summary_part(
        self, session_key: str, part: NewSummaryPart, now: datetime
    ) -> SummaryPart:
        """Append one part after the session's last (numbered from 0)."""
        check_part(part)
        with self._tx():
            found = self._rows(
                "SELECT coalesce(max(part), -1) FROM summaries WHERE session_key = ?",
                (session_key,),
            )
            out = SummaryPart(
                id=new_id(),
                session_key=session_key,
                part=int(found[0][0]) + 1,
                kind=part.kind,
                text=part.text,
                created_at=now,
                covers_from=part.covers_from,
                covers_to=part.covers_to,
                replaces=tuple(part.replaces),
            )
            self._write(
                f"INSERT INTO summaries ({_PART}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    out.id,
                    session_key,
                    out.part,
                    out.kind.value,
                    out.text,
                    self._dialect.time(now),
                    out.covers_from,
                    out.covers_to,
                    self._dialect.json(list(out.replaces)),
                ),
            )
        return out

    def summary_parts(self, session_key: str) -> list[SummaryPart]:
        rows = self._rows(
            f"SELECT {_PART} FROM summaries WHERE session_key = ? ORDER BY part", (session_key,)
        )
        return [self._part(r) for r in rows]

    # erasure ----------------------------------------------------------------
    def transcript_sessions(self) -> list[str]:
        """Every session key with a message or a summary part."""
        rows = self._rows(
            "SELECT session_key FROM transcripts UNION SELECT session_key FROM summaries"
        )
        return sorted(str(r[0]) for r in rows)

    def delete_transcripts(self, session_keys: Sequence[str]) -> int:
        """Erase whole sessions (``Memory.forget`` of their scope): messages and summary
        parts; the rows deleted. The schema refuses any other delete of these rows: a
        session is named in ``transcript_erasure`` for the length of this transaction
        (its delete triggers ask for it), then struck off again."""
        keys = list(dict.fromkeys(session_keys))
        if not keys:
            return 0
        deleted = 0
        with self._tx():
            self._write_many(
                "INSERT INTO transcript_erasure (session_key) VALUES (?)", [(k,) for k in keys]
            )
            for chunk in self._dialect.chunks(keys):
                clause, values = self._dialect.any_of("session_key", chunk)
                deleted += self._write(f"DELETE FROM transcripts WHERE {clause}", values)
                deleted += self._write(f"DELETE FROM summaries WHERE {clause}", values)
                self._write(f"DELETE FROM transcript_erasure WHERE {clause}", values)
        return deleted
