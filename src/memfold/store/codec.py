"""Row <-> record conversion for SQL backends."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from enum import Enum
from typing import Any, TypeVar

import numpy as np

from memfold.model import (
    Area,
    Category,
    CategorySource,
    Job,
    JobStatus,
    LogEntry,
    MemoryRecord,
    Scope,
    Status,
    Tier,
    Vector,
    parse_time,
)

MEMORY_COLUMNS = (
    "id, user_id, agent_id, session_id, scope_key, text, area, category, importance, "
    "stability, access_count, last_access_at, created_at, updated_at, valid_from, valid_to, "
    "status, tier, superseded_by, consolidated_from, sources, metadata, content_hash, "
    "embedding, embedding_model, embedding_dim, version, expires_at, category_source, "
    "passages"
)
MEMORY_COLUMNS_NO_VEC = MEMORY_COLUMNS.replace("embedding, ", "NULL, ", 1).replace(
    ", passages", ", NULL", 1
)


def vec_to_blob(vec: Vector | None) -> bytes | None:
    return None if vec is None else np.ascontiguousarray(vec, dtype=np.float32).tobytes()


def blob_to_vec(blob: bytes | None) -> Vector | None:
    return None if blob is None else np.frombuffer(blob, dtype=np.float32).copy()


def passages_to_blob(r: MemoryRecord) -> bytes | None:
    """A record's passage vectors as one float32 blob (rows of its embedding's
    dimension), only while they are its text's (``passages_of``) and as wide as its
    embedding: else NULL, never another text's passages."""
    p = r.passages
    if p is None or r.embedding is None or r.passages_of != r.text:
        return None
    if p.ndim != 2 or p.shape[0] == 0 or p.shape[1] != r.embedding.shape[0]:
        return None
    return np.ascontiguousarray(p, dtype=np.float32).tobytes()


def blob_to_passages(blob: bytes | None, dim: int | None) -> np.ndarray | None:
    """The passage matrix of a row (None: none, or no dimension to shape it by)."""
    if blob is None or not dim:
        return None
    flat = np.frombuffer(blob, dtype=np.float32)
    return None if flat.size % dim else flat.reshape(-1, dim).copy()


def _t(value: Any) -> str | None:
    return None if value is None else value.isoformat()


def memory_params(r: MemoryRecord) -> tuple[Any, ...]:
    return (
        r.id,
        r.scope.user_id,
        r.scope.agent_id,
        r.scope.session_id,
        r.scope.key(),
        r.text,
        r.area.value,
        r.category.value,
        r.importance,
        r.stability,
        r.access_count,
        _t(r.last_access_at),
        _t(r.created_at),
        _t(r.updated_at),
        _t(r.valid_from),
        _t(r.valid_to),
        r.status.value,
        r.tier.value,
        r.superseded_by,
        json.dumps(r.consolidated_from),
        json.dumps(r.sources),
        json.dumps(r.metadata, ensure_ascii=False),
        r.content_hash,
        vec_to_blob(r.embedding),
        r.embedding_model,
        None if r.embedding is None else int(r.embedding.shape[0]),
        r.version,
        _t(r.expires_at),
        r.category_source.value,
        passages_to_blob(r),
    )


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
E = TypeVar("E", bound=Enum)


def _member(members: dict[Any, E], kind: type[E], value: Any) -> E:
    """``kind(value)`` by a dict lookup (an enum call costs ~2 us; a pass of the drain
    reads thousands of rows); an unknown value still raises as the call does."""
    found = members.get(value)
    return kind(value) if found is None else found


def _members(kind: type[E]) -> dict[Any, E]:
    return {m.value: m for m in kind}


_AREAS, _CATEGORIES, _STATUSES = _members(Area), _members(Category), _members(Status)
_TIERS, _CATEGORY_SOURCES = _members(Tier), _members(CategorySource)


def _time(value: Any) -> datetime | None:
    """``parse_time`` for a column that holds ISO text or NULL (the common case first)."""
    if value is None or value == "":
        return None
    if isinstance(value, str):
        parsed = datetime.fromisoformat(value)
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    return parse_time(value)


def _json_list(value: str) -> Any:
    return [] if value == "[]" else json.loads(value)  # most rows: no sources, no merge


def read_metadata(text: str) -> Any:
    """A row's metadata JSON. Nested past what json.loads can read (thousands of levels:
    only a row written around memfold's checks), a note saying so, not a RecursionError
    that would fail every listing and search of the scope."""
    try:
        return json.loads(text)
    except RecursionError:
        return {"_unreadable": f"metadata of {len(text)} bytes nests too deep to read"}


def row_to_memory(row: tuple[Any, ...]) -> MemoryRecord:
    return MemoryRecord(
        id=row[0],
        scope=Scope(row[1], row[2], row[3]),
        text=row[5],
        area=_member(_AREAS, Area, row[6]),
        category=_member(_CATEGORIES, Category, row[7]),
        importance=row[8],
        stability=row[9],
        access_count=row[10],
        last_access_at=_time(row[11]),
        created_at=_time(row[12]) or _EPOCH,
        updated_at=_time(row[13]) or _EPOCH,
        valid_from=_time(row[14]),
        valid_to=_time(row[15]),
        status=_member(_STATUSES, Status, row[16]),
        tier=_member(_TIERS, Tier, row[17]),
        superseded_by=row[18],
        consolidated_from=_json_list(row[19]),
        sources=_json_list(row[20]),
        metadata={} if row[21] == "{}" else read_metadata(row[21]),
        content_hash=row[22],
        embedding=blob_to_vec(row[23]),
        embedding_model=row[24],
        version=row[26],
        expires_at=_time(row[27]),
        category_source=_member(_CATEGORY_SOURCES, CategorySource, row[28]),
        passages=blob_to_passages(row[29], row[25]),
        # Read with its vectors: the row's passages (or none) are its text's.
        passages_of=row[5] if row[23] is not None else None,
    )


LOG_COLUMNS = (
    "id, time, path, action, input_ids, output_ids, similarity, confidence, reasoning, judge, "
    "model, prompt_version, prompt_tokens, completion_tokens, before, after, undone_by, undoes"
)


def row_to_log(row: tuple[Any, ...]) -> LogEntry:
    return LogEntry(
        id=row[0],
        time=parse_time(row[1]),  # type: ignore[arg-type]
        path=row[2],
        action=row[3],
        input_ids=json.loads(row[4]),
        output_ids=json.loads(row[5]),
        similarity=row[6],
        confidence=row[7],
        reasoning=row[8],
        judge=row[9],
        model=row[10],
        prompt_version=row[11],
        prompt_tokens=row[12],
        completion_tokens=row[13],
        before=json.loads(row[14]),
        after=json.loads(row[15]),
        undone_by=row[16],
        undoes=row[17],
    )


JOB_COLUMNS = (
    "id, memory_id, kind, status, attempts, last_error, created_at, "
    "claimed_by, lease_until, backoffs, next_attempt_at, conflicts"
)


def _epoch_time(value: float | None) -> datetime | None:
    return None if value is None else datetime.fromtimestamp(value, tz=UTC)


def row_to_job(row: tuple[Any, ...]) -> Job:
    return Job(
        id=row[0],
        memory_id=row[1],
        kind=row[2],
        status=JobStatus(row[3]),
        attempts=row[4],
        last_error=row[5],
        created_at=parse_time(row[6]),  # type: ignore[arg-type]
        owner=row[7],
        lease_until=_epoch_time(row[8]),
        backoffs=row[9],
        next_attempt_at=_epoch_time(row[10]),
        conflicts=row[11],
    )
