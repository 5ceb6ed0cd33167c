"""PostgreSQL table of the service's API keys (memfold.server, engine/keys.py): one row
per key with the SHA-256 of its token, never the token (schema.py, migration 6). Every
write transaction holds the store's write lock (connection.py), so the duplicate check
and the insert see the same rows."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from memfold.errors import InvalidInput
from memfold.model import ApiKey, Role
from memfold.store.postgres.connection import Connections

_KEY = "id, prefix, role, user_id, agent_id, label, created_at, revoked_at"


def _key(row: tuple[Any, ...]) -> ApiKey:
    return ApiKey(
        id=row[0],
        prefix=row[1],
        role=Role(row[2]),
        user_id=row[3],
        agent_id=row[4],
        label=row[5],
        created_at=row[6],
        revoked_at=row[7],
    )


class KeysMixin:
    """``api_keys``: insert, look up by hash, list, revoke."""

    _db: Connections
    _q: Callable[..., list[tuple[Any, ...]]]
    _w: Callable[..., int]

    def insert_api_key(self, key: ApiKey, secret_hash: str) -> None:
        """A new key; an id or hash already stored: InvalidInput (nothing written)."""
        with self._db.transaction():
            taken = self._q(
                "SELECT 1 FROM api_keys WHERE id = %s OR secret_hash = %s", (key.id, secret_hash)
            )
            if taken:
                raise InvalidInput(f"API key {key.id!r} or its hash is already stored")
            self._w(
                f"INSERT INTO api_keys ({_KEY}, secret_hash) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
                (
                    key.id,
                    key.prefix,
                    key.role.value,
                    key.user_id,
                    key.agent_id,
                    key.label,
                    key.created_at,
                    key.revoked_at,
                    secret_hash,
                ),
            )

    def api_key_by_hash(self, secret_hash: str) -> ApiKey | None:
        """The key with this hash, revoked or not (the caller checks)."""
        rows = self._q(f"SELECT {_KEY} FROM api_keys WHERE secret_hash = %s", (secret_hash,))
        return _key(rows[0]) if rows else None

    def list_api_keys(self, *, include_revoked: bool = False) -> list[ApiKey]:
        """Oldest first."""
        where = "" if include_revoked else " WHERE revoked_at IS NULL"
        rows = self._q(f"SELECT {_KEY} FROM api_keys{where} ORDER BY created_at, id")
        return [_key(r) for r in rows]

    def revoke_api_key(self, key_id: str, at: datetime) -> ApiKey | None:
        """Set revoked_at (kept when already revoked); None: no such key."""
        with self._db.transaction():
            self._w(
                "UPDATE api_keys SET revoked_at = %s WHERE id = %s AND revoked_at IS NULL",
                (at, key_id),
            )
            rows = self._q(f"SELECT {_KEY} FROM api_keys WHERE id = %s", (key_id,))
        return _key(rows[0]) if rows else None
