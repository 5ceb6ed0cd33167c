"""Undo any logged change: restore its before state exactly, and log the undo."""

from __future__ import annotations

from memfold.engine.changes import ChangeSet, commit
from memfold.engine.context import Context
from memfold.engine.erase import refuse_if_erased
from memfold.engine.review.merge import requeue_after_undo
from memfold.engine.snapshot import link_from_snapshot, memory_from_snapshot
from memfold.errors import NotFound, UndoRefused
from memfold.model import Link, LogEntry


def _link_key(link: Link) -> tuple[str, str, str]:
    return (link.src, link.dst, link.kind.value)


def blockers(ctx: Context, entry: LogEntry) -> list[LogEntry]:
    """Later, not-undone log rows that touched what this one produced."""
    produced = [mid for mid, snap in entry.after.get("memories", {}).items() if snap is not None]
    produced += [mid for mid, snap in entry.before.get("memories", {}).items() if snap is None]
    return ctx.store.logs_after_touching(entry.id, produced)


def undo(ctx: Context, log_id: int, *, cascade: bool = False) -> list[int]:
    """Undo log row ``log_id``; returns the ids of the undo log rows written.

    If later changes built on its result, refuse (naming them) unless
    ``cascade``, which undoes those first, newest first.
    """
    entry = ctx.store.get_log(log_id)
    if entry is None:
        raise NotFound(f"no log entry {log_id}")
    if entry.undone_by is not None:
        raise UndoRefused(f"log entry {log_id} was already undone by {entry.undone_by}", [])
    if entry.undoes is not None:
        raise UndoRefused(
            f"log entry {log_id} is itself an undo (of {entry.undoes}); it cannot be undone", []
        )
    later = blockers(ctx, entry)
    refuse_if_erased(ctx, [entry, *later])  # nothing erased may come back
    written: list[int] = []
    if later:
        if not cascade:
            names = ", ".join(f"#{e.id} {e.action}" for e in later)
            raise UndoRefused(
                f"log entry {log_id} cannot be undone: later changes built on it ({names}); "
                "undo those first or pass cascade=True",
                [e.id for e in later],
            )
        for blocker in reversed(later):
            refreshed = ctx.store.get_log(blocker.id)
            # A cascade further up may already have undone this one.
            if refreshed is not None and refreshed.undone_by is None:
                written += undo(ctx, blocker.id, cascade=True)
    written.append(_restore(ctx, entry))
    return written


def _restore(ctx: Context, entry: LogEntry) -> int:
    before_mem = entry.before.get("memories", {})
    after_mem = entry.after.get("memories", {})
    change = ChangeSet(
        path="undo",
        action=f"UNDO_{entry.action}",
        input_ids=list(before_mem),
        reasoning=f"undo of log entry {entry.id}",
        judge="user",
        undoes=entry.id,
    )
    current = ctx.store.get_memories(before_mem)
    for mid, snap in before_mem.items():
        after_snap = after_mem.get(mid)
        if after_snap is not None:
            change.expected[mid] = int(after_snap["version"])
        if snap is None:
            if mid in current:
                change.deletes.append(mid)
            continue
        restored = memory_from_snapshot(snap)
        live = current.get(mid)
        if live is not None:
            # Access statistics are not content; keep what retrieval has counted since.
            restored.access_count = live.access_count
            restored.last_access_at = live.last_access_at
            change.writes.append(restored)
        else:
            change.creates.append(restored)
    links_before = {_link_key(lk): lk for lk in map(link_from_snapshot, entry.before["links"])}
    links_after = {_link_key(lk): lk for lk in map(link_from_snapshot, entry.after["links"])}
    change.remove_links = [lk for key, lk in links_after.items() if key not in links_before]
    change.add_links = [lk for key, lk in links_before.items() if key not in links_after]

    def inside(undo_id: int) -> None:
        ctx.store.mark_log_undone(entry.id, undo_id)
        requeue_after_undo(ctx, entry, undo_id)  # a review change: its pair is decided again

    return commit(ctx, change, inside=inside)
