"""The client streams when it asks for log-probabilities (llama-cpp-python then scores
only the reply's tokens), and gathers the stream back into one reply: content, tokens
with their log-probabilities, usage; a broken or malformed stream fails like a plain
call."""

from __future__ import annotations

import math
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from openai.types.chat import ChatCompletionChunk

from memfold.config import LLMSettings
from memfold.errors import LLMReplyInvalid, LLMUnavailable
from memfold.llm.client import LLMClient
from memfold.llm.schemas import TextReply
from memfold.llm.streaming import gather_stream
from memfold.testing.fake_llm import FakeLLMServer
from memfold.testing.fake_replies import Fault, Reply, logprob_tokens

MakeSettings = Callable[..., LLMSettings]
MESSAGES = [{"role": "system", "content": "Merge."}, {"role": "user", "content": "1. a"}]
TEXT = '{"text": "Sam lives in Berlin", "reasoning": "same"}'


async def test_logprobs_are_asked_for_on_a_stream_and_come_back_per_token(
    server: FakeLLMServer, make_settings: MakeSettings
) -> None:
    tokens = logprob_tokens(TEXT, {"Berlin": 0.6})
    server.set_script([Reply(TEXT, logprobs=tokens, completion_tokens=9)])
    client = LLMClient(make_settings())
    result = await client.complete("compression", MESSAGES, TextReply, scored=True)
    await client.aclose()
    body = server.chat_requests[0]
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert result.value.text == "Sam lives in Berlin"
    assert result.raw == TEXT
    assert result.logprobs is not None
    assert "".join(t.token for t in result.logprobs) == TEXT
    berlin = [t.logprob for t in result.logprobs if t.token == "Berlin"]
    assert berlin == [pytest.approx(math.log(0.6))]
    assert result.usage.completion_tokens == 9  # the server's usage chunk, not a count


async def test_without_logprobs_the_call_is_not_streamed(
    server: FakeLLMServer, make_settings: MakeSettings
) -> None:
    server.set_script([TEXT, TEXT])
    client = LLMClient(make_settings(logprobs=False))
    result = await client.complete("compression", MESSAGES, TextReply, scored=True)
    await client.aclose()
    # Logprobs on, but a text nobody scores: neither asked for nor streamed.
    client = LLMClient(make_settings())
    await client.complete("compression", MESSAGES, TextReply)
    await client.aclose()
    for body in server.chat_requests:
        assert "stream" not in body and "logprobs" not in body
    assert result.logprobs is None and result.value.text == "Sam lives in Berlin"


async def test_a_stream_dropped_mid_body_is_retried(
    server: FakeLLMServer, make_settings: MakeSettings
) -> None:
    server.set_script([TEXT])
    server.fail_next(Fault.DROP)
    client = LLMClient(make_settings())
    result = await client.complete("compression", MESSAGES, TextReply, scored=True)
    await client.aclose()
    assert result.value.text == "Sam lives in Berlin"
    assert result.usage.attempts == 2


async def test_a_malformed_stream_is_an_invalid_reply(
    server: FakeLLMServer, make_settings: MakeSettings
) -> None:
    server.set_script([Reply(fault=Fault.MALFORMED)])
    client = LLMClient(make_settings(max_retries=0))
    with pytest.raises(LLMReplyInvalid):
        await client.complete("compression", MESSAGES, TextReply, scored=True)
    await client.aclose()


async def test_a_truncated_stream_says_so(
    server: FakeLLMServer, make_settings: MakeSettings
) -> None:
    server.set_script([Reply(TEXT, fault=Fault.TRUNCATED)])
    client = LLMClient(make_settings())
    with pytest.raises(LLMReplyInvalid, match="truncated"):
        await client.complete("compression", MESSAGES, TextReply, scored=True)
    await client.aclose()


def _chunk(content: str | None, logprob: float | None, finish: str | None = None) -> dict[str, Any]:
    choice: dict[str, Any] = {"index": 0, "delta": {} if content is None else {"content": content}}
    if logprob is not None and content is not None:
        choice["logprobs"] = {
            "content": [{"token": content, "logprob": logprob, "top_logprobs": []}]
        }
    choice["finish_reason"] = finish
    return {
        "id": "c",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "m",
        "choices": [choice],
    }


async def _chunks(*raw: dict[str, Any]) -> AsyncIterator[ChatCompletionChunk]:
    for r in raw:
        yield ChatCompletionChunk.model_validate(r)


async def test_without_a_usage_chunk_the_reply_tokens_are_counted() -> None:
    stream = _chunks(_chunk("1 ", -0.1), _chunk("REPLACE", -0.5), _chunk(None, None, "stop"))
    got = await gather_stream(stream, prompt_estimate=40)
    choice = got.choices[0]
    assert choice.message.content == "1 REPLACE" and choice.finish_reason == "stop"
    assert got.usage is not None
    assert (got.usage.prompt_tokens, got.usage.completion_tokens) == (40, 2)
    assert choice.logprobs is not None and choice.logprobs.content is not None
    assert [t.logprob for t in choice.logprobs.content] == [-0.1, -0.5]


async def test_a_stream_cut_before_its_finish_is_retried_then_fails_as_unavailable(
    server: FakeLLMServer, make_settings: MakeSettings
) -> None:
    server.set_script([TEXT])
    server.fail_next(Fault.CUT)
    # A cut ends its reply at once: the timeout only has to outlast a loaded machine.
    client = LLMClient(make_settings(timeout_s=15.0))
    result = await client.complete("compression", MESSAGES, TextReply, scored=True)
    assert result.value.text == "Sam lives in Berlin" and result.usage.attempts == 2
    server.fail_next(Fault.CUT, times=3)
    with pytest.raises(LLMUnavailable, match="cut the streamed reply"):
        await client.complete("compression", MESSAGES, TextReply, scored=True)
    await client.aclose()
