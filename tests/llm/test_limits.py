"""Rate windows and the daily budget: never more calls than allowed, exhausted fails fast."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest

from memfold.config import LLMSettings
from memfold.errors import BudgetExhausted
from memfold.llm.client import LLMClient
from memfold.llm.limits import estimate_tokens
from memfold.llm.schemas import TextReply
from memfold.llm.usage import InMemoryUsageSink
from memfold.testing.fake_llm import FakeLLMServer

MakeSettings = Callable[..., LLMSettings]
GOOD = {"text": "merged", "reasoning": "same fact"}
MESSAGES = [{"role": "system", "content": "sys"}, {"role": "user", "content": "a memory"}]


async def test_requests_per_minute_holds(
    server: FakeLLMServer, make_settings: MakeSettings
) -> None:
    server.set_script([GOOD] * 10)
    sink = InMemoryUsageSink()
    client = LLMClient(make_settings(requests_per_minute=3), usage_sink=sink)
    for _ in range(3):
        await client.complete("compression", MESSAGES, TextReply)
    for _ in range(3):
        started = time.perf_counter()
        with pytest.raises(BudgetExhausted, match="requests-per-minute"):
            await client.complete("compression", MESSAGES, TextReply)
        assert time.perf_counter() - started < 0.05
    assert server.request_count() == 3
    assert [c["outcome"] for c in sink.calls] == ["ok"] * 3 + ["budget"] * 3
    await client.aclose()


async def test_rate_limit_is_shared_by_roles_on_one_endpoint(server: FakeLLMServer) -> None:
    from memfold.config import RoleSettings

    settings = LLMSettings(
        base_url=server.base_url,
        model="fake-model",
        utility=RoleSettings(requests_per_minute=2),
        main=RoleSettings(requests_per_minute=5),
        task_roles={"compression": "utility", "summary": "main"},
    )
    server.set_script([GOOD] * 10)
    client = LLMClient(settings)
    await client.complete("summary", MESSAGES, TextReply)
    await client.complete("compression", MESSAGES, TextReply)
    with pytest.raises(BudgetExhausted):
        await client.complete("summary", MESSAGES, TextReply)
    assert server.request_count() == 2
    await client.aclose()


async def test_tokens_per_minute_holds(server: FakeLLMServer, make_settings: MakeSettings) -> None:
    server.set_script([GOOD] * 10)
    # Each call is charged its prompt estimate plus max_completion_tokens (100).
    client = LLMClient(make_settings(tokens_per_minute=250, max_completion_tokens=100))
    await client.complete("compression", MESSAGES, TextReply)
    await client.complete("compression", MESSAGES, TextReply)
    with pytest.raises(BudgetExhausted, match="tokens-per-minute"):
        await client.complete("compression", MESSAGES, TextReply)
    assert server.request_count() == 2
    await client.aclose()


async def test_daily_budget_fails_fast_and_survives_restart(
    server: FakeLLMServer, make_settings: MakeSettings
) -> None:
    server.set_script([GOOD] * 10)
    sink = InMemoryUsageSink()
    settings = make_settings(daily_token_budget=24)
    client = LLMClient(settings, usage_sink=sink)
    first = await client.complete("compression", MESSAGES, TextReply)
    assert first.usage.total_tokens == 22  # 24 left room for this call, not another
    with pytest.raises(BudgetExhausted, match="daily token budget"):
        await client.complete("compression", MESSAGES, TextReply)
    await client.aclose()
    # A new client (a restarted process) reads today's total from the same sink.
    restarted = LLMClient(settings, usage_sink=sink)
    started = time.perf_counter()
    with pytest.raises(BudgetExhausted):
        await restarted.complete("compression", MESSAGES, TextReply)
    assert time.perf_counter() - started < 0.05
    assert server.request_count() == 1
    await restarted.aclose()


async def test_yesterdays_tokens_do_not_count(
    server: FakeLLMServer, make_settings: MakeSettings
) -> None:
    server.set_script([GOOD])
    sink = InMemoryUsageSink()
    sink.record_llm_call(
        task="compression", role="utility", model="fake-model", prompt_tokens=10_000,
        completion_tokens=0, latency_ms=1.0, outcome="ok",
        time=datetime.now(UTC) - timedelta(days=1),
    )  # fmt: skip
    client = LLMClient(make_settings(daily_token_budget=100), usage_sink=sink)
    await client.complete("compression", MESSAGES, TextReply)
    assert sink.tokens_today() < 100
    await client.aclose()


def test_estimate_matches_fake_server_rule() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("abcd") == 1
    assert estimate_tokens("abcde") == 2
