"""A server that refuses ``response_format: json_schema`` (llama.cpp's answers HTTP 500):
the client falls back at once to ``json_object``, then to the schema in the prompt, and
remembers the format that worked for that endpoint. Served by a small stdlib HTTP server
that answers the way llama-cpp-python's does."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from memfold.config import LLMSettings, RoleSettings
from memfold.errors import LLMUnavailable
from memfold.llm.client import LLMClient
from memfold.llm.schemas import TextReply

GOOD = {"text": "merged", "reasoning": "same fact"}
MESSAGES = [
    {"role": "system", "content": "You merge memories."},
    {"role": "user", "content": '{"memories": []}'},
]
# What llama-cpp-python's server says to a json_schema response_format.
LLAMA_CPP_REFUSAL = (
    "1 validation error: {'type': 'literal_error', 'loc': ('body', 'response_format', "
    "'type'), 'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema'}"
)


class LlamaLikeServer(ThreadingHTTPServer):
    """Refuses the response_format types in ``refused``; records every request body."""

    def __init__(self, refused: set[str]) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.refused = refused
        self.bodies: list[dict[str, Any]] = []
        self.plain_500s = 0  # the next N requests get a 500 that names no format
        self.ignores_stream = False  # answer a streamed request with plain JSON

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    def formats(self) -> list[str]:
        return [b.get("response_format", {}).get("type", "none") for b in self.bodies]


class _Handler(BaseHTTPRequestHandler):
    server: LlamaLikeServer

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.bodies.append(body)
        kind = body.get("response_format", {}).get("type", "none")
        if self.server.plain_500s:
            self.server.plain_500s -= 1
            self._send(500, {"error": {"message": "out of memory", "type": "server_error"}})
        elif kind in self.server.refused:
            error = {"message": LLAMA_CPP_REFUSAL, "type": "internal_server_error"}
            self._send(500, {"error": error})
        elif body.get("stream") and not self.server.ignores_stream:
            self._stream(json.dumps(GOOD))
        else:
            message = {"role": "assistant", "content": json.dumps(GOOD)}
            choice = {"index": 0, "message": message, "finish_reason": "stop"}
            usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
            reply = {"id": "x", "object": "chat.completion", "created": 0, "model": "m"}
            self._send(200, {**reply, "choices": [choice], "usage": usage})

    def _stream(self, content: str) -> None:
        """Server-sent events as llama-cpp-python streams them: no usage chunk."""
        head = {"id": "x", "object": "chat.completion.chunk", "created": 0, "model": "m"}
        deltas = [({"role": "assistant"}, None), ({"content": content}, None), ({}, "stop")]
        events = [
            {**head, "choices": [{"index": 0, "delta": d, "finish_reason": f}]} for d, f in deltas
        ]
        data = "".join(f"data: {json.dumps(e)}\n\n" for e in events) + "data: [DONE]\n\n"
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data.encode())

    def _send(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass


def _serve(refused: set[str]) -> Iterator[LlamaLikeServer]:
    server = LlamaLikeServer(refused)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def llama() -> Iterator[LlamaLikeServer]:
    yield from _serve({"json_schema"})


@pytest.fixture
def strict_old_server() -> Iterator[LlamaLikeServer]:
    yield from _serve({"json_schema", "json_object"})


def _client(server: LlamaLikeServer, **role: Any) -> LLMClient:
    values: dict[str, Any] = {"timeout_s": 5.0, "max_retries": 2, "json_schema": True}
    values.update(role)
    settings = LLMSettings(
        base_url=server.base_url, model="m", api_key="k", utility=RoleSettings(**values)
    )
    return LLMClient(settings)


async def test_a_refused_json_schema_falls_back_to_json_object_and_is_remembered(
    llama: LlamaLikeServer, caplog: pytest.LogCaptureFixture
) -> None:
    client = _client(llama)
    assert client.response_format("compression") == "json_schema"
    result = await client.complete("compression", MESSAGES, TextReply)
    assert result.value.text == "merged"
    assert llama.formats() == ["json_schema", "json_object"]  # no retries of the refusal
    # json_object needs the schema (and the word JSON) in the prompt
    assert '"text"' in llama.bodies[1]["messages"][0]["content"]
    assert "JSON" in llama.bodies[1]["messages"][0]["content"]
    assert "JSON" not in llama.bodies[0]["messages"][0]["content"]
    assert client.response_format("compression") == "json_object"
    assert sum("refused response_format json_schema" in r.message for r in caplog.records) == 1
    # the next call goes straight to the format that worked
    await client.complete("compression", MESSAGES, TextReply)
    assert llama.formats() == ["json_schema", "json_object", "json_object"]
    await client.aclose()


async def test_a_client_lent_the_knowledge_does_not_ask_the_refused_format_again(
    llama: LlamaLikeServer,
) -> None:
    first = _client(llama)
    await first.complete("compression", MESSAGES, TextReply)
    await first.aclose()
    # Extraction builds its own client on its own event loop, lent the judge's knowledge.
    lent = LLMClient(first.settings, knowledge=first.knowledge)
    assert lent.response_format("compression") == "json_object"
    await lent.complete("compression", MESSAGES, TextReply)
    await lent.aclose()
    assert llama.formats() == ["json_schema", "json_object", "json_object"]
    # Not lent: a new client probes the endpoint again.
    fresh = _client(llama)
    await fresh.complete("compression", MESSAGES, TextReply)
    await fresh.aclose()
    assert llama.formats()[3:] == ["json_schema", "json_object"]


async def test_a_server_refusing_both_gets_the_schema_in_the_prompt_only(
    strict_old_server: LlamaLikeServer,
) -> None:
    client = _client(strict_old_server)
    result = await client.complete("compression", MESSAGES, TextReply)
    assert result.value.text == "merged"
    assert strict_old_server.formats() == ["json_schema", "json_object", "none"]
    assert client.response_format("compression") == "prompt"
    await client.aclose()


async def test_an_ordinary_500_is_retried_and_changes_no_format(llama: LlamaLikeServer) -> None:
    client = _client(llama, json_schema=True)
    llama.refused.clear()
    llama.plain_500s = 1
    await client.complete("compression", MESSAGES, TextReply)
    assert llama.formats() == ["json_schema", "json_schema"]  # retried, same format
    assert client.response_format("compression") == "json_schema"
    await client.aclose()


async def test_after_a_confirmed_format_a_refusal_is_a_failure_not_a_fallback(
    llama: LlamaLikeServer,
) -> None:
    client = _client(llama, max_retries=0)
    llama.refused.clear()
    await client.complete("compression", MESSAGES, TextReply)  # json_schema confirmed
    llama.refused.add("json_schema")
    with pytest.raises(LLMUnavailable, match="HTTP 500"):
        await client.complete("compression", MESSAGES, TextReply)
    assert client.response_format("compression") == "json_schema"
    await client.aclose()


async def test_json_schema_off_in_the_settings_sends_no_response_format(
    llama: LlamaLikeServer,
) -> None:
    client = _client(llama, json_schema=False)
    await client.complete("compression", MESSAGES, TextReply)
    assert llama.formats() == ["none"]
    assert client.response_format("compression") == "prompt"
    await client.aclose()


async def test_a_server_that_ignores_stream_is_asked_again_without_it_and_remembered(
    llama: LlamaLikeServer, caplog: pytest.LogCaptureFixture
) -> None:
    llama.ignores_stream = True
    client = _client(llama)  # logprobs on (the default): a scored call streams
    result = await client.complete("compression", MESSAGES, TextReply, scored=True)
    assert result.value.text == "merged"
    assert [b.get("stream", False) for b in llama.bodies] == [True, True, False]
    assert client.refused_params("compression") == {"stream"}
    assert sum("refused stream" in r.message for r in caplog.records) == 1
    await client.complete("compression", MESSAGES, TextReply, scored=True)
    assert llama.bodies[-1].get("stream", False) is False
    assert llama.bodies[-1]["logprobs"] is True  # still asked, unstreamed
    await client.aclose()
