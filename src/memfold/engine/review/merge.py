"""Applying classified pairs: the five-step archival merge, supersede, and links.

Every change goes through ``changes.commit`` (logged with before/after state, undoable,
optimistic version checks). The merge text is generated and embedded *before* the write
transaction: an LLM call must never hold the SQLite write lock. Versions are checked
again inside the transaction, so a memory edited meanwhile makes the merge a conflict.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, cast

from memfold.engine.changes import ChangeSet, commit, link
from memfold.engine.context import Context
from memfold.engine.review.classify import ordered, stale_reason
from memfold.errors import ConflictError
from memfold.judge.base import Judge, TextResult
from memfold.model import (
    JSONDict,
    LinkKind,
    LogEntry,
    MemoryRecord,
    QueueItem,
    Status,
    Vector,
    content_hash,
    new_id,
    utcnow,
)
from memfold.store.base import Store

# Called with the name of each finished step: read, generate, write, archive, mark.
# Tests raise from it to prove that a failure at any step rolls everything back.
StepHook = Callable[[str], None]
MERGE_STEPS = ("read", "generate", "write", "archive", "mark")


@dataclass(slots=True)
class Proposal:
    """A merged text ready to write (or to hold for review), with what it cost."""

    text: str
    vector: Vector
    result: TextResult

    def to_dict(self, reasons: Sequence[str] = ()) -> JSONDict:
        r = self.result
        return {
            "text": self.text,
            "reasons": list(reasons),
            "reasoning": r.reasoning,
            "judge": r.judge,
            "model": r.model,
            "prompt_tokens": r.prompt_tokens,
            "completion_tokens": r.completion_tokens,
        }


def propose(ctx: Context, judge: Judge, a: MemoryRecord, b: MemoryRecord) -> Proposal | None:
    """Generate and embed the merged text (outside any transaction). None: no text."""
    result = judge.merge_text(list(ordered(a, b)))
    text = (result.text or "").strip()
    if not text:
        return None
    return Proposal(text, ctx.embed_one(text), result)


def proposal_from_dict(ctx: Context, data: JSONDict) -> Proposal:
    """A held proposal, re-embedded (the embedder is deterministic)."""
    text = str(data["text"])
    result = TextResult(
        text,
        reasoning=str(data.get("reasoning", "")),
        judge=str(data.get("judge", "")),
        model=data.get("model"),
    )
    return Proposal(text, ctx.embed_one(text), result)


class _SteppedStore:
    """Store wrapper that reports the write and archive steps inside ``commit``."""

    def __init__(self, inner: Store, hook: StepHook, archives: int) -> None:
        self._inner = inner
        self._hook = hook
        self._archives = archives

    def insert_memories(self, records: Sequence[MemoryRecord]) -> None:
        self._inner.insert_memories(records)
        self._hook("write")

    def put_memory(self, record: MemoryRecord, *, expected_version: int | None = None) -> None:
        self._inner.put_memory(record, expected_version=expected_version)
        self._archives -= 1
        if self._archives == 0:
            self._hook("archive")

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def merge_pair(
    ctx: Context,
    item: QueueItem,
    proposal: Proposal,
    *,
    run_id: int | None = None,
    hook: StepHook | None = None,
) -> int:
    """The five-step archival merge in ONE transaction; returns the log id.

    1 read both memories (re-checking their queued versions), 2 build the merged memory
    from the generated text, 3 write it, 4 archive both originals (superseded_by and
    derived_from links), 5 mark the queue entry processed. Raises ConflictError if a
    memory changed since queuing; any exception rolls every step back.
    """
    step = hook or (lambda _name: None)
    store = ctx.store
    with store.transaction():
        found = store.get_memories([item.memory_a, item.memory_b])
        a, b = found.get(item.memory_a), found.get(item.memory_b)
        why = stale_reason(item, a, b)
        if why is not None or a is None or b is None:
            raise ConflictError(why or "memory missing")
        step("read")
        now = utcnow()
        older, newer = ordered(a, b)
        merged = older.copy(
            id=new_id(),
            text=proposal.text,
            content_hash=content_hash(proposal.text),
            embedding=proposal.vector,
            embedding_model=ctx.embedder.model_id,
            version=1,
            status=Status.ACTIVE,
            superseded_by=None,
            created_at=now,
            updated_at=now,
            valid_from=min((m.valid_from or m.created_at) for m in (older, newer)),
            importance=max(older.importance, newer.importance),
            stability=max(older.stability, newer.stability),
            access_count=max(older.access_count, newer.access_count),
            sources=list(dict.fromkeys([*older.sources, *newer.sources])),
            consolidated_from=[older.id, newer.id],
            metadata={**older.metadata, **newer.metadata},
        )
        archived = [
            m.copy(
                status=Status.ARCHIVED,
                superseded_by=merged.id,
                version=m.version + 1,
                updated_at=now,
            )
            for m in (older, newer)
        ]
        step("generate")
        r = proposal.result
        change = ChangeSet(
            path="review",
            action="MERGE",
            input_ids=[older.id, newer.id],
            expected={older.id: older.version, newer.id: newer.version, merged.id: None},
            creates=[merged],
            writes=archived,
            add_links=[link(merged.id, m.id, LinkKind.DERIVED_FROM) for m in (older, newer)],
            similarity=item.similarity,
            confidence=item.confidence,
            reasoning=f"{item.reasoning} | merge: {r.reasoning}".strip(" |"),
            judge=r.judge,
            model=r.model,
            prompt_version=r.prompt_version,
            prompt_tokens=r.prompt_tokens,
            completion_tokens=r.completion_tokens,
        )
        target = ctx
        if hook is not None:
            stepped = _SteppedStore(ctx.store, hook, len(archived))
            target = replace(ctx, store=cast(Store, stepped))

        def mark(log_id: int) -> None:
            store.set_queue_status(
                item.id, "processed", note=f"merged, log {log_id}", run_id=run_id
            )
            step("mark")

        return commit(target, change, inside=mark)


def supersede_pair(ctx: Context, item: QueueItem, *, run_id: int | None = None) -> int:
    """SUPERSEDED: the older memory becomes superseded by the newer; no new text."""
    store = ctx.store
    found = store.get_memories([item.memory_a, item.memory_b])
    a, b = found.get(item.memory_a), found.get(item.memory_b)
    why = stale_reason(item, a, b)
    if why is not None or a is None or b is None:
        raise ConflictError(why or "memory missing")
    older, newer = ordered(a, b)
    now = utcnow()
    change = ChangeSet(
        path="review",
        action="SUPERSEDE",
        input_ids=[older.id, newer.id],
        expected={older.id: older.version, newer.id: newer.version},
        writes=[
            older.copy(
                status=Status.SUPERSEDED,
                superseded_by=newer.id,
                version=older.version + 1,
                updated_at=now,
                valid_to=now,
            )
        ],
        add_links=[link(newer.id, older.id, LinkKind.SUPERSEDES)],
        similarity=item.similarity,
        confidence=item.confidence,
        reasoning=item.reasoning,
        judge="review",
    )
    return commit(
        ctx,
        change,
        inside=lambda log_id: store.set_queue_status(
            item.id, "processed", note=f"superseded, log {log_id}", run_id=run_id
        ),
    )


def link_pair(
    ctx: Context, item: QueueItem, kind: LinkKind, status: str, *, run_id: int | None = None
) -> int:
    """RELATED / CONTRADICTION: a logged link only; both memories stay active."""
    store = ctx.store
    found = store.get_memories([item.memory_a, item.memory_b])
    why = stale_reason(item, found.get(item.memory_a), found.get(item.memory_b))
    if why is not None:
        raise ConflictError(why)
    change = ChangeSet(
        path="review",
        action=f"LINK_{kind.value.upper()}",
        input_ids=[item.memory_a, item.memory_b],
        expected={item.memory_a: item.version_a, item.memory_b: item.version_b},
        add_links=[link(item.memory_a, item.memory_b, kind)],
        similarity=item.similarity,
        confidence=item.confidence,
        reasoning=item.reasoning,
        judge="review",
    )
    return commit(
        ctx,
        change,
        inside=lambda log_id: store.set_queue_status(item.id, status, run_id=run_id),
    )


def unlink_pair(ctx: Context, item: QueueItem, kind: LinkKind, note: str) -> int | None:
    """Remove the pair's ``kind`` link(s) as a logged, undoable change and mark the item
    rejected; returns the log id, or None (and changes nothing) when no such link is left."""
    store = ctx.store
    pair = {item.memory_a, item.memory_b}
    with store.transaction():
        found = [
            lk
            for lk in store.links_for([item.memory_a, item.memory_b])
            if lk.kind is kind and {lk.src, lk.dst} == pair
        ]
        if not found:
            return None
        change = ChangeSet(
            path="review",
            action=f"UNLINK_{kind.value.upper()}",
            input_ids=[item.memory_a, item.memory_b],
            remove_links=found,
            similarity=item.similarity,
            confidence=item.confidence,
            reasoning=f"rejected by hand: {note}",
            judge="user",
        )
        return commit(
            ctx,
            change,
            inside=lambda log_id: store.set_queue_status(
                item.id, "rejected", note=f"{note} (link removed, log {log_id})"
            ),
        )


# What undoing a review change does to its queue entry: an applied decision (merge,
# supersede, link) is reopened so a later run decides the pair again; an undone reject
# of a contradiction puts the pair back on the list for a person.
_REOPEN = ("MERGE", "SUPERSEDE", "LINK_RELATED", "LINK_CONTRADICTS")
_RELIST = ("UNLINK_CONTRADICTS",)


def requeue_after_undo(ctx: Context, entry: LogEntry, undo_id: int) -> None:
    """Called inside the undo's transaction, after the memories and links are restored."""
    if entry.path != "review" or len(entry.input_ids) != 2:
        return
    store = ctx.store
    item = store.queue_item_for_pair(*entry.input_ids)
    if item is None:
        return
    note = f"log {entry.id} ({entry.action}) undone by log {undo_id}"
    if entry.action in _RELIST:
        store.set_queue_status(item.id, "review", note=note)
    elif entry.action in _REOPEN:
        found = store.get_memories([item.memory_a, item.memory_b])
        a, b = found.get(item.memory_a), found.get(item.memory_b)
        if a is None or b is None:
            return  # a memory is gone for good: nothing left to decide
        store.reopen_queue_item(item.id, a.version, b.version, f"reopened: {note}")
