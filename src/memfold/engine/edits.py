"""Manual edits through the API: update text or fields, soft delete. All logged."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from memfold.engine.changes import ChangeSet, commit
from memfold.engine.context import Context
from memfold.errors import ConflictError, NotFound
from memfold.model import Area, MemoryRecord, Status, Vector, content_hash, utcnow

T = TypeVar("T")


def require(ctx: Context, memory_id: str) -> MemoryRecord:
    record = ctx.store.get_memory(memory_id)
    if record is None:
        raise NotFound(f"no memory with id {memory_id!r}")
    return record


def _retrying(attempt: Callable[[], T], tries: int = 5) -> T:
    """Run ``attempt`` again if another writer changed the memory in between.

    A manual edit states the caller's intent ("the text is now X"), which stays
    valid on the newer version, so re-reading and re-applying is safe.
    """
    for _ in range(tries - 1):
        try:
            return attempt()
        except ConflictError:
            continue
    return attempt()


def update(
    ctx: Context,
    memory_id: str,
    *,
    text: str | None = None,
    area: Area | None = None,
    importance: float | None = None,
    metadata: dict[str, object] | None = None,
    reason: str = "",
) -> tuple[MemoryRecord, int]:
    """Edit a memory in place: version + 1, re-embedded when the text changes, logged."""
    vector = None if text is None else ctx.embed_one(text)
    return _retrying(
        lambda: _update_once(ctx, memory_id, text, vector, area, importance, metadata, reason)
    )


def _update_once(
    ctx: Context,
    memory_id: str,
    text: str | None,
    vector: Vector | None,
    area: Area | None,
    importance: float | None,
    metadata: dict[str, object] | None,
    reason: str,
) -> tuple[MemoryRecord, int]:
    current = require(ctx, memory_id)
    new = current.copy(version=current.version + 1, updated_at=utcnow())
    if text is not None and vector is not None and text != current.text:
        new.text = text
        new.content_hash = content_hash(text)
        new.embedding = vector
        new.embedding_model = ctx.embedder.model_id
    if area is not None:
        new.area = area
    if importance is not None:
        new.importance = importance
    if metadata is not None:
        new.metadata = {**current.metadata, **metadata}
    log_id = commit(
        ctx,
        ChangeSet(
            path="api",
            action="EDIT",
            input_ids=[memory_id],
            expected={memory_id: current.version},
            writes=[new],
            reasoning=reason or "manual update",
            judge="user",
        ),
    )
    return require(ctx, memory_id), log_id


def soft_delete(ctx: Context, memory_id: str, *, reason: str = "") -> tuple[MemoryRecord, int]:
    """Archive a memory: hidden from plain search, still returned by get() and deep search."""
    return _retrying(lambda: _archive_once(ctx, memory_id, reason))


def _archive_once(ctx: Context, memory_id: str, reason: str) -> tuple[MemoryRecord, int]:
    current = require(ctx, memory_id)
    now = utcnow()
    archived = current.copy(
        status=Status.ARCHIVED, version=current.version + 1, updated_at=now, valid_to=now
    )
    log_id = commit(
        ctx,
        ChangeSet(
            path="api",
            action="ARCHIVE",
            input_ids=[memory_id],
            expected={memory_id: current.version},
            writes=[archived],
            reasoning=reason or "manual delete",
            judge="user",
        ),
    )
    return require(ctx, memory_id), log_id
