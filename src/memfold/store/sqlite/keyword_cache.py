"""FTS5-ranked keyword hits, kept while the full-text index has not changed.

FTS5's ``bm25()`` ranks every match of a query before the best are read: a query with
a word in a fifth of a 100,000-memory scope ranks ~28,000 rows (~70 ms). The on-save
update channel asks the same query again when it checks whether a pending save went
stale, while the pass's writes (statuses, versions: ``put_memory`` leaves the text
columns alone then) never touched the index.

A ranking is a function of the match expression and the index alone: the same
expression over the same index gives the same ranks in the same order. FTS5 rewrites
its structure record (row 10 of the ``_data`` table: the segments, a cookie and a
write counter) with every write to the index, so while that record reads the same
bytes, the index is the one a kept ranking was read from. Statuses are not in the
index: a ranking is kept for the scope's rows whatever their status, ``depth`` rows
beyond what was asked, and filtered again by status on each use; when too few kept
rows pass, FTS5 is asked again. A kept ranking is used only if the record and the
rows' statuses, read in one statement (one snapshot), show the same record. A ranking
is read after the record it is kept with: a write between the two leaves it kept with
an older record, never matched again. Nothing is kept or used inside a transaction
(where FTS5 may hold writes not yet in the record).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Collection, Sequence
from dataclasses import dataclass

# FTS5_STRUCTURE_ROWID: the ``_data`` row FTS5 rewrites with every change of the index.
STRUCTURE_SQL = "SELECT block FROM memories_fts_data WHERE id = 10"


@dataclass(frozen=True, slots=True)
class Ranking:
    """The scope's matches of one expression in FTS5's rank order (any status): ``rows``
    of (id, rank, status when read), the first ``len(rows)`` of them; ``complete``: all
    of them. ``structure``: the index's structure record, read before them."""

    structure: bytes
    rows: tuple[tuple[str, float, str], ...]
    complete: bool

    def best(self, statuses: Collection[str], k: int) -> list[tuple[str, float]] | None:
        """The first ``k`` kept rows with one of ``statuses``; None when fewer are kept
        and more matches lie beyond them."""
        hits = [(mid, rank) for mid, rank, status in self.rows if status in statuses][:k]
        return hits if len(hits) >= k or self.complete else None

    def now(self, statuses: dict[str, str]) -> Ranking:
        """The same ranking with each row's status in ``statuses`` (id -> status now;
        a row missing there is gone)."""
        rows = tuple((mid, rank, statuses[mid]) for mid, rank, _ in self.rows if mid in statuses)
        return Ranking(self.structure, rows, self.complete)


class RankingCache:
    """At most ``max_queries`` rankings (least recently used go first), each read
    ``depth`` rows past what its query asked. ``max_queries`` 0: nothing is kept."""

    def __init__(self, max_queries: int, depth: int) -> None:
        self.max_queries = max_queries
        self.depth = depth
        self._kept: OrderedDict[tuple[str, str], Ranking] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, scope_key: str, match: str) -> Ranking | None:
        with self._lock:
            found = self._kept.get((scope_key, match))
            if found is not None:
                self._kept.move_to_end((scope_key, match))
            return found

    def put(self, scope_key: str, match: str, ranking: Ranking) -> None:
        if self.max_queries <= 0:
            return
        with self._lock:
            self._kept[(scope_key, match)] = ranking
            self._kept.move_to_end((scope_key, match))
            while len(self._kept) > self.max_queries:
                self._kept.popitem(last=False)


def statuses_sql(count: int) -> str:
    """The structure record and the status of ``count`` ids, in one statement."""
    marks = ",".join("?" * count)
    return (
        f"SELECT 0, block, NULL FROM memories_fts_data WHERE id = 10 "
        f"UNION ALL SELECT 1, id, status FROM memories WHERE id IN ({marks})"
    )


def read_statuses(rows: Sequence[tuple[object, ...]]) -> tuple[bytes | None, dict[str, str]]:
    """(structure record, id -> status) from the rows of ``statuses_sql``."""
    structure: bytes | None = None
    statuses: dict[str, str] = {}
    for kind, first, second in rows:
        if kind == 0:
            structure = bytes(first) if isinstance(first, bytes | bytearray) else None
        else:
            statuses[str(first)] = str(second)
    return structure, statuses
