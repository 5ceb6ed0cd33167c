"""The lifecycle tick's scan of active memories: only the columns it decides on.

Reading whole records (JSON columns decoded, every field parsed) cost the tick most of
its time at 100k memories; ``Store.lifecycle_rows`` reads these columns instead and
``row_to_lifecycle`` makes a record of them. Such a record has no text, sources,
metadata or vector, and its ``consolidated_from`` is only non-empty or empty (a marker):
it is for deciding, never for writing back (engine/lifecycle/tick.py reads a memory
whole before it changes it).
"""

from __future__ import annotations

from typing import Any

from memfold.model import Area, Category, MemoryRecord, Scope, Status, Tier, parse_time

# The SELECT list of both backends but the last column, a boolean "consolidated_from is
# not empty", which each backend writes in its own SQL.
LIFECYCLE_COLUMNS = (
    "id, user_id, agent_id, session_id, area, category, importance, stability, "
    "access_count, last_access_at, created_at, status, tier, superseded_by, expires_at, "
    "version"
)
SUMMARY_MARKER = "<summary>"

_AREAS = {a.value: a for a in Area}
_CATEGORIES = {c.value: c for c in Category}
_STATUSES = {s.value: s for s in Status}
_TIERS = {t.value: t for t in Tier}


def row_to_lifecycle(row: tuple[Any, ...]) -> MemoryRecord:
    created = parse_time(row[10])
    assert created is not None  # NOT NULL in both schemas
    return MemoryRecord(
        id=row[0],
        scope=Scope(row[1], row[2], row[3]),
        text="",
        area=_AREAS[row[4]],
        category=_CATEGORIES[row[5]],
        importance=float(row[6]),
        stability=float(row[7]),
        access_count=int(row[8]),
        last_access_at=parse_time(row[9]),
        created_at=created,
        updated_at=created,
        status=_STATUSES[row[11]],
        tier=_TIERS[row[12]],
        superseded_by=row[13],
        expires_at=parse_time(row[14]),
        version=int(row[15]),
        consolidated_from=[SUMMARY_MARKER] if row[16] else [],
    )
