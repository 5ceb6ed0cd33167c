"""Row <-> record conversion for PostgreSQL: the same columns as store/codec.py, with
native types (``timestamptz`` as datetimes, ``jsonb`` as Python values, ``vector``
as a float32 numpy array, see connection.py's adapters)."""

from __future__ import annotations

from typing import Any

import numpy as np
from psycopg.types.json import Jsonb

from memfold.model import (
    Area,
    Category,
    CategorySource,
    LogEntry,
    MemoryRecord,
    Scope,
    Status,
    Tier,
    parse_time,
)
from memfold.store.codec import (
    JOB_COLUMNS,
    LOG_COLUMNS,
    MEMORY_COLUMNS,
    blob_to_passages,
    passages_to_blob,
    row_to_job,
)

MEMORY_COLUMNS_NO_VEC = MEMORY_COLUMNS.replace("embedding, ", "NULL::vector, ", 1).replace(
    ", passages", ", NULL::bytea", 1
)
MEMORY_FIELDS = [c.strip() for c in MEMORY_COLUMNS.split(",")]
_EPOCH = parse_time("1970-01-01T00:00:00+00:00")

__all__ = [
    "JOB_COLUMNS",
    "LOG_COLUMNS",
    "MEMORY_COLUMNS",
    "MEMORY_COLUMNS_NO_VEC",
    "MEMORY_FIELDS",
    "memory_params",
    "row_to_job",
    "row_to_log",
    "row_to_memory",
]


def memory_params(r: MemoryRecord) -> tuple[Any, ...]:
    """Values in MEMORY_COLUMNS order."""
    vec = None if r.embedding is None else np.ascontiguousarray(r.embedding, dtype=np.float32)
    return (
        r.id,
        r.scope.user_id,
        r.scope.agent_id,
        r.scope.session_id,
        r.scope.key(),
        r.text,
        r.area.value,
        r.category.value,
        float(r.importance),
        float(r.stability),
        r.access_count,
        r.last_access_at,
        r.created_at,
        r.updated_at,
        r.valid_from,
        r.valid_to,
        r.status.value,
        r.tier.value,
        r.superseded_by,
        Jsonb(r.consolidated_from),
        Jsonb(r.sources),
        Jsonb(r.metadata),
        r.content_hash,
        vec,
        r.embedding_model,
        None if vec is None else int(vec.shape[0]),
        r.version,
        r.expires_at,
        r.category_source.value,
        passages_to_blob(r),
    )


def row_to_memory(row: tuple[Any, ...]) -> MemoryRecord:
    return MemoryRecord(
        id=row[0],
        scope=Scope(row[1], row[2], row[3]),
        text=row[5],
        area=Area(row[6]),
        category=Category(row[7]),
        importance=row[8],
        stability=row[9],
        access_count=row[10],
        last_access_at=parse_time(row[11]),
        created_at=parse_time(row[12]) or _EPOCH,  # type: ignore[arg-type]
        updated_at=parse_time(row[13]) or _EPOCH,  # type: ignore[arg-type]
        valid_from=parse_time(row[14]),
        valid_to=parse_time(row[15]),
        status=Status(row[16]),
        tier=Tier(row[17]),
        superseded_by=row[18],
        consolidated_from=list(row[19]),
        sources=list(row[20]),
        metadata=dict(row[21]),
        content_hash=row[22],
        embedding=row[23],
        embedding_model=row[24],
        version=row[26],
        expires_at=parse_time(row[27]),
        category_source=CategorySource(row[28]),
        passages=blob_to_passages(None if row[29] is None else bytes(row[29]), row[25]),
        passages_of=row[5] if row[23] is not None else None,
    )


def row_to_log(row: tuple[Any, ...]) -> LogEntry:
    return LogEntry(
        id=row[0],
        time=parse_time(row[1]),  # type: ignore[arg-type]
        path=row[2],
        action=row[3],
        input_ids=list(row[4]),
        output_ids=list(row[5]),
        similarity=row[6],
        confidence=row[7],
        reasoning=row[8],
        judge=row[9],
        model=row[10],
        prompt_version=row[11],
        prompt_tokens=row[12],
        completion_tokens=row[13],
        before=dict(row[14]),
        after=dict(row[15]),
        undone_by=row[16],
        undoes=row[17],
    )
