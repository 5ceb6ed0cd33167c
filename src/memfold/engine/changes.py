"""Logged changes: a set of memory writes and link edits, applied as one transaction.

Every path (manual edit, on-save consolidation, batch review, undo) describes
what it wants as a ``ChangeSet``; ``commit`` checks versions, writes, and
records the before and after state in the audit log, all in one transaction.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC
from typing import cast

from memfold.engine.context import Context
from memfold.engine.passages import attach_passages
from memfold.engine.snapshot import state
from memfold.errors import ConflictError
from memfold.model import Link, LinkKind, MemoryRecord
from memfold.store.base import NewLogEntry, Savepoints, Store, WrittenRows


@dataclass
class ChangeSet:
    path: str
    action: str
    input_ids: list[str]
    # id -> version the change was planned against (None: must not exist yet)
    expected: dict[str, int | None] = field(default_factory=dict)
    writes: list[MemoryRecord] = field(default_factory=list)
    creates: list[MemoryRecord] = field(default_factory=list)
    deletes: list[str] = field(default_factory=list)
    add_links: list[Link] = field(default_factory=list)
    remove_links: list[Link] = field(default_factory=list)
    similarity: float | None = None
    confidence: float | None = None
    reasoning: str = ""
    judge: str = ""
    model: str | None = None
    prompt_version: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    undoes: int | None = None

    def touched(self) -> list[str]:
        ids = [*self.input_ids, *(r.id for r in self.writes), *(r.id for r in self.creates)]
        return list(dict.fromkeys([*ids, *self.deletes]))


def commit(ctx: Context, change: ChangeSet, *, inside: Callable[[int], None] | None = None) -> int:
    """Apply ``change`` atomically and log it; returns the log id.

    Raises ConflictError (and writes nothing) if a memory moved past the version
    the change was planned against. ``inside`` runs in the same transaction
    (e.g. marking a job done) and gets the new log id.
    """
    store = ctx.store
    # Long texts new or changed get their passage vectors before the write (a record
    # read from the store has its own already: nothing to embed).
    attach_passages(ctx, [*change.creates, *change.writes])
    # Inside a pass's transaction (engine.write_group), a savepoint: this change alone
    # rolls back when it raises.
    with store.atomic() if isinstance(store, Savepoints) else store.transaction():
        touched = change.touched()
        current = store.get_memories(touched)
        for mid, version in change.expected.items():
            found = current.get(mid)
            if version is None and found is not None:
                raise ConflictError(f"memory {mid} already exists")
            if version is not None and (found is None or found.version != version):
                have = None if found is None else found.version
                raise ConflictError(f"memory {mid} changed (version {have}, planned on {version})")
        link_ids = [*touched, *(lk.src for lk in change.remove_links)]
        links_before = store.links_for(link_ids)
        before = {mid: current.get(mid) for mid in touched}
        # The rows as the writes left them, when the store hands them back (else read).
        returning = _written_rows(store)
        written: dict[str, MemoryRecord | None] = {}
        for rec in change.creates:
            if returning is None:
                store.insert_memories([rec])
            else:
                written[rec.id] = returning.insert_memory_returning(rec)
        for rec in change.writes:
            live = current.get(rec.id)
            if live is not None and change.undoes is None:
                # Retrievals counted since the change was planned are not content: keep them.
                rec.access_count = max(rec.access_count, live.access_count)
                rec.last_access_at = live.last_access_at or rec.last_access_at
            if returning is None:
                store.put_memory(rec)
            else:
                written[rec.id] = returning.put_memory_returning(rec)
        for mid in change.deletes:
            store.delete_memory_row(mid)
            written[mid] = None
        store.remove_links([(lk.src, lk.dst, lk.kind) for lk in change.remove_links])
        store.add_links(change.add_links)
        if returning is None:
            after_records = store.get_memories(touched)
            after = {mid: after_records.get(mid) for mid in touched}
            links_after = store.links_for(link_ids)
        else:
            # Under the writer lock nothing else wrote them since they were read: a row
            # this change did not write is as read, its links as read plus its own edits.
            after = {mid: written[mid] if mid in written else current.get(mid) for mid in touched}
            # SQLite's links_for keeps table order, which the edits cannot tell: read it.
            sorted_links = getattr(type(store), "links_for_sorted", False)
            links_after = (
                links_after_edits(links_before, change, link_ids)
                if sorted_links
                else store.links_for(link_ids)
            )
        log_id = store.append_log(
            NewLogEntry(
                path=change.path,
                action=change.action,
                input_ids=change.input_ids,
                output_ids=[r.id for r in change.creates] + [r.id for r in change.writes],
                similarity=change.similarity,
                confidence=change.confidence,
                reasoning=change.reasoning,
                judge=change.judge,
                model=change.model,
                prompt_version=change.prompt_version,
                prompt_tokens=change.prompt_tokens,
                completion_tokens=change.completion_tokens,
                before=state(before, links_before),
                after=state(after, links_after),
                undoes=change.undoes,
            )
        )
        if inside is not None:
            inside(log_id)
    return log_id


def _written_rows(store: Store) -> WrittenRows | None:
    """The store when its own class hands back the rows it writes; None for a wrapper
    that passes other calls on (``__getattr__``): it may watch the writes (review's
    step hooks), so they must go through its ``insert_memories`` and ``put_memory``."""
    names = ("insert_memory_returning", "put_memory_returning")
    if all(callable(getattr(type(store), name, None)) for name in names):
        return cast(WrittenRows, store)
    return None


def links_after_edits(before: list[Link], change: ChangeSet, ids: list[str]) -> list[Link]:
    """What ``links_for(ids)`` returns once ``change``'s link edits are applied to the
    links it returned before (``before``): the removed ones gone, each added one in
    place of the link of the same key (``add_links`` upserts), in the same order
    (creation time, then source, target and kind)."""
    wanted = set(ids)
    gone = {(lk.src, lk.dst, lk.kind) for lk in change.remove_links}
    now = {(lk.src, lk.dst, lk.kind): lk for lk in before if (lk.src, lk.dst, lk.kind) not in gone}
    for lk in change.add_links:
        if lk.src in wanted or lk.dst in wanted:
            made = lk.created_at if lk.created_at.tzinfo else lk.created_at.replace(tzinfo=UTC)
            added = Link(lk.src, lk.dst, LinkKind(lk.kind), float(lk.weight), made)
            now[(lk.src, lk.dst, lk.kind)] = added
    return sorted(now.values(), key=lambda lk: (lk.created_at, lk.src, lk.dst, lk.kind.value))


def link(src: str, dst: str, kind: LinkKind, weight: float = 1.0) -> Link:
    return Link(src, dst, kind, weight)
