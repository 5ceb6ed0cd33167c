"""The real client against the scripted server: formats, faults, accounting, roles."""

from __future__ import annotations

import json
import logging
import socket
import time
from collections.abc import Callable

import pytest

from memfold.config import LLMSettings, RoleSettings
from memfold.errors import (
    ConfigError,
    LLMError,
    LLMRateLimited,
    LLMReplyInvalid,
    LLMTimeout,
    LLMUnavailable,
    SecretLeak,
)
from memfold.llm.client import LLMClient
from memfold.llm.schemas import TextReply
from memfold.llm.usage import InMemoryUsageSink, usage_of
from memfold.testing.fake_llm import FakeLLMServer
from memfold.testing.fake_replies import Fault, Reply, prompt_tokens

MakeSettings = Callable[..., LLMSettings]

GOOD = {"text": "merged", "reasoning": "same fact"}
MESSAGES = [
    {"role": "system", "content": "You merge memories."},
    {"role": "user", "content": '{"memories": []}'},
]


async def test_json_schema_is_sent_when_role_supports_it(
    server: FakeLLMServer, make_settings: MakeSettings
) -> None:
    server.set_script([GOOD])
    client = LLMClient(make_settings(json_schema=True))
    result = await client.complete("compression", MESSAGES, TextReply)
    assert result.value.text == "merged"
    body = server.chat_requests[0]
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["name"] == "TextReply"
    assert "text" in body["response_format"]["json_schema"]["schema"]["properties"]
    assert body["model"] == "fake-model"
    assert body["max_completion_tokens"] == 1024
    await client.aclose()


async def test_prompt_asks_for_json_when_role_has_no_json_schema(
    server: FakeLLMServer, make_settings: MakeSettings
) -> None:
    server.set_script(["Here you go:\n```json\n" + json.dumps(GOOD) + "\n```\nAnything else?"])
    client = LLMClient(make_settings(json_schema=False))
    result = await client.complete("compression", MESSAGES, TextReply)
    assert result.value.reasoning == "same fact"
    body = server.chat_requests[0]
    assert "response_format" not in body
    assert "matching this JSON schema" in body["messages"][0]["content"]
    await client.aclose()


# Retried faults back off 0.2 s then 0.4 s (+ jitter): give them a longer timeout.
FAULTS = [
    (Fault.DELAY, LLMTimeout, 1),
    (Fault.RATE_LIMIT, LLMRateLimited, 3),  # the provider's 429, not memfold's budget
    (Fault.SERVER_ERROR, LLMUnavailable, 3),
    (Fault.DROP, LLMUnavailable, 3),
    (Fault.MALFORMED, LLMReplyInvalid, 1),
    (Fault.TRUNCATED, LLMReplyInvalid, 1),
    (Fault.WRONG_SCHEMA, LLMReplyInvalid, 1),
]


@pytest.mark.parametrize(("fault", "error", "requests"), FAULTS)
async def test_every_fault_is_a_typed_error_within_the_timeout(
    server: FakeLLMServer,
    make_settings: MakeSettings,
    fault: Fault,
    error: type[LLMError],
    requests: int,
) -> None:
    """Retryable faults are retried (max_retries=2 -> 3 requests), the rest fail at once."""
    server.fail_next(fault, times=5)
    sink = InMemoryUsageSink()
    timeout_s = 0.8 if requests == 1 else 2.0
    client = LLMClient(make_settings(timeout_s=timeout_s), usage_sink=sink)
    started = time.perf_counter()
    with pytest.raises(error) as info:
        await client.complete("compression", MESSAGES, TextReply)
    elapsed = time.perf_counter() - started
    assert elapsed < timeout_s + 0.3
    assert server.request_count() == requests
    assert usage_of(info.value) is not None
    assert sink.calls[-1]["outcome"] != "ok"
    assert sink.calls[-1]["error"]
    await client.aclose()


async def test_retry_recovers_after_transient_errors(
    server: FakeLLMServer, make_settings: MakeSettings
) -> None:
    server.set_script([GOOD])
    server.fail_next(Fault.SERVER_ERROR)
    server.fail_next(Fault.RATE_LIMIT)
    client = LLMClient(make_settings(timeout_s=2.0))
    result = await client.complete("compression", MESSAGES, TextReply)
    assert result.value.text == "merged"
    assert result.usage.attempts == 3
    assert server.request_count() == 3
    await client.aclose()


async def test_retries_stop_at_the_timeout(
    server: FakeLLMServer, make_settings: MakeSettings
) -> None:
    """Many retries allowed, but the role's timeout bounds the whole call."""
    server.fail_next(Fault.SERVER_ERROR, times=1000)
    client = LLMClient(make_settings(timeout_s=0.5, max_retries=1000))
    started = time.perf_counter()
    with pytest.raises(LLMTimeout):
        await client.complete("compression", MESSAGES, TextReply)
    assert time.perf_counter() - started < 0.8
    await client.aclose()


async def test_usage_matches_the_server_and_is_recorded(
    server: FakeLLMServer, make_settings: MakeSettings
) -> None:
    server.set_script([GOOD, Reply(content=GOOD, prompt_tokens=111, completion_tokens=22)])
    sink = InMemoryUsageSink()
    client = LLMClient(make_settings(), usage_sink=sink)
    first = await client.complete("compression", MESSAGES, TextReply)
    assert first.usage.prompt_tokens == prompt_tokens(server.chat_requests[0])
    assert first.usage.completion_tokens == -(-len(json.dumps(GOOD)) // 4)
    second = await client.complete("summary", MESSAGES, TextReply)
    assert (second.usage.prompt_tokens, second.usage.completion_tokens) == (111, 22)
    rows = sink.calls
    assert [(r["task"], r["role"], r["model"], r["outcome"]) for r in rows] == [
        ("compression", "utility", "fake-model", "ok"),
        ("summary", "utility", "fake-model", "ok"),
    ]
    assert rows[1]["prompt_tokens"] == 111 and rows[1]["completion_tokens"] == 22
    assert rows[0]["latency_ms"] > 0
    assert sink.tokens_today() == first.usage.total_tokens + 133
    await client.aclose()


async def test_invalid_reply_still_reports_tokens(
    server: FakeLLMServer, make_settings: MakeSettings
) -> None:
    server.set_script([Reply(content="not json", prompt_tokens=50, completion_tokens=5)])
    sink = InMemoryUsageSink()
    client = LLMClient(make_settings(), usage_sink=sink)
    with pytest.raises(LLMReplyInvalid) as info:
        await client.complete("compression", MESSAGES, TextReply)
    usage = usage_of(info.value)
    assert usage is not None and usage.total_tokens == 55
    assert sink.calls[0]["outcome"] == "invalid"
    assert sink.tokens_today() == 55
    await client.aclose()


async def test_role_overrides_and_task_routing(server: FakeLLMServer) -> None:
    settings = LLMSettings(
        base_url="http://127.0.0.1:9/v1",  # top-level endpoint is wrong; roles override it
        model="top-model",
        utility=RoleSettings(base_url=server.base_url, model="small-model", temperature=0.3),
        main=RoleSettings(base_url=server.base_url, model="big-model"),
        task_roles={"compression": "utility", "summary": "main"},
    )
    server.set_script([GOOD, GOOD])
    client = LLMClient(settings)
    a = await client.complete("compression", MESSAGES, TextReply)
    b = await client.complete("summary", MESSAGES, TextReply)
    assert (a.usage.role, a.usage.model) == ("utility", "small-model")
    assert (b.usage.role, b.usage.model) == ("main", "big-model")
    bodies = server.chat_requests
    assert [x["model"] for x in bodies] == ["small-model", "big-model"]
    assert bodies[0]["temperature"] == 0.3
    await client.aclose()


@pytest.mark.parametrize(
    "settings",
    [
        LLMSettings(model="m"),
        LLMSettings(base_url="http://127.0.0.1:9/v1"),
        # consolidation routed to "main", which has no endpoint (only utility has one)
        LLMSettings(
            model="m",
            utility=RoleSettings(base_url="http://127.0.0.1:9/v1"),
            task_roles={"consolidation": "main"},
        ),
    ],
)
def test_missing_configuration_fails_at_construction(settings: LLMSettings) -> None:
    with pytest.raises(ConfigError):
        LLMClient(settings, tasks=["consolidation"])


async def test_reply_with_unsent_placeholder_is_a_secret_leak(
    server: FakeLLMServer, make_settings: MakeSettings
) -> None:
    server.set_script([{"text": "key is [[SECRET_2]]", "reasoning": ""}])
    client = LLMClient(make_settings())
    messages = [MESSAGES[0], {"role": "user", "content": "key AKIAQWERTYUIOPASDFGH"}]
    with pytest.raises(SecretLeak):
        await client.complete("compression", messages, TextReply)
    assert "AKIAQWERTYUIOPASDFGH" not in server.requests[0].raw
    await client.aclose()


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_unreachable_endpoint_is_unavailable_and_logged_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    settings = LLMSettings(
        base_url=url, model="m", utility=RoleSettings(timeout_s=1, max_retries=0)
    )
    client = LLMClient(settings)
    with caplog.at_level(logging.WARNING, logger="memfold.llm"):
        assert await client.available() is False
        for _ in range(3):
            with pytest.raises(LLMUnavailable):
                await client.complete("consolidation", MESSAGES, TextReply)
        assert await client.available() is False
    warnings = [r for r in caplog.records if r.name == "memfold.llm"]
    assert len(warnings) == 1
    assert client.is_down()
    await client.aclose()


async def test_a_probe_left_unanswered_says_how_long_it_waited(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # a server that accepts connections and never answers (a busy single-threaded one)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(8)
        url = f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
        role = RoleSettings(timeout_s=5, max_retries=0, probe_timeout_s=0.3)
        client = LLMClient(LLMSettings(base_url=url, model="m", utility=role))
        with caplog.at_level(logging.WARNING, logger="memfold.llm"):
            assert await client.available() is False
        await client.aclose()
    (warning,) = [r.getMessage() for r in caplog.records if r.name == "memfold.llm"]
    assert warning.endswith("unreachable: no answer to GET /models within 0.3 s")


async def test_available_on_a_live_server(
    server: FakeLLMServer, make_settings: MakeSettings
) -> None:
    client = LLMClient(make_settings())
    assert await client.available() is True
    assert server.request_count("/models") == 1
    await client.aclose()
