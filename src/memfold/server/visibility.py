"""What a key may see beyond single memories: log rows and review queue items.

Both hold memory ids, not a scope. A row is visible when every memory it names lies
within the key's scope (auth.may_see): read from the store, or, for a memory erased
since, from the row's own snapshot; a row naming no memory it can place is hidden.
An admin key without a user sees everything.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from memfold.errors import NotFound
from memfold.memory import Memory
from memfold.model import ApiKey, JSONDict, LogEntry, MemoryRecord, QueueItem, Scope
from memfold.server.auth import may_see


def _sees_all(key: ApiKey) -> bool:
    return key.user_id is None


def _snapshot_scopes(entry: LogEntry) -> dict[str, Scope]:
    found: dict[str, Scope] = {}
    for state in (entry.before, entry.after):
        memories = state.get("memories") if isinstance(state, dict) else None
        if not isinstance(memories, dict):
            continue
        for memory_id, snap in memories.items():
            if isinstance(snap, dict) and "user_id" in snap:
                ids = (snap.get("user_id"), snap.get("agent_id"), snap.get("session_id"))
                found.setdefault(str(memory_id), Scope(*ids))
    return found


def _log_ids(entry: LogEntry) -> set[str]:
    ids = {*entry.input_ids, *entry.output_ids}
    for state in (entry.before, entry.after):
        memories = state.get("memories") if isinstance(state, dict) else None
        if isinstance(memories, dict):
            ids |= {str(m) for m in memories}
    return ids


def visible_memory_ids(key: ApiKey, memory: Memory, ids: Iterable[str]) -> set[str]:
    """The ids among ``ids`` whose memories exist and lie in the key's scope."""
    wanted = set(ids)
    if not wanted:
        return set()
    stored = memory.store.get_memories(wanted)
    return {i for i, record in stored.items() if _sees_all(key) or may_see(key, record.scope)}


def log_visible(
    key: ApiKey,
    memory: Memory,
    entry: LogEntry,
    stored: Mapping[str, MemoryRecord] | None = None,
) -> bool:
    """``stored``: the row's memories read beforehand (one query for many rows)."""
    if _sees_all(key):
        return True
    ids = _log_ids(entry)
    if not ids:
        return False
    if stored is None:
        stored = memory.store.get_memories(ids)
    snapshots = _snapshot_scopes(entry)
    for memory_id in ids:
        record = stored.get(memory_id)
        scope = record.scope if record is not None else snapshots.get(memory_id)
        if scope is None or not may_see(key, scope):
            return False
    return True


def visible_log(
    key: ApiKey, memory: Memory, *, limit: int, memory_id: str | None = None
) -> list[LogEntry]:
    """The newest ``limit`` log rows the key may see, newest first. For a scoped key the
    log is read in growing batches until enough rows passed or the log ends."""
    store = memory.store
    if _sees_all(key) or memory_id is not None:
        # One memory's rows all lie in its scope (checked by the caller).
        rows = store.list_log(limit=limit, memory_id=memory_id)
        return [r for r in rows if log_visible(key, memory, r)]
    batch = max(limit * 4, 200)
    while True:
        rows = store.list_log(limit=batch)
        stored = store.get_memories({i for r in rows for i in _log_ids(r)})
        shown = [r for r in rows if log_visible(key, memory, r, stored)]
        if len(shown) >= limit or len(rows) < batch:
            return shown[:limit]
        batch *= 4


def owned_log(key: ApiKey, memory: Memory, log_id: int) -> LogEntry:
    """The log row when the key may see it; else NotFound, as for an unknown id."""
    entry = memory.store.get_log(log_id)
    if entry is None or not log_visible(key, memory, entry):
        raise NotFound(f"no log entry {log_id}")
    return entry


def item_visible(key: ApiKey, memory: Memory, item: QueueItem | JSONDict) -> bool:
    """A review item: both its memories within the key's scope."""
    if _sees_all(key):
        return True
    if isinstance(item, QueueItem):
        pair = [item.memory_a, item.memory_b]
    else:
        pair = [str(item.get("memory_a")), str(item.get("memory_b"))]
    return visible_memory_ids(key, memory, pair) == set(pair)


def owned_item(key: ApiKey, memory: Memory, item_id: int) -> QueueItem:
    item = memory.store.get_queue_item(item_id)
    if item is None or not item_visible(key, memory, item):
        raise NotFound(f"no review item {item_id}")
    return item
