"""``Memory.rehydrate(id)``: a cold memory, or a summary's originals, back to the hot tier.

- a cold memory comes back hot; if a lifecycle summary had superseded it, it is active
  again (the summary stays: undo the COMPRESS log row to remove it instead);
- a summary (a memory with association links to the originals it superseded) brings
  every such original back, hot and active.

The memories brought back count as accessed at ``now`` (else the next tick would find
them fading and move them cold again). One logged change set (path "lifecycle",
action REHYDRATE), undoable; a memory that is neither cold nor a summary is refused and
nothing changes.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from memfold.engine.changes import ChangeSet, commit
from memfold.engine.context import Context
from memfold.engine.edits import require
from memfold.errors import InvalidInput
from memfold.model import JSONDict, LinkKind, MemoryRecord, Status, Tier

PATH = "lifecycle"
ACTION = "REHYDRATE"


@dataclass(slots=True)
class Rehydrated:
    ids: list[str]
    log_id: int

    def to_dict(self) -> JSONDict:
        return {"ids": list(self.ids), "log_id": self.log_id}


def rehydrate(ctx: Context, memory_id: str, now: datetime | None = None) -> Rehydrated:
    """Bring ``memory_id`` (cold) or its originals (a summary) back hot; see the module doc."""
    when = now or ctx.clock()
    with ctx.store.transaction():
        record = require(ctx, memory_id)
        targets = _originals(ctx, record) or ([record] if record.tier is Tier.COLD else [])
        if not targets:
            raise InvalidInput(
                f"memory {memory_id} is in the hot tier and summarizes nothing: "
                "nothing to rehydrate"
            )
        writes = [_warm(ctx, m, when) for m in targets]
        log_id = commit(
            ctx,
            ChangeSet(
                path=PATH,
                action=ACTION,
                input_ids=[m.id for m in targets],
                expected={m.id: m.version for m in targets},
                writes=writes,
                reasoning=f"rehydrated on request ({memory_id})",
                judge="user",
            ),
        )
        # Brought back = accessed now (access statistics are not content: not logged).
        ctx.store.add_accesses([(m.id, 0, when) for m in targets])
    return Rehydrated([m.id for m in targets], log_id)


def _originals(ctx: Context, summary: MemoryRecord) -> list[MemoryRecord]:
    """The memories ``summary`` superseded and links to (association), not yet hot and
    active again."""
    linked = [
        lk.dst
        for lk in ctx.store.links_for([summary.id])
        if lk.src == summary.id and lk.kind is LinkKind.ASSOCIATION
    ]
    found = ctx.store.get_memories(linked)
    return [
        found[mid]
        for mid in linked
        if mid in found
        and found[mid].superseded_by == summary.id
        and (found[mid].tier is Tier.COLD or found[mid].status is Status.SUPERSEDED)
    ]


def _warm(ctx: Context, record: MemoryRecord, when: datetime) -> MemoryRecord:
    new = record.copy(tier=Tier.HOT, version=record.version + 1, updated_at=when)
    by = None if record.superseded_by is None else ctx.store.get_memory(record.superseded_by)
    if record.status is Status.SUPERSEDED and by is not None and record.id in by.consolidated_from:
        new.status, new.superseded_by = Status.ACTIVE, None
    return new
