"""The service's API keys, for both backends (memfold.server, engine/keys.py): one row
per key with the SHA-256 of its token, never the token. The duplicate check and the
insert run in one transaction, under the store's writer lock, so they see the same
rows."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from memfold.errors import InvalidInput
from memfold.model import ApiKey, Role, parse_time
from memfold.store.sql.tables import SQLTables

_KEY = "id, prefix, role, user_id, agent_id, label, created_at, revoked_at"


def _key(row: tuple[Any, ...]) -> ApiKey:
    created = parse_time(row[6])
    assert created is not None  # a NOT NULL column
    return ApiKey(
        id=row[0],
        prefix=row[1],
        role=Role(row[2]),
        user_id=row[3],
        agent_id=row[4],
        label=row[5],
        created_at=created,
        revoked_at=parse_time(row[7]),
    )


class KeyTables(SQLTables):
    """``api_keys``: insert, look up by hash, list, revoke."""

    def insert_api_key(self, key: ApiKey, secret_hash: str) -> None:
        """A new key; an id or hash already stored: InvalidInput (nothing written)."""
        with self._tx():
            taken = self._rows(
                "SELECT 1 FROM api_keys WHERE id = ? OR secret_hash = ?", (key.id, secret_hash)
            )
            if taken:
                raise InvalidInput(f"API key {key.id!r} or its hash is already stored")
            self._write(
                f"INSERT INTO api_keys ({_KEY}, secret_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    key.id,
                    key.prefix,
                    key.role.value,
                    key.user_id,
                    key.agent_id,
                    key.label,
                    self._dialect.time(key.created_at),
                    self._dialect.time(key.revoked_at),
                    secret_hash,
                ),
            )

    def api_key_by_hash(self, secret_hash: str) -> ApiKey | None:
        """The key with this hash, revoked or not (the caller checks)."""
        rows = self._rows(f"SELECT {_KEY} FROM api_keys WHERE secret_hash = ?", (secret_hash,))
        return _key(rows[0]) if rows else None

    def list_api_keys(self, *, include_revoked: bool = False) -> list[ApiKey]:
        """Oldest first."""
        where = "" if include_revoked else " WHERE revoked_at IS NULL"
        rows = self._rows(f"SELECT {_KEY} FROM api_keys{where} ORDER BY created_at, id")
        return [_key(r) for r in rows]

    def revoke_api_key(self, key_id: str, at: datetime) -> ApiKey | None:
        """Set revoked_at (kept when already revoked); None: no such key."""
        with self._tx():
            self._write(
                "UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL",
                (self._dialect.time(at), key_id),
            )
            rows = self._rows(f"SELECT {_KEY} FROM api_keys WHERE id = ?", (key_id,))
        return _key(rows[0]) if rows else None
