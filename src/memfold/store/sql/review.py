"""The tables of batch review, for both backends: consolidation queue, feedback, review
runs. Every write joins an open transaction."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from memfold.model import JSONDict, PairLabel, QueueItem, ReviewRun, parse_time, utcnow
from memfold.store.sql.tables import SQLTables

# Queue statuses. pending: waiting for a label; classified: labelled, waiting for the
# gate; processed: applied (merged, superseded, linked); review: a contradiction, linked
# and listed for a person; held: a merge the breaker stopped (proposal kept); rejected:
# a held or review item a person refused; dropped: a memory changed or left since queuing.
QUEUE_STATUSES = ("pending", "classified", "processed", "review", "held", "rejected", "dropped")

_QUEUE_COLUMNS = (
    "id, scope_key, memory_a, memory_b, similarity, version_a, version_b, label, confidence, "
    "reasoning, status, created_at, classified_at, processed_at, run_id, proposal, note"
)
# One pair, new or re-opened: a pair dropped earlier (a memory changed) comes back with
# its current versions; any other known pair is left as it is (its row count is 0).
_QUEUE_PAIR = (
    "INSERT INTO consolidation_queue (scope_key, memory_a, memory_b, similarity, "
    "version_a, version_b, created_at) VALUES (?, ?, ?, ?, ?, ?, ?) "
    "ON CONFLICT (memory_a, memory_b) DO UPDATE SET status = 'pending', "
    "similarity = excluded.similarity, version_a = excluded.version_a, "
    "version_b = excluded.version_b, created_at = excluded.created_at, label = NULL, "
    "confidence = NULL, reasoning = NULL, classified_at = NULL, processed_at = NULL, "
    "proposal = NULL, note = NULL "
    "WHERE consolidation_queue.status = 'dropped'"
)
_RUN_COLUMNS = (
    "id, scope_key, started_at, finished_at, status, p90, counts, breaker, llm_calls, "
    "prompt_tokens, completion_tokens"
)


class ReviewTables(SQLTables):
    """Queue, feedback and run records (see the module docstring)."""

    def _queue_item(self, r: tuple[Any, ...]) -> QueueItem:
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
            created_at=parse_time(r[11]) or utcnow(),
            classified_at=parse_time(r[12]),
            processed_at=parse_time(r[13]),
            run_id=r[14],
            proposal=self._dialect.from_json(r[15]),
            note=r[16] or "",
        )

    # queue ------------------------------------------------------------------------------
    def queue_pairs(self, scope_key: str, pairs: Iterable[tuple[str, str, float, int, int]]) -> int:
        """Queue unordered pairs (a, b, similarity, version_a, version_b); returns how many
        are new or re-opened. A pair dropped earlier (a memory changed) is re-opened with
        its current versions; any other known pair is left as it is."""
        now = self._dialect.time(utcnow())
        rows = [
            (scope_key, *((a, b, float(s), va, vb) if a < b else (b, a, float(s), vb, va)), now)
            for a, b, s, va, vb in pairs
        ]
        # Row by row: a pair given twice is taken once, at its first values.
        return self._write_many(_QUEUE_PAIR, rows)

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
            clause, values = self._dialect.any_of("status", list(statuses))
            clauses.append(clause)
            params.extend(values)
        if scope_key is not None:
            clauses.append("scope_key = ?")
            params.append(scope_key)
        if label is not None:
            clauses.append("label = ?")
            params.append(label.value)
        if ids is not None:
            if not ids:
                return []
            clause, values = self._dialect.any_of("id", [int(i) for i in ids])
            clauses.append(clause)
            params.extend(values)
        where = (" WHERE " + " AND ".join(clauses)) if clauses else ""
        rows = self._rows(
            f"SELECT {_QUEUE_COLUMNS} FROM consolidation_queue{where} ORDER BY id LIMIT ?",
            [*params, self._dialect.no_limit if limit is None else limit],
        )
        return [self._queue_item(r) for r in rows]

    def get_queue_item(self, item_id: int) -> QueueItem | None:
        found = self.queue_items(ids=[item_id])
        return found[0] if found else None

    def queue_item_for_pair(self, memory_a: str, memory_b: str) -> QueueItem | None:
        """The queue entry of an unordered pair of memories, if it was ever queued."""
        a, b = sorted((memory_a, memory_b))
        rows = self._rows(
            f"SELECT {_QUEUE_COLUMNS} FROM consolidation_queue WHERE memory_a = ? AND memory_b = ?",
            (a, b),
        )
        return self._queue_item(rows[0]) if rows else None

    def reopen_queue_item(self, item_id: int, version_a: int, version_b: int, note: str) -> None:
        """Back to ``pending`` at the memories' current versions, its decision cleared, so
        the next run classifies and decides the pair again."""
        self._write(
            "UPDATE consolidation_queue SET status = 'pending', version_a = ?, version_b = ?, "
            "label = NULL, confidence = NULL, reasoning = NULL, classified_at = NULL, "
            "processed_at = NULL, proposal = NULL, note = ? WHERE id = ?",
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
        self._write(
            "UPDATE consolidation_queue SET label = ?, confidence = ?, reasoning = ?, "
            "status = 'classified', classified_at = ?, run_id = ? WHERE id = ?",
            (
                label.value,
                float(confidence),
                reasoning,
                self._dialect.time(utcnow()),
                run_id,
                item_id,
            ),
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
        self._write(
            "UPDATE consolidation_queue SET status = ?, processed_at = ?, "
            "note = coalesce(?, note), proposal = coalesce(?, proposal), "
            "run_id = coalesce(?, run_id) WHERE id = ?",
            (
                status,
                self._dialect.time(done),
                note,
                None if proposal is None else self._dialect.json(proposal),
                run_id,
                item_id,
            ),
        )

    def queue_counts(self) -> JSONDict:
        """Counts by status, and by label among labelled items."""
        by_status = self._rows("SELECT status, count(*) FROM consolidation_queue GROUP BY 1")
        by_label = self._rows(
            "SELECT label, count(*) FROM consolidation_queue WHERE label IS NOT NULL GROUP BY 1"
        )
        return {
            "by_status": {str(k): int(v) for k, v in by_status},
            "by_label": {str(k): int(v) for k, v in by_label},
        }

    def memories_queued_since(self, scope_key: str, since: datetime) -> tuple[int, int]:
        """Distinct memories in pairs of this scope queued at or after ``since``, and how
        many of those are no longer active (merged away since)."""
        t = self._dialect.time(since)
        rows = self._rows(
            "SELECT count(*), coalesce(sum(CASE WHEN coalesce(m.status, '') <> 'active' "
            "THEN 1 ELSE 0 END), 0) FROM "
            "(SELECT memory_a AS id FROM consolidation_queue WHERE scope_key = ? AND "
            "created_at >= ? UNION SELECT memory_b FROM consolidation_queue WHERE scope_key = ? "
            "AND created_at >= ?) q LEFT JOIN memories m ON m.id = q.id",
            (scope_key, t, scope_key, t),
        )
        return int(rows[0][0]), int(rows[0][1])

    def queue_summary(self, since: datetime) -> JSONDict:
        """What happened to the queue since a time (the report's counters)."""
        t = self._dialect.time(since)
        queued = self._rows("SELECT count(*) FROM consolidation_queue WHERE created_at >= ?", (t,))
        labels = self._rows(
            "SELECT label, count(*) FROM consolidation_queue WHERE classified_at >= ? "
            "AND label IS NOT NULL GROUP BY 1",
            (t,),
        )
        ended = self._rows(
            "SELECT status, count(*) FROM consolidation_queue WHERE processed_at >= ? GROUP BY 1",
            (t,),
        )
        return {
            "queued": int(queued[0][0]),
            "classified": {str(k): int(v) for k, v in labels},
            "ended": {str(k): int(v) for k, v in ended},
        }

    def active_versions(self, scope_key: str) -> dict[str, int]:
        rows = self._rows(
            "SELECT id, version FROM memories WHERE scope_key = ? AND status = 'active'",
            (scope_key,),
        )
        return {str(r[0]): int(r[1]) for r in rows}

    def count_review_changes(self, since: datetime, actions: Sequence[str]) -> int:
        """Applied batch-review changes of these actions logged since a time."""
        if not actions:
            return 0
        clause, values = self._dialect.any_of("action", list(actions))
        rows = self._rows(
            "SELECT count(*) FROM consolidation_log WHERE path = 'review' AND time >= ? "
            f"AND undoes IS NULL AND {clause}",
            [self._dialect.time(since), *values],
        )
        return int(rows[0][0])

    # feedback ---------------------------------------------------------------------------
    def add_feedback(self, memory_id: str, kind: str, context: str | None) -> int:
        return self._insert(
            "INSERT INTO feedback (memory_id, kind, context, time) VALUES (?, ?, ?, ?)",
            (memory_id, kind, context, self._dialect.time(utcnow())),
        )

    def feedback_total(self, since: datetime | None = None) -> int:
        t = self._dialect.earliest if since is None else self._dialect.time(since)
        return int(self._rows("SELECT count(*) FROM feedback WHERE time >= ?", (t,))[0][0])

    def feedback_counts(self, memory_ids: Iterable[str] | None = None) -> dict[str, dict[str, int]]:
        """memory id -> kind -> count (every memory with feedback when ids is None)."""
        if memory_ids is None:
            rows = self._rows("SELECT memory_id, kind, count(*) FROM feedback GROUP BY 1, 2")
        else:
            wanted = list(dict.fromkeys(memory_ids))
            if not wanted:
                return {}
            clause, values = self._dialect.any_of("memory_id", wanted)
            rows = self._rows(
                f"SELECT memory_id, kind, count(*) FROM feedback WHERE {clause} GROUP BY 1, 2",
                values,
            )
        out: dict[str, dict[str, int]] = {}
        for memory_id, kind, count in rows:
            out.setdefault(str(memory_id), {})[str(kind)] = int(count)
        return out

    def feedback_rules_applied(self, memory_id: str) -> set[str]:
        rows = self._rows("SELECT rule FROM feedback_applied WHERE memory_id = ?", (memory_id,))
        return {str(r[0]) for r in rows}

    def mark_feedback_applied(self, memory_id: str, rule: str, log_id: int | None) -> None:
        self._write(
            "INSERT INTO feedback_applied (memory_id, rule, log_id, time) "
            "VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
            (memory_id, rule, log_id, self._dialect.time(utcnow())),
        )

    def feedback_flagged(self, rule: str) -> list[str]:
        rows = self._rows(
            "SELECT memory_id FROM feedback_applied WHERE rule = ? ORDER BY time", (rule,)
        )
        return [str(r[0]) for r in rows]

    # runs -------------------------------------------------------------------------------
    def start_review_run(self, scope_key: str | None) -> int:
        return self._insert(
            "INSERT INTO review_runs (scope_key, started_at) VALUES (?, ?)",
            (scope_key, self._dialect.time(utcnow())),
        )

    def finish_review_run(self, run: ReviewRun) -> None:
        self._write(
            "UPDATE review_runs SET finished_at = ?, status = ?, p90 = ?, counts = ?, "
            "breaker = ?, llm_calls = ?, prompt_tokens = ?, completion_tokens = ? WHERE id = ?",
            (
                self._dialect.time(utcnow()),
                run.status,
                run.p90,
                self._dialect.json(run.counts),
                self._dialect.json(run.breaker),
                run.llm_calls,
                run.prompt_tokens,
                run.completion_tokens,
                run.id,
            ),
        )

    def list_review_runs(self, since: datetime | None = None) -> list[ReviewRun]:
        rows = self._rows(
            f"SELECT {_RUN_COLUMNS} FROM review_runs WHERE started_at >= ? ORDER BY id",
            (self._dialect.earliest if since is None else self._dialect.time(since),),
        )
        return [
            ReviewRun(
                id=r[0],
                scope_key=r[1],
                started_at=parse_time(r[2]) or utcnow(),
                finished_at=parse_time(r[3]),
                status=r[4],
                p90=r[5],
                counts=self._dialect.from_json(r[6]),
                breaker=self._dialect.from_json(r[7]),
                llm_calls=r[8],
                prompt_tokens=r[9],
                completion_tokens=r[10],
            )
            for r in rows
        ]
