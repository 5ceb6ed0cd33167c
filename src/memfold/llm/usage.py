"""Accounting of LLM calls: what each call cost, and where that is recorded.

The usage sink is how the daily token budget survives a restart: the client
asks it for today's total before each call instead of keeping a counter in
memory. The SQLite store implements it (``record_llm_call`` plus
``tokens_today``); ``InMemoryUsageSink`` serves tests and store-less use.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

# Outcomes recorded per call.
OK = "ok"
INVALID = "invalid"
LEAK = "leak"
TIMEOUT = "timeout"
UNAVAILABLE = "unavailable"
BUDGET = "budget"
RATE_LIMITED = "rate_limited"

# A one-token request scoring a reply (llm/completion_scoring.py) is recorded under its
# task's name with this suffix: it costs a few prompt tokens on a cached prefix and one
# generated token, so reports count it apart from the calls that generate a reply.
SCORING_SUFFIX = ".score"


def scoring_task(task: str) -> str:
    return task + SCORING_SUFFIX


def is_scoring(task: str) -> bool:
    return task.endswith(SCORING_SUFFIX)


@dataclass(frozen=True, slots=True)
class CallUsage:
    """Cost of one call, as reported by the server's ``usage`` field."""

    task: str
    role: str
    model: str | None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_ms: float = 0.0
    outcome: str = OK
    attempts: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


class UsageSink(Protocol):
    """Where calls are recorded; the store's ``UsageTableMixin`` matches it."""

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
    ) -> Any: ...

    def tokens_today(self, *, role: str | None = None) -> int:
        """Prompt + completion tokens recorded since 00:00 UTC today (one role, or all)."""
        ...


@dataclass(slots=True)
class InMemoryUsageSink:
    """A usage sink that lives in memory (tests; a process without a store)."""

    calls: list[dict[str, Any]] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

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
        row = {
            "time": time or datetime.now(UTC),
            "task": task,
            "role": role,
            "model": model,
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "latency_ms": latency_ms,
            "outcome": outcome,
            "error": error,
        }
        with self._lock:
            self.calls.append(row)
            return len(self.calls)

    def tokens_today(self, *, role: str | None = None) -> int:
        today = datetime.now(UTC).date()
        with self._lock:
            return sum(
                int(c["prompt_tokens"]) + int(c["completion_tokens"])
                for c in self.calls
                if c["time"].astimezone(UTC).date() == today and role in (None, c["role"])
            )


def attach_usage(exc: BaseException, usage: CallUsage) -> None:
    """Let a failed call still report its cost (an invalid reply used tokens too)."""
    exc.__dict__["usage"] = usage


def usage_of(exc: BaseException) -> CallUsage | None:
    """The usage attached to an ``LLMError`` by the client, if any."""
    found = exc.__dict__.get("usage")
    return found if isinstance(found, CallUsage) else None
