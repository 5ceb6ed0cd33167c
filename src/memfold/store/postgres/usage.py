"""PostgreSQL table of LLM call accounting."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from memfold.model import JSONDict, utcnow
from memfold.store.postgres.connection import Connections

_EARLIEST = datetime.fromisoformat("0001-01-01T00:00:00+00:00")
_KEYS = (
    "day",
    "task",
    "role",
    "model",
    "outcome",
    "calls",
    "prompt_tokens",
    "completion_tokens",
    "mean_latency_ms",
)


class UsageTableMixin:
    """Records every LLM call and sums them by task and day (UTC)."""

    _db: Connections
    _q: Callable[..., list[tuple[Any, ...]]]

    def record_llm_call(
        self,
        *,
        task: str,
        role: str,
        model: str | None,
        prompt_tokens: int,
        completion_tokens: int,
        latency_ms: float,
        outcome: str,
        error: str | None = None,
        time: datetime | None = None,
    ) -> int:
        # Without the writer lock: a usage row is alone in its table, read only as sums
        # (the daily budget), and the call it records has already happened.
        return self._db.write_unlocked(
            "INSERT INTO llm_calls (time, task, role, model, prompt_tokens, completion_tokens, "
            "latency_ms, outcome, error) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s) "
            "RETURNING id",
            (
                time or utcnow(),
                task,
                role,
                model,
                prompt_tokens,
                completion_tokens,
                float(latency_ms),
                outcome,
                error,
            ),
        )

    def tokens_today(self, *, role: str | None = None) -> int:
        """Prompt + completion tokens spent since 00:00 UTC (the daily budget's meter)."""
        start = utcnow().replace(hour=0, minute=0, second=0, microsecond=0)
        sql = (
            "SELECT coalesce(sum(prompt_tokens + completion_tokens), 0) FROM llm_calls "
            "WHERE time >= %s"
        )
        params: list[Any] = [start]
        if role is not None:
            sql += " AND role = %s"
            params.append(role)
        return int(self._q(sql, params)[0][0])

    def llm_usage(self, since: datetime | None = None) -> list[JSONDict]:
        """Totals per (day, task, role, model, outcome)."""
        rows = self._q(
            "SELECT to_char(time AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, task, role, "
            "coalesce(model, ''), outcome, count(*), sum(prompt_tokens), "
            "sum(completion_tokens), avg(latency_ms) FROM llm_calls WHERE time >= %s "
            "GROUP BY day, task, role, model, outcome ORDER BY day, task",
            (since or _EARLIEST,),
        )
        out: list[JSONDict] = []
        for r in rows:
            day, task, role, model, outcome, calls, prompt, completion, latency = r
            values = (
                day,
                task,
                role,
                model,
                outcome,
                int(calls),
                int(prompt),
                int(completion),
                float(latency),
            )
            out.append(dict(zip(_KEYS, values, strict=True)))
        return out
