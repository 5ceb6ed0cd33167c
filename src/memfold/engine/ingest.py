"""Turning validated input into stored memories (and their consolidation jobs)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

import numpy as np

from memfold.embed.base import check_vector
from memfold.engine import readings
from memfold.engine.context import Context
from memfold.engine.passages import attach_passages
from memfold.errors import InvalidInput
from memfold.model import (
    Area,
    Category,
    CategorySource,
    Job,
    JSONDict,
    MemoryRecord,
    Scope,
    Status,
    Vector,
    content_hash,
    new_id,
)
from memfold.policy import retention


@dataclass(slots=True)
class NewMemory:
    """One validated memory to store."""

    text: str
    scope: Scope
    area: Area = Area.MAIN
    category: Category = Category.SEMANTIC
    category_source: CategorySource = CategorySource.GIVEN
    importance: float = 0.5
    sources: list[str] = field(default_factory=list)
    metadata: JSONDict = field(default_factory=dict)
    embedding: Vector | None = None
    created_at: datetime | None = None
    valid_from: datetime | None = None
    # Time to live (engine/lifecycle/expiry.py): an absolute time, or a span from creation.
    expires_at: datetime | None = None
    ttl: timedelta | None = None


def initial_stability(ctx: Context, importance: float) -> float:
    return retention.initial_stability(importance, ctx.settings.lifecycle)


def build_records(ctx: Context, items: Sequence[NewMemory]) -> list[MemoryRecord]:
    """Records with vectors: given vectors are checked, missing ones are embedded in one batch."""
    dim = ctx.embedder.dim
    vectors: list[Vector | None] = [
        None if it.embedding is None else check_vector(it.embedding, dim) for it in items
    ]
    missing = [i for i, v in enumerate(vectors) if v is None]
    if missing:
        fresh = ctx.embed([items[i].text for i in missing])
        if not np.all(np.isfinite(fresh)):
            raise InvalidInput("the embedder returned a non-finite vector")
        for row, i in enumerate(missing):
            vectors[i] = fresh[row]
    now = ctx.clock()
    records = []
    for n, (item, vec) in enumerate(zip(items, vectors, strict=True)):
        # One microsecond apart: a batch keeps its order in time, so "newer" stays defined.
        created = item.created_at or now + timedelta(microseconds=n)
        expires = item.expires_at or (None if item.ttl is None else created + item.ttl)
        records.append(
            MemoryRecord(
                id=new_id(),
                scope=item.scope,
                text=item.text,
                area=item.area,
                category=item.category,
                category_source=item.category_source,
                importance=item.importance,
                stability=initial_stability(ctx, item.importance),
                created_at=created,
                updated_at=created,
                valid_from=item.valid_from or created,
                sources=list(item.sources),
                metadata=dict(item.metadata),
                content_hash=content_hash(item.text),
                embedding=vec,
                embedding_model=ctx.embedder.model_id,
                expires_at=expires,
                status=Status.EXPIRED if expires is not None and expires <= now else Status.ACTIVE,
                # A caller's own vector: no passages (they would need this embedder).
                passages_of=None if item.embedding is None else item.text,
            )
        )
    attach_passages(ctx, records)  # long texts embedded here: their passages, one batch
    return records


def store_records(ctx: Context, records: Sequence[MemoryRecord], *, enqueue: bool) -> list[int]:
    """Insert records and, in the same transaction, their consolidation jobs and, for
    those, the readings of their texts (engine/readings.py; without consolidation a
    text is read when first judged)."""
    job_ids: list[int] = []
    rows = readings.for_new(records) if enqueue else []
    with ctx.store.transaction():
        ctx.store.insert_memories(records)
        if enqueue:
            ctx.store.put_readings(rows)
            job_ids = [ctx.store.enqueue_job(r.id) for r in records]
    return job_ids


def store_claimed(ctx: Context, record: MemoryRecord, owner: str) -> Job:
    """Insert one record and its job, the job already claimed by ``owner`` (a sync add):
    in one transaction, so no other worker can take the job before its save decides."""
    rows = readings.for_new([record])
    with ctx.store.transaction():
        ctx.store.insert_memories([record])
        ctx.store.put_readings(rows)
        job_id = ctx.store.enqueue_job(record.id)
        job = ctx.store.claim_job(job_id, owner, lease_s=ctx.settings.consolidation.lease_s)
    if job is None:  # cannot happen: the job was created pending in this transaction
        raise RuntimeError(f"could not claim the new job {job_id}")
    return job
