"""Manual edits through the API: update text or fields, soft delete. All logged."""

from __future__ import annotations

from memfold.engine.changes import ChangeSet, commit
from memfold.engine.context import Context
from memfold.errors import NotFound
from memfold.model import Area, MemoryRecord, Status, content_hash, utcnow


def require(ctx: Context, memory_id: str) -> MemoryRecord:
    record = ctx.store.get_memory(memory_id)
    if record is None:
        raise NotFound(f"no memory with id {memory_id!r}")
    return record


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
    current = require(ctx, memory_id)
    new = current.copy(version=current.version + 1, updated_at=utcnow())
    if text is not None and text != current.text:
        new.text = text
        new.content_hash = content_hash(text)
        new.embedding = ctx.embed_one(text)
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
