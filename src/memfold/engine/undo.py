"""Undo any logged change: restore its before state exactly, and log the undo.

An undo and every change its cascade undoes run in one transaction under the store's
writer lock: the check that nothing later built on a row and the writes that restore it
see the same state, and a cascade is undone whole or not at all. A restored memory gets
a new version (never the one in the snapshot), so a decision planned on any earlier
state meets a conflict instead of passing a stale version check.

``may_undo`` (the service's key scope) is asked about every row of the cascade before
anything is written; a row it refuses is not named to the caller.
"""

from __future__ import annotations

from collections.abc import Callable

from memfold.engine.changes import ChangeSet, commit
from memfold.engine.context import Context
from memfold.engine.erase import erased_in, refuse_if_erased
from memfold.engine.review.merge import requeue_after_undo
from memfold.engine.snapshot import link_from_snapshot, memory_from_snapshot
from memfold.errors import NotFound, UndoRefused
from memfold.model import Link, LogEntry

MayUndo = Callable[[LogEntry], bool]


def _link_key(link: Link) -> tuple[str, str, str]:
    return (link.src, link.dst, link.kind.value)


def blockers(ctx: Context, entry: LogEntry) -> list[LogEntry]:
    """Later, not-undone log rows that touched what this one produced."""
    produced = [mid for mid, snap in entry.after.get("memories", {}).items() if snap is not None]
    produced += [mid for mid, snap in entry.before.get("memories", {}).items() if snap is None]
    return ctx.store.logs_after_touching(entry.id, produced)


def undo(
    ctx: Context, log_id: int, *, cascade: bool = False, may_undo: MayUndo | None = None
) -> list[int]:
    """Undo log row ``log_id``; returns the ids of the undo log rows written.

    If later changes built on its result, refuse (naming them) unless ``cascade``, which
    undoes those first, newest first. ``may_undo``: rows the caller may undo; a cascade
    reaching any other row is refused whole, before anything is written.
    """
    with ctx.store.transaction():
        entry = _undoable(ctx, log_id)
        direct = blockers(ctx, entry)
        chain = _cascade(ctx, direct)
        refuse_if_erased(ctx, [entry, *chain])  # nothing erased may come back
        hidden = {e.id for e in chain if may_undo is not None and not may_undo(e)}
        if chain and not cascade:
            shown = [e for e in direct if e.id not in hidden]
            raise UndoRefused(_refusal(log_id, shown, len(hidden)), [e.id for e in shown])
        if hidden:
            raise UndoRefused(
                f"log entry {log_id} cannot be undone: {len(hidden)} later changes built on "
                "it lie outside this key's scope",
                [],
            )
        written = [_restore(ctx, later) for later in reversed(chain)]  # newest first
        written.append(_restore(ctx, entry))
        return written


def _undoable(ctx: Context, log_id: int) -> LogEntry:
    entry = ctx.store.get_log(log_id)
    if entry is None:
        raise NotFound(f"no log entry {log_id}")
    if entry.undone_by is not None:
        raise UndoRefused(f"log entry {log_id} was already undone by {entry.undone_by}", [])
    if entry.undoes is not None:
        raise UndoRefused(
            f"log entry {log_id} is itself an undo (of {entry.undoes}); it cannot be undone", []
        )
    return entry


def _cascade(ctx: Context, direct: list[LogEntry]) -> list[LogEntry]:
    """Every live row built on a row, directly (``direct``) or through another such row,
    oldest first."""
    found = {e.id: e for e in direct}
    frontier = list(direct)
    while frontier:
        nxt: list[LogEntry] = []
        for row in frontier:
            for later in blockers(ctx, row):
                if later.id not in found:
                    found[later.id] = later
                    nxt.append(later)
        frontier = nxt
    return sorted(found.values(), key=lambda e: e.id)


def _refusal(log_id: int, shown: list[LogEntry], hidden: int) -> str:
    parts = [f"#{e.id} {e.action}" for e in shown]
    if hidden:
        parts.append(f"{hidden} outside this key's scope")
    return (
        f"log entry {log_id} cannot be undone: later changes built on it ({', '.join(parts)}); "
        "undo those first or pass cascade=True"
    )


def _restore(ctx: Context, entry: LogEntry) -> int:
    gone = erased_in(ctx, entry)  # erased since: they stay erased
    before_mem = {k: v for k, v in entry.before.get("memories", {}).items() if k not in gone}
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
        live = current.get(mid)
        after_snap = after_mem.get(mid)
        if after_snap is not None:
            # What the row produced must still be there, as the row left it: no live later
            # row touched it (checked above, under this transaction's writer lock).
            change.expected[mid] = int(after_snap["version"]) if live is None else live.version
        if snap is None:
            if live is not None:
                change.deletes.append(mid)
            continue
        restored = memory_from_snapshot(snap)
        if live is not None:
            # Access statistics are not content; keep what retrieval has counted since.
            restored.access_count = live.access_count
            restored.last_access_at = live.last_access_at
            # A version never repeats: a decision planned on the state this undo replaces
            # (or on the one before it) must meet a conflict, not pass a stale check.
            restored.version = live.version + 1
            change.writes.append(restored)
        else:
            change.creates.append(restored)
    links_before = _links(entry.before["links"], gone)
    links_after = _links(entry.after["links"], gone)
    change.remove_links = [lk for key, lk in links_after.items() if key not in links_before]
    change.add_links = [lk for key, lk in links_before.items() if key not in links_after]

    def inside(undo_id: int) -> None:
        ctx.store.mark_log_undone(entry.id, undo_id)
        requeue_after_undo(ctx, entry, undo_id)  # a review change: its pair is decided again

    return commit(ctx, change, inside=inside)


def _links(snapshots: list[dict[str, object]], gone: set[str]) -> dict[tuple[str, str, str], Link]:
    links = (link_from_snapshot(s) for s in snapshots)
    return {_link_key(lk): lk for lk in links if lk.src not in gone and lk.dst not in gone}
