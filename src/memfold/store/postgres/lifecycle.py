"""PostgreSQL's side of the lifecycle tick's scan (store/lifecycle_scan.py)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from memfold.model import MemoryRecord, Status
from memfold.store.lifecycle_scan import LIFECYCLE_COLUMNS, row_to_lifecycle


class LifecycleScanMixin:
    _q: Callable[..., list[tuple[Any, ...]]]

    def lifecycle_rows(self, statuses: Sequence[Status]) -> list[MemoryRecord]:
        rows = self._q(
            f"SELECT {LIFECYCLE_COLUMNS}, jsonb_array_length(consolidated_from) > 0 "
            "FROM memories WHERE status = ANY(%s) ORDER BY rowid",
            ([s.value for s in statuses],),
        )
        return [row_to_lifecycle(r) for r in rows]
