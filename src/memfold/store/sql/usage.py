"""The LLM call accounting table, for both backends: one row a call, summed by task and
day (UTC) and for the daily token budget."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from memfold.model import JSONDict, utcnow
from memfold.store.sql.tables import SQLTables

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


class UsageTables(SQLTables):
    """Records every LLM call and sums them by task and day (UTC)."""

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
        # Without the writer lock where the backend has a write without it: a usage row
        # is alone in its table, read only as sums (the daily budget), and the call it
        # records has already happened.
        return self._w_unlocked(
            self._dialect.sql(
                "INSERT INTO llm_calls (time, task, role, model, prompt_tokens, "
                "completion_tokens, latency_ms, outcome, error) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
            )
            + self._dialect.returning_id,
            (
                self._dialect.time(time or utcnow()),
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
            "WHERE time >= ?"
        )
        params: list[Any] = [self._dialect.time(start)]
        if role is not None:
            sql += " AND role = ?"
            params.append(role)
        return int(self._rows(sql, params)[0][0])

    def llm_usage(self, since: datetime | None = None) -> list[JSONDict]:
        """Totals per (day, task, role, model, outcome)."""
        rows = self._rows(
            f"SELECT {self._dialect.utc_day('time')} AS day, task, role, coalesce(model, ''), "
            "outcome, count(*), sum(prompt_tokens), sum(completion_tokens), avg(latency_ms) "
            "FROM llm_calls WHERE time >= ? GROUP BY day, task, role, model, outcome "
            "ORDER BY day, task",
            (self._dialect.earliest if since is None else self._dialect.time(since),),
        )
        return [
            dict(
                zip(
                    _KEYS,
                    (
                        day,
                        task,
                        role,
                        model,
                        outcome,
                        int(calls),
                        int(prompt),
                        int(completion),
                        float(latency),
                    ),
                    strict=True,
                )
            )
            for day, task, role, model, outcome, calls, prompt, completion, latency in rows
        ]
