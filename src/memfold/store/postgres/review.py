"""PostgreSQL tables of batch review: consolidation queue, feedback, review runs.

The same rules as store/sqlite/review.py (statuses, pair order, re-opening a dropped
pair); times are ``timestamptz`` and proposals, counts and breaker state ``jsonb``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import Any

from psycopg.types.json import Jsonb

from memfold.model import JSONDict, PairLabel, QueueItem, ReviewRun, utcnow
from memfold.store.sqlite.review import QUEUE_STATUSES

_QUEUE_COLUMNS = (
    "id, scope_key, memory_a, memory_b, similarity, version_a, version_b, label, confidence, "
    "reasoning, status, created_at, classified_at, processed_at, run_id, proposal, note"
)
_EARLIEST = datetime.fromisoformat("0001-01-01T00:00:00+00:00")


def _row_to_item(r: tuple[Any, ...]) -> QueueItem:
    return QueueItem(
        id=r[0],
        scope_key=r[1],
        memory_a=r[2],
        memory_b=r[3],
        similarity=r[4],
        version_a=r[5],
        version_b=r[6],
        label=None if r[7] is None else PairLabel(r[7]),
        confidence=r[8],
        reasoning=r[9] or "",
        status=r[10],
        created_at=r[11],
        classified_at=r[12],
        processed_at=r[13],
        run_id=r[14],
        proposal=r[15],
        note=r[16] or "",
    )


class ReviewTablesMixin:
    """Queue, feedback and run records. Every write joins an open transaction."""

    _q: Callable[..., list[tuple[Any, ...]]]
    _w: Callable[..., int]

    # queue ------------------------------------------------------------------------------
    def queue_pairs(self, scope_key: str, pairs: Iterable[tuple[str, str, float, int, int]]) -> int:
        """Queue unordered pairs (a, b, similarity, version_a, version_b); returns how many
        are new or re-opened. A pair dropped earlier (a memory changed) is re-opened with
        its current versions; any other known pair is left as it is."""
        now = utcnow()
        unique: dict[tuple[str, str], tuple[Any, ...]] = {}
        for a, b, s, va, vb in pairs:  # the first of a repeated pair wins, as row by row
            row = (a, b, float(s), va, vb) if a < b else (b, a, float(s), vb, va)
            unique.setdefault((row[0], row[1]), (scope_key, *row, now))
        rows = list(unique.values())
        changed = 0
        for start in range(0, len(rows), 500):
            chunk = rows[start : start + 500]
            values = ", ".join(["(%s, %s, %s, %s, %s, %s, %s)"] * len(chunk))
            changed += self._w(
                "WITH done AS (INSERT INTO consolidation_queue (scope_key, memory_a, memory_b, "
                f"similarity, version_a, version_b, created_at) VALUES {values} "
                "ON CONFLICT (memory_a, memory_b) DO UPDATE SET status = 'pending', "
                "similarity = excluded.similarity, version_a = excluded.version_a, "
                "version_b = excluded.version_b, created_at = excluded.created_at, "
                "label = NULL, confidence = NULL, reasoning = NULL, classified_at = NULL, "
                "processed_at = NULL, proposal = NULL, note = NULL "
                "WHERE consolidation_queue.status = 'dropped' RETURNING 1) "
                "SELECT count(*) FROM done",
                [v for row in chunk for v in row],
            )
        return changed

    def queue_items(
        self,
        *,
        statuses: Sequence[str] | None = None,
        scope_key: str | None = None,
        label: PairLabel | None = None,
        ids: Sequence[int] | None = None,
        limit: int | None = None,
    ) -> list[QueueItem]:
        clauses: list[str] = []
        params: list[Any] = []
        if statuses:
            clauses.append("status = ANY(%s)")
            params.append(list(statuses))
        if scope_key is not None:
            clauses.append("scope_key = %s")
            params.append(scope_key)
        if label is not None:
            clauses.append("label = %s")
            params.append(label.value)
        if ids is not None:
            if not ids:
                return []
            clauses.append("id = ANY(%s)")
            params.append([int(i) for i in ids])
        where = (" WHERE " + " AND ".join(clauses)) if clauses else ""
        rows = self._q(
            f"SELECT {_QUEUE_COLUMNS} FROM consolidation_queue{where} ORDER BY id LIMIT %s",
            [*params, limit],
        )
        return [_row_to_item(r) for r in rows]

    def get_queue_item(self, item_id: int) -> QueueItem | None:
        found = self.queue_items(ids=[item_id])
        return found[0] if found else None

    def queue_item_for_pair(self, memory_a: str, memory_b: str) -> QueueItem | None:
        """The queue entry of an unordered pair of memories, if it was ever queued."""
        a, b = sorted((memory_a, memory_b))
        rows = self._q(
            f"SELECT {_QUEUE_COLUMNS} FROM consolidation_queue "
            "WHERE memory_a = %s AND memory_b = %s",
            (a, b),
        )
        return _row_to_item(rows[0]) if rows else None

    def reopen_queue_item(self, item_id: int, version_a: int, version_b: int, note: str) -> None:
        """Back to ``pending`` at the memories' current versions, its decision cleared."""
        self._w(
            "UPDATE consolidation_queue SET status = 'pending', version_a = %s, "
            "version_b = %s, label = NULL, confidence = NULL, reasoning = NULL, "
            "classified_at = NULL, processed_at = NULL, proposal = NULL, note = %s "
            "WHERE id = %s",
            (version_a, version_b, note, item_id),
        )

    def classify_queue_item(
        self,
        item_id: int,
        label: PairLabel,
        confidence: float,
        reasoning: str,
        run_id: int | None,
    ) -> None:
        self._w(
            "UPDATE consolidation_queue SET label = %s, confidence = %s, reasoning = %s, "
            "status = 'classified', classified_at = %s, run_id = %s WHERE id = %s",
            (label.value, float(confidence), reasoning, utcnow(), run_id, item_id),
        )

    def set_queue_status(
        self,
        item_id: int,
        status: str,
        *,
        note: str | None = None,
        proposal: JSONDict | None = None,
        run_id: int | None = None,
    ) -> None:
        """Move an item to ``status``; note, proposal and run id change only when given."""
        if status not in QUEUE_STATUSES:
            raise ValueError(f"unknown queue status {status!r}")
        done = None if status in ("pending", "classified") else utcnow()
        self._w(
            "UPDATE consolidation_queue SET status = %s, processed_at = %s, "
            "note = coalesce(%s, note), proposal = coalesce(%s, proposal), "
            "run_id = coalesce(%s, run_id) WHERE id = %s",
            (status, done, note, None if proposal is None else Jsonb(proposal), run_id, item_id),
        )

    def queue_counts(self) -> JSONDict:
        """Counts by status, and by label among labelled items."""
        by_status = self._q("SELECT status, count(*) FROM consolidation_queue GROUP BY 1")
        by_label = self._q(
            "SELECT label, count(*) FROM consolidation_queue WHERE label IS NOT NULL GROUP BY 1"
        )
        return {
            "by_status": {str(k): int(v) for k, v in by_status},
            "by_label": {str(k): int(v) for k, v in by_label},
        }

    def memories_queued_since(self, scope_key: str, since: datetime) -> tuple[int, int]:
        """Distinct memories in pairs of this scope queued at or after ``since``, and how
        many of those are no longer active (merged away since)."""
        rows = self._q(
            "SELECT count(*), count(*) FILTER (WHERE coalesce(m.status, '') <> 'active') FROM "
            "(SELECT memory_a AS id FROM consolidation_queue WHERE scope_key = %(s)s AND "
            "created_at >= %(t)s UNION SELECT memory_b FROM consolidation_queue "
            "WHERE scope_key = %(s)s AND created_at >= %(t)s) q "
            "LEFT JOIN memories m ON m.id = q.id",
            {"s": scope_key, "t": since},
        )
        return int(rows[0][0]), int(rows[0][1])

    def queue_summary(self, since: datetime) -> JSONDict:
        """What happened to the queue since a time (the report's counters)."""
        queued = self._q(
            "SELECT count(*) FROM consolidation_queue WHERE created_at >= %s", (since,)
        )
        labels = self._q(
            "SELECT label, count(*) FROM consolidation_queue WHERE classified_at >= %s "
            "AND label IS NOT NULL GROUP BY 1",
            (since,),
        )
        ended = self._q(
            "SELECT status, count(*) FROM consolidation_queue WHERE processed_at >= %s GROUP BY 1",
            (since,),
        )
        return {
            "queued": int(queued[0][0]),
            "classified": {str(k): int(v) for k, v in labels},
            "ended": {str(k): int(v) for k, v in ended},
        }

    def active_versions(self, scope_key: str) -> dict[str, int]:
        rows = self._q(
            "SELECT id, version FROM memories WHERE scope_key = %s AND status = 'active'",
            (scope_key,),
        )
        return {str(r[0]): int(r[1]) for r in rows}

    def count_review_changes(self, since: datetime, actions: Sequence[str]) -> int:
        """Applied batch-review changes of these actions logged since a time."""
        rows = self._q(
            "SELECT count(*) FROM consolidation_log WHERE path = 'review' AND time >= %s "
            "AND undoes IS NULL AND action = ANY(%s)",
            (since, list(actions)),
        )
        return int(rows[0][0])

    # feedback ---------------------------------------------------------------------------
    def add_feedback(self, memory_id: str, kind: str, context: str | None) -> int:
        return self._w(
            "INSERT INTO feedback (memory_id, kind, context, time) VALUES (%s, %s, %s, %s) "
            "RETURNING id",
            (memory_id, kind, context, utcnow()),
        )

    def feedback_total(self, since: datetime | None = None) -> int:
        t = _EARLIEST if since is None else since
        return int(self._q("SELECT count(*) FROM feedback WHERE time >= %s", (t,))[0][0])

    def feedback_counts(self, memory_ids: Iterable[str] | None = None) -> dict[str, dict[str, int]]:
        """memory id -> kind -> count (every memory with feedback when ids is None)."""
        if memory_ids is None:
            rows = self._q("SELECT memory_id, kind, count(*) FROM feedback GROUP BY 1, 2")
        else:
            wanted = list(dict.fromkeys(memory_ids))
            if not wanted:
                return {}
            rows = self._q(
                "SELECT memory_id, kind, count(*) FROM feedback WHERE memory_id = ANY(%s) "
                "GROUP BY 1, 2",
                (wanted,),
            )
        out: dict[str, dict[str, int]] = {}
        for memory_id, kind, count in rows:
            out.setdefault(str(memory_id), {})[str(kind)] = int(count)
        return out

    def feedback_rules_applied(self, memory_id: str) -> set[str]:
        rows = self._q("SELECT rule FROM feedback_applied WHERE memory_id = %s", (memory_id,))
        return {str(r[0]) for r in rows}

    def mark_feedback_applied(self, memory_id: str, rule: str, log_id: int | None) -> None:
        self._w(
            "INSERT INTO feedback_applied (memory_id, rule, log_id, time) "
            "VALUES (%s, %s, %s, %s) ON CONFLICT DO NOTHING",
            (memory_id, rule, log_id, utcnow()),
        )

    def feedback_flagged(self, rule: str) -> list[str]:
        rows = self._q(
            "SELECT memory_id FROM feedback_applied WHERE rule = %s ORDER BY time", (rule,)
        )
        return [str(r[0]) for r in rows]

    # runs -------------------------------------------------------------------------------
    def start_review_run(self, scope_key: str | None) -> int:
        return self._w(
            "INSERT INTO review_runs (scope_key, started_at) VALUES (%s, %s) RETURNING id",
            (scope_key, utcnow()),
        )

    def finish_review_run(self, run: ReviewRun) -> None:
        self._w(
            "UPDATE review_runs SET finished_at = %s, status = %s, p90 = %s, counts = %s, "
            "breaker = %s, llm_calls = %s, prompt_tokens = %s, completion_tokens = %s "
            "WHERE id = %s",
            (
                utcnow(),
                run.status,
                run.p90,
                Jsonb(run.counts),
                Jsonb(run.breaker),
                run.llm_calls,
                run.prompt_tokens,
                run.completion_tokens,
                run.id,
            ),
        )

    def list_review_runs(self, since: datetime | None = None) -> list[ReviewRun]:
        rows = self._q(
            "SELECT id, scope_key, started_at, finished_at, status, p90, counts, breaker, "
            "llm_calls, prompt_tokens, completion_tokens FROM review_runs "
            "WHERE started_at >= %s ORDER BY id",
            (_EARLIEST if since is None else since,),
        )
        return [
            ReviewRun(
                id=r[0],
                scope_key=r[1],
                started_at=r[2],
                finished_at=r[3],
                status=r[4],
                p90=r[5],
                counts=r[6],
                breaker=r[7],
                llm_calls=r[8],
                prompt_tokens=r[9],
                completion_tokens=r[10],
            )
            for r in rows
        ]
