"""The one shape of a memory in results, the same in the Python API (``hit.to_dict()``),
REST, MCP and the tool schemas. Pure.

A hit is ``{"id", "text", "score", "created_at"}``: what an agent acts on (which
memory, what it says, how sure the match is, how old it is). Any other field of the
memory (``MemoryRecord.to_dict()``: ``category``, ``metadata``, ``status``...) and of
the match (``vector_score``, ``keyword_rank``) is added on request by name; ``"all"``
gives every one. A row of a listing is the same without the score.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from memfold.errors import InvalidInput
from memfold.model.records import JSONDict, LogEntry, MemoryRecord, Scope

if TYPE_CHECKING:
    from memfold.model.work import SearchHit

HIT_FIELDS = ("id", "text", "score", "created_at")
ROW_FIELDS = ("id", "text", "created_at")
MATCH_FIELDS = ("score", "vector_score", "keyword_rank")
# Every field of a memory (MemoryRecord.to_dict's keys, in its order).
RECORD_FIELDS = tuple(MemoryRecord(id="", scope=Scope(), text="").to_dict())
ALL = "all"
# A score's digits beyond these say nothing an agent can act on.
SCORE_DIGITS = 4

Fields = tuple[str, ...]


def fields_of(value: object, *, match: bool) -> Fields | None:
    """The fields a caller asked for beside the defaults: None (none), ``"all"``, a list
    of names or a comma-separated string of them; an unknown name is InvalidInput
    listing the known ones."""
    if value is None:
        return None
    if isinstance(value, str):
        names = [n.strip() for n in value.split(",") if n.strip()]
    elif isinstance(value, list | tuple):
        names = list(value)
    else:
        raise InvalidInput(f"fields must be a list of names, got {type(value).__name__}")
    known = (*RECORD_FIELDS, *(MATCH_FIELDS if match else ()))
    if names == [ALL]:
        return known
    wrong = [n for n in names if not isinstance(n, str) or n not in known]
    if wrong:
        raise InvalidInput(f"unknown fields {wrong!r}; known: {', '.join(known)}, or 'all'")
    defaults = HIT_FIELDS if match else ROW_FIELDS
    return tuple(dict.fromkeys((*defaults, *names)))  # each name once


def row(record: MemoryRecord, fields: Fields | None = None) -> JSONDict:
    """One memory of a listing: ``ROW_FIELDS`` or those asked for."""
    data = record.to_dict()
    return {name: data[name] for name in (fields or ROW_FIELDS) if name in data}


def hit(found: SearchHit, fields: Fields | None = None) -> JSONDict:
    """One search hit: ``HIT_FIELDS`` or those asked for."""
    data = found.memory.to_dict()
    data["score"] = round(found.score, SCORE_DIGITS)
    data["vector_score"] = (
        None if found.vector_score is None else round(found.vector_score, SCORE_DIGITS)
    )
    data["keyword_rank"] = found.keyword_rank
    return {name: data[name] for name in (fields or HIT_FIELDS)}


def rows(records: Iterable[MemoryRecord], fields: Fields | None = None) -> list[JSONDict]:
    return [row(r, fields) for r in records]


def change(
    record: MemoryRecord,
    *,
    log_id: int | None,
    action: str | None = None,
    warnings: Iterable[str] = (),
) -> JSONDict:
    """What a write did to one memory: its id, text and status, the log id of the
    change (for undo), the consolidation's action when there was one, any warnings."""
    out: JSONDict = {"id": record.id, "text": record.text, "status": record.status.value}
    if action is not None:
        out["action"] = action
    out["log_id"] = log_id
    shown = list(warnings)
    if shown:
        out["warnings"] = shown
    return out


def snapshot(state: Mapping[str, Any], memory_id: str) -> Mapping[str, Any] | None:
    """One memory's state in a log row's ``before`` or ``after``, if it is there."""
    memories = state.get("memories") if isinstance(state, Mapping) else None
    if not isinstance(memories, Mapping):
        return None
    found = memories.get(memory_id)
    return found if isinstance(found, Mapping) else None


def log_change(entry: LogEntry, memory_id: str) -> JSONDict:
    """One log row as it touched one memory: its text before and after (None where the
    memory was not there), the action, and whether it was undone."""
    before, after = snapshot(entry.before, memory_id), snapshot(entry.after, memory_id)
    return {
        "log_id": entry.id,
        "time": entry.time.isoformat(),
        "action": entry.action,
        "before": None if before is None else before.get("text"),
        "after": None if after is None else after.get("text"),
        "undone": entry.undone_by is not None,
    }


def undone(entry: LogEntry, log_ids: Iterable[int], now: Mapping[str, MemoryRecord]) -> JSONDict:
    """What an undo did: the change undone, the undo's own log rows, and the memories it
    touched as they are now (``now``: by id), each a row with its status."""
    touched = sorted({*entry.input_ids, *entry.output_ids})
    shown = fields_of(["status"], match=False)
    return {
        "undone": entry.id,
        "log_ids": list(log_ids),
        "results": rows([now[i] for i in touched if i in now], shown),
    }
