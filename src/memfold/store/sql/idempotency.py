"""Idempotency keys, for both backends (engine/idempotency.py): one row per (owner,
key). A claim purges the expired rows, then reads the key's row and inserts a
'running' one when there is none, in one transaction under the store's writer lock
(SQLite's BEGIN IMMEDIATE, PostgreSQL's advisory lock), so two processes claiming the
same key at once see each other's row: one claims it, the other gets that row back.
Finishing and releasing name the claim's token, so a process whose claim expired and
was taken over by another cannot overwrite the newer outcome."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from memfold.model import parse_time
from memfold.store.base import IdempotencyEntry
from memfold.store.sql.tables import SQLTables

_ENTRY = (
    "owner, idempotency_key, fingerprint, claim, state, status, content_type, body, "
    "created_at, expires_at"
)


def _entry(row: tuple[Any, ...]) -> IdempotencyEntry:
    created, expires = parse_time(row[8]), parse_time(row[9])
    assert created is not None and expires is not None  # NOT NULL columns
    return IdempotencyEntry(
        owner=row[0],
        key=row[1],
        fingerprint=row[2],
        claim=row[3],
        state=row[4],
        status=None if row[5] is None else int(row[5]),
        content_type=row[6],
        body=row[7],
        created_at=created,
        expires_at=expires,
    )


class IdempotencyTables(SQLTables):
    """``idempotency_keys``: claim, finish, release, read."""

    def claim_idempotency_key(
        self,
        owner: str,
        key: str,
        *,
        fingerprint: str,
        claim: str,
        now: datetime,
        expires_at: datetime,
    ) -> IdempotencyEntry | None:
        """None: claimed (a new 'running' row with this token). Else the key's row as
        stored, nothing written but the purge of rows expired at ``now``."""
        with self._tx():
            self._write("DELETE FROM idempotency_keys WHERE expires_at <= ?", (self._utc(now),))
            rows = self._rows(
                f"SELECT {_ENTRY} FROM idempotency_keys WHERE owner = ? AND idempotency_key = ?",
                (owner, key),
            )
            if rows:
                return _entry(rows[0])
            self._write(
                "INSERT INTO idempotency_keys (owner, idempotency_key, fingerprint, claim, "
                "state, created_at, expires_at) VALUES (?, ?, ?, ?, 'running', ?, ?)",
                (owner, key, fingerprint, claim, self._utc(now), self._utc(expires_at)),
            )
        return None

    def finish_idempotency_key(
        self,
        owner: str,
        key: str,
        *,
        claim: str,
        status: int,
        content_type: str | None,
        body: str,
        expires_at: datetime,
    ) -> bool:
        """Store the outcome of this claim ('done'); False: the claim is no longer held
        (it expired and was purged or taken over), nothing written."""
        changed = self._write(
            "UPDATE idempotency_keys SET state = 'done', status = ?, content_type = ?, "
            "body = ?, expires_at = ? "
            "WHERE owner = ? AND idempotency_key = ? AND claim = ? AND state = 'running'",
            (status, content_type, body, self._utc(expires_at), owner, key, claim),
        )
        return changed > 0

    def release_idempotency_key(self, owner: str, key: str, *, claim: str) -> bool:
        """Drop this claim (the request did not run): the key is free again."""
        changed = self._write(
            "DELETE FROM idempotency_keys "
            "WHERE owner = ? AND idempotency_key = ? AND claim = ? AND state = 'running'",
            (owner, key, claim),
        )
        return changed > 0

    def idempotency_entry(self, owner: str, key: str) -> IdempotencyEntry | None:
        """The key's row, expired or not (the claim purges)."""
        rows = self._rows(
            f"SELECT {_ENTRY} FROM idempotency_keys WHERE owner = ? AND idempotency_key = ?",
            (owner, key),
        )
        return _entry(rows[0]) if rows else None

    def _utc(self, when: datetime) -> Any:
        return self._dialect.time(when.astimezone(UTC))
