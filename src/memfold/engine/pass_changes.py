"""The rows written since a consolidation pass was prepared, read as the pass goes on.

Every later save of a pass is checked against ``store.changes_since(since)`` (see
``engine.on_save._stale``); read whole each time, that is every row the pass wrote so
far, again for each save. ``PassChanges`` reads only the rows written since its last
read and drops the rows those rewrote or deleted. The result is the same list, in the
same order: a write of a memory's indexed columns always takes a new change number,
higher than every one before it (``put_memory``, the index follows the same rule), and
tombstones are only ever added, so a row read earlier is out of date exactly when its
id comes back among the newer rows.
"""

from __future__ import annotations

from memfold.index.rows import IndexRow
from memfold.store.base import Store


class PassChanges:
    def __init__(self, store: Store, since: int) -> None:
        self._store = store
        self._since = since
        self._rows: list[IndexRow] = []

    def rows(self) -> list[IndexRow]:
        """``store.changes_since(since)`` now (oldest change first)."""
        last = self._rows[-1].seq if self._rows else self._since
        newer = list(self._store.changes_since(last))
        if newer:
            moved = {r.id for r in newer}
            kept = [r for r in self._rows if r.deleted or r.id not in moved]
            self._rows = kept + newer
        return self._rows
