"""memfold's records in mem0's shapes: a memory item, a history row, a message. Pure.

mem0 (2.x) answers every read with ``{"id", "memory", "hash", "metadata", "score",
"created_at", "updated_at", "user_id", "agent_id", "run_id"}`` items; memfold's
session_id is mem0's run_id. A memory's history in mem0 is one row per event (ADD,
UPDATE, DELETE) with the text before and after; memfold's log rows are read into that
shape here, the row of the memory's creation first.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from typing import Any

from memfold.model import JSONDict, LogEntry, MemoryRecord, Status, views

#: mem0's answers to the calls that return a message rather than data.
UPDATED = {"message": "Memory updated successfully!"}
DELETED = {"message": "Memory deleted successfully!"}
ALL_DELETED = {"message": "Memories deleted successfully!"}


def text_hash(text: str) -> str:
    """mem0's ``hash`` of a memory: the MD5 of its text (an identity, not a secret)."""
    return hashlib.md5(text.encode("utf-8"), usedforsecurity=False).hexdigest()


def item(record: MemoryRecord, score: float | None = None) -> JSONDict:
    """One memory as mem0 returns it; ``score`` on search hits only."""
    out: JSONDict = {
        "id": record.id,
        "memory": record.text,
        "hash": text_hash(record.text),
        "metadata": dict(record.metadata) or None,
        "created_at": record.created_at.isoformat(),
        "updated_at": record.updated_at.isoformat(),
    }
    if score is not None:
        out["score"] = score
    scope = record.scope
    for name, value in (
        ("user_id", scope.user_id),
        ("agent_id", scope.agent_id),
        ("run_id", scope.session_id),
    ):
        if value is not None:
            out[name] = value
    if record.expires_at is not None:
        out["expiration_date"] = record.expires_at.date().isoformat()
    return out


def served(record: MemoryRecord, *, show_expired: bool = False) -> bool:
    """Whether mem0 would still return this memory: an archived (deleted) or superseded
    one is gone for mem0 (memfold keeps it for undo); an expired one only on request."""
    if record.status is Status.ACTIVE:
        return True
    return show_expired and record.status is Status.EXPIRED


def history(record: MemoryRecord, entries: Iterable[LogEntry]) -> list[JSONDict]:
    """mem0's history rows for ``record`` from its log rows (oldest first): ADD for its
    creation (and a restore by undo), UPDATE for a new text, DELETE when it stopped being
    served (deleted, merged away, superseded, expired). Rows that changed neither its
    text nor whether it is served (an importance change, a decay) are left out."""
    rows: list[JSONDict] = []
    for entry in entries:
        before = views.snapshot(entry.before, record.id)
        after = views.snapshot(entry.after, record.id)
        event = _event(before, after)
        if event is None:
            continue
        if not rows and before is not None:  # its creation was not a logged decision
            rows.append(_row(record, f"{record.id}:0", None, before, "ADD", record.created_at))
        rows.append(_row(record, str(entry.id), before, after, event, entry.time))
    if not rows:  # never changed since it was saved
        now = {"text": record.text}
        rows.append(_row(record, f"{record.id}:0", None, now, "ADD", record.created_at))
    return rows


def _live(snap: Mapping[str, Any] | None) -> bool:
    return snap is not None and snap.get("status", Status.ACTIVE.value) == Status.ACTIVE.value


def _event(before: Mapping[str, Any] | None, after: Mapping[str, Any] | None) -> str | None:
    if after is None:
        return None
    if before is None or (not _live(before) and _live(after)):
        return "ADD"
    if _live(before) and not _live(after):
        return "DELETE"
    if before.get("text") != after.get("text"):
        return "UPDATE"
    return None


def _row(
    record: MemoryRecord,
    row_id: str,
    before: Mapping[str, Any] | None,
    after: Mapping[str, Any] | None,
    event: str,
    when: Any,
) -> JSONDict:
    stamp = when.isoformat() if hasattr(when, "isoformat") else str(when)
    return {
        "id": row_id,
        "memory_id": record.id,
        "old_memory": None if before is None else before.get("text"),
        "new_memory": None if after is None else after.get("text"),
        "event": event,
        "created_at": stamp,
        "updated_at": stamp,
        "is_deleted": event == "DELETE",
        "actor_id": None,
        "role": None,
    }
