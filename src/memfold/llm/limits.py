"""Rate limits and the daily token budget. Exhausted means fail now, never wait.

Consolidation is background work: when a window is full it is better to SKIP
(the job is retried later) than to hold a worker. So the limiters are only
ever asked ``has_capacity`` and then acquired without blocking.

Requests and tokens per minute are leaky buckets (``aiolimiter``) shared by
every role that talks to the same endpoint; when roles disagree the stricter
limit wins. A request is charged, before it is sent, its estimated prompt
tokens plus its ``max_completion_tokens`` (the worst case, which is how
OpenAI itself counts tokens against TPM limits), capped at the bucket size
so one large request can still pass an empty bucket.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from aiolimiter import AsyncLimiter

from memfold.errors import BudgetExhausted
from memfold.llm.roles import ResolvedRole
from memfold.llm.usage import UsageSink

WINDOW_S = 60.0


def estimate_tokens(text: str) -> int:
    """Rough token count (4 characters a token), for charging limits before a call."""
    return math.ceil(len(text) / 4)


@dataclass(slots=True)
class _Buckets:
    requests: AsyncLimiter | None
    tokens: AsyncLimiter | None


def _stricter(a: AsyncLimiter | None, rate: float | None) -> AsyncLimiter | None:
    if rate is None:
        return a
    if a is None or rate < a.max_rate:
        return AsyncLimiter(rate, WINDOW_S)
    return a


class RateLimits:
    """Per-endpoint request and token buckets."""

    def __init__(self, roles: list[ResolvedRole]) -> None:
        self._buckets: dict[str, _Buckets] = {}
        for role in roles:
            found = self._buckets.get(role.endpoint, _Buckets(None, None))
            self._buckets[role.endpoint] = _Buckets(
                _stricter(found.requests, role.settings.requests_per_minute),
                _stricter(found.tokens, role.settings.tokens_per_minute),
            )

    async def take(self, role: ResolvedRole, tokens: int) -> None:
        """Charge one request of ``tokens``, or raise ``BudgetExhausted`` at once."""
        buckets = self._buckets.get(role.endpoint)
        if buckets is None:
            return
        amount = 0.0 if buckets.tokens is None else min(float(tokens), buckets.tokens.max_rate)
        if buckets.requests is not None and not buckets.requests.has_capacity(1):
            raise BudgetExhausted(
                f"requests-per-minute limit ({buckets.requests.max_rate:g}) reached "
                f"for {role.endpoint}"
            )
        if buckets.tokens is not None and not buckets.tokens.has_capacity(amount):
            raise BudgetExhausted(
                f"tokens-per-minute limit ({buckets.tokens.max_rate:g}) reached for {role.endpoint}"
            )
        # has_capacity just succeeded and nothing awaited since, so neither acquire waits.
        if buckets.requests is not None:
            await buckets.requests.acquire(1)
        if buckets.tokens is not None:
            await buckets.tokens.acquire(amount)


def check_daily_budget(role: ResolvedRole, sink: UsageSink | None, estimate: int) -> None:
    """``BudgetExhausted`` if today's tokens plus this call's prompt would pass the budget."""
    budget = role.settings.daily_token_budget
    if budget is None:
        return
    used = 0 if sink is None else sink.tokens_today(role=role.name)
    if used + estimate > budget:
        raise BudgetExhausted(
            f"daily token budget of role {role.name!r} exhausted ({used} of {budget} used)"
        )
