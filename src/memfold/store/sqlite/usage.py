"""SQLite table of LLM call accounting."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from datetime import datetime
from typing import Any

from memfold.model import JSONDict, utcnow


class UsageTableMixin:
    """Records every LLM call and sums them by task and day."""

    _q: Callable[..., list[tuple[Any, ...]]]
    _w: Callable[..., int]

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
        return self._w(
            "INSERT INTO llm_calls (time, task, role, model, prompt_tokens, completion_tokens, "
            "latency_ms, outcome, error) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                (time or utcnow()).isoformat(),
                task,
                role,
                model,
                prompt_tokens,
                completion_tokens,
                latency_ms,
                outcome,
                error,
            ),
        )

    def tokens_today(self, *, role: str | None = None) -> int:
        """Prompt + completion tokens spent since 00:00 UTC (the daily budget's meter)."""
        start = utcnow().replace(hour=0, minute=0, second=0, microsecond=0).isoformat()
        sql = (
            "SELECT coalesce(sum(prompt_tokens + completion_tokens), 0) FROM llm_calls "
            "WHERE time >= ?"
        )
        params: list[Any] = [start]
        if role is not None:
            sql += " AND role = ?"
            params.append(role)
        return int(self._q(sql, params)[0][0])

    def llm_usage(self, since: datetime | None = None) -> list[JSONDict]:
        """Totals per (day, task, role, model, outcome)."""
        try:
            rows = self._q(
                "SELECT substr(time, 1, 10) AS day, task, role, coalesce(model, ''), outcome, "
                "count(*), sum(prompt_tokens), sum(completion_tokens), avg(latency_ms) "
                "FROM llm_calls WHERE time >= ? GROUP BY day, task, role, model, outcome "
                "ORDER BY day, task",
                ((since.isoformat() if since else ""),),
            )
        except sqlite3.OperationalError:  # pragma: no cover - table always exists after migrate
            return []
        keys = (
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
        return [dict(zip(keys, r, strict=True)) for r in rows]
