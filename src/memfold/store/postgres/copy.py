"""Copy a SQLite store into an empty PostgreSQL store, row for row (``memfold migrate``).

Everything comes along with its ids: memories (versions, change numbers, insertion
order, vectors), tombstones, links, the log with its undo marks, jobs, the review
queue, feedback, review runs, LLM usage, erasures, transcripts and summary parts, API
keys (their hashes), idempotency keys and the meta keys (less SQLite's own). One
PostgreSQL transaction: the copy lands whole or not at all. The SQLite file is opened
read-only and never changed (it must be at the current schema: open it once with this
memfold first). The target must hold no memory and no log row.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from psycopg.types.json import Jsonb

from memfold.errors import InvalidInput
from memfold.model import parse_time
from memfold.store.postgres.store import PostgresStore
from memfold.store.sqlite import SQLiteStore

_T = "time"  # converters: ISO text -> datetime; JSON text -> jsonb; blob -> vector
_J = "json"
_V = "vector"
_B = "bool"

# table -> (columns, converters by column, identity column or None), in copy order.
_TABLES: dict[str, tuple[list[str], dict[str, str], str | None]] = {
    "memories": (
        [
            "rowid", "id", "user_id", "agent_id", "session_id", "scope_key", "text", "area",
            "category", "importance", "stability", "access_count", "last_access_at",
            "created_at", "updated_at", "valid_from", "valid_to", "status", "tier",
            "superseded_by", "consolidated_from", "sources", "metadata", "content_hash",
            "embedding", "embedding_model", "embedding_dim", "version", "seq",
            "expires_at", "category_source", "passages",
        ],
        {
            "last_access_at": _T, "created_at": _T, "updated_at": _T, "valid_from": _T,
            "valid_to": _T, "expires_at": _T, "consolidated_from": _J, "sources": _J,
            "metadata": _J, "embedding": _V,
        },
        "rowid",
    ),
    "tombstones": (["id", "seq"], {}, None),
    "links": (["src", "dst", "kind", "weight", "created_at"], {"created_at": _T}, None),
    "consolidation_log": (
        [
            "id", "time", "path", "action", "input_ids", "output_ids", "similarity",
            "confidence", "reasoning", "judge", "model", "prompt_version", "prompt_tokens",
            "completion_tokens", "before", "after", "undone_by", "undoes",
        ],
        {"time": _T, "input_ids": _J, "output_ids": _J, "before": _J, "after": _J},
        "id",
    ),
    "log_memories": (["log_id", "memory_id"], {}, None),
    "jobs": (
        [
            "id", "memory_id", "kind", "status", "attempts", "last_error", "created_at",
            "updated_at", "claimed_by", "claimed_at", "lease_until", "next_attempt_at",
            "backoffs", "conflicts",
        ],
        {"created_at": _T, "updated_at": _T, "claimed_at": _T},
        "id",
    ),
    "consolidation_queue": (
        [
            "id", "scope_key", "memory_a", "memory_b", "similarity", "version_a", "version_b",
            "label", "confidence", "reasoning", "status", "created_at", "classified_at",
            "processed_at", "run_id", "proposal", "note",
        ],
        {"created_at": _T, "classified_at": _T, "processed_at": _T, "proposal": _J},
        "id",
    ),
    "feedback": (
        ["id", "memory_id", "kind", "context", "time"], {"time": _T}, "id"
    ),
    "feedback_applied": (["memory_id", "rule", "log_id", "time"], {"time": _T}, None),
    "review_runs": (
        [
            "id", "scope_key", "started_at", "finished_at", "status", "p90", "counts",
            "breaker", "llm_calls", "prompt_tokens", "completion_tokens",
        ],
        {"started_at": _T, "finished_at": _T, "counts": _J, "breaker": _J},
        "id",
    ),
    "llm_calls": (
        [
            "id", "time", "task", "role", "model", "prompt_tokens", "completion_tokens",
            "latency_ms", "outcome", "error",
        ],
        {"time": _T},
        "id",
    ),
    "erasures": (
        ["id", "scope_key", "user_id", "agent_id", "session_id", "erased_at", "derived"],
        {"erased_at": _T, "derived": _B},
        None,
    ),
    "transcripts": (
        ["id", "session_key", "position", "role", "content", "created_at", "metadata"],
        {"created_at": _T, "metadata": _J},
        None,
    ),
    "summaries": (
        [
            "id", "session_key", "part", "kind", "text", "covers_from", "covers_to",
            "replaces", "created_at",
        ],
        {"created_at": _T, "replaces": _J},
        None,
    ),
    "api_keys": (
        [
            "id", "prefix", "secret_hash", "role", "user_id", "agent_id", "label",
            "created_at", "revoked_at",
        ],
        {"created_at": _T, "revoked_at": _T},
        None,
    ),
    "idempotency_keys": (
        [
            "owner", "idempotency_key", "fingerprint", "claim", "state", "status",
            "content_type", "body", "created_at", "expires_at",
        ],
        {"created_at": _T, "expires_at": _T},
        None,
    ),
    "meta": (["key", "value"], {}, None),
}  # fmt: skip
# SQLite's own meta keys (whether freed pages were zeroed): meaningless on PostgreSQL.
_SQLITE_META = ("secure_delete_from",)
_BATCH = 1000

_CONVERT: dict[str, Callable[[Any], Any]] = {
    _T: parse_time,
    _J: lambda v: None if v is None else Jsonb(json.loads(v)),
    _V: lambda v: None if v is None else np.frombuffer(v, dtype=np.float32),
    _B: lambda v: None if v is None else bool(v),
}


def copy_sqlite_to_postgres(
    source: SQLiteStore,
    target: PostgresStore,
    *,
    progress: Callable[[str, int], None] | None = None,
) -> dict[str, int]:
    """Copy every row of ``source`` into the empty ``target``; rows copied per table."""
    if target.count_memories() or target.list_log(limit=1):
        raise InvalidInput(
            f"the PostgreSQL store {target.location} is not empty; migrate into a new "
            "database or schema"
        )
    counts: dict[str, int] = {}
    with target.transaction():
        for table, (columns, converters, identity) in _TABLES.items():
            counts[table] = _copy_table(source, target, table, columns, converters)
            if progress:
                progress(table, counts[table])
            if identity is not None:
                target._w(
                    f"SELECT setval(pg_get_serial_sequence('{table}', '{identity}'), "
                    f"coalesce((SELECT max({identity}) FROM {table}), 0) + 1, false)"
                )
        target._w(
            "SELECT setval('change_seq', greatest(coalesce((SELECT max(seq) FROM memories), 0),"
            " coalesce((SELECT max(seq) FROM tombstones), 0)) + 1, false)"
        )
    return counts


def _copy_table(
    source: SQLiteStore,
    target: PostgresStore,
    table: str,
    columns: list[str],
    converters: dict[str, str],
) -> int:
    select = ", ".join(columns)
    marks = ", ".join(["%s"] * len(columns))
    overriding = " OVERRIDING SYSTEM VALUE" if _TABLES[table][2] else ""
    insert = f"INSERT INTO {table} ({select}){overriding} VALUES ({marks})"
    if table == "meta":
        insert += " ON CONFLICT (key) DO NOTHING"  # the target's own schema version stays
    convert = [_CONVERT[converters[c]] if c in converters else None for c in columns]
    copied, last = 0, None
    while True:
        where = "" if last is None else " WHERE rowid > ?"
        rows = source._q(
            f"SELECT rowid, {select} FROM {table}{where} ORDER BY rowid LIMIT ?",
            (_BATCH,) if last is None else (last, _BATCH),
        )
        if not rows:
            return copied
        values = [
            tuple(v if f is None else f(v) for v, f in zip(row[1:], convert, strict=True))
            for row in rows
            if not (table == "meta" and row[1] in _SQLITE_META)
        ]
        target._db.write_many(insert, values)
        copied += len(values)
        last = rows[-1][0]


def migrate(sqlite_path: Path, url: str) -> dict[str, int]:
    """Open both stores, copy, close: the rows copied per table."""
    source = SQLiteStore(sqlite_path, read_only=True)
    try:
        target = PostgresStore(url)
        try:
            return copy_sqlite_to_postgres(source, target)
        finally:
            target.close()
    finally:
        source.close()
