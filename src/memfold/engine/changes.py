"""Logged changes: a set of memory writes and link edits, applied as one transaction.

Every path (manual edit, on-save consolidation, batch review, undo) describes
what it wants as a ``ChangeSet``; ``commit`` checks versions, writes, and
records the before and after state in the audit log, all in one transaction.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from memfold.engine.context import Context
from memfold.engine.snapshot import state
from memfold.errors import ConflictError
from memfold.model import Link, LinkKind, MemoryRecord
from memfold.store.base import NewLogEntry, Savepoints


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
        for rec in change.creates:
            store.insert_memories([rec])
        for rec in change.writes:
            live = current.get(rec.id)
            if live is not None and change.undoes is None:
                # Retrievals counted since the change was planned are not content: keep them.
                rec.access_count = max(rec.access_count, live.access_count)
                rec.last_access_at = live.last_access_at or rec.last_access_at
            store.put_memory(rec)
        for mid in change.deletes:
            store.delete_memory_row(mid)
        store.remove_links([(lk.src, lk.dst, lk.kind) for lk in change.remove_links])
        store.add_links(change.add_links)
        after_records = store.get_memories(touched)
        after = {mid: after_records.get(mid) for mid in touched}
        links_after = store.links_for(link_ids)
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


def link(src: str, dst: str, kind: LinkKind, weight: float = 1.0) -> Link:
    return Link(src, dst, kind, weight)
