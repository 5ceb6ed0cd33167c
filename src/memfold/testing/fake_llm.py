"""A scripted OpenAI-compatible server on loopback, for tests and benchmarks.

No small local model judges memories sensibly, so the LLM path is tested
against this server instead: the real client, real HTTP, answers from a
script. It serves ``/v1/chat/completions`` (scripted), ``/v1/completions`` (one
scored token, ``next_token``), ``/v1/embeddings``
(memfold's offline ``LocalEmbedder``, loaded on first use) and
``/v1/models``; records every request body; injects faults on demand; and
adds up its own time per request (``total_server_seconds``) so benchmarks
can subtract it from client wall time.

    with FakeLLMServer(["{...}", Reply(fault=Fault.RATE_LIMIT)]) as server:
        settings = LLMSettings(base_url=server.base_url, model="fake-model")
"""

from __future__ import annotations

import asyncio
import json
import signal
import socket
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memfold.errors import MissingExtra

try:
    import uvicorn
    from starlette.applications import Starlette
    from starlette.concurrency import run_in_threadpool
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response, StreamingResponse
    from starlette.routing import Route
    from starlette.types import Receive, Scope, Send
    from uvicorn.protocols.http.h11_impl import H11Protocol
except ImportError as exc:  # starlette and uvicorn come with memfold[testing] only
    raise MissingExtra("testing", "the scripted LLM server", exc.name or "starlette") from None

from memfold.testing.fake_replies import (
    DEFAULT_FAULT_DELAY_S,
    Fault,
    Reply,
    ReplyLike,
    Script,
    as_reply,
    chat_chunks,
    chat_completion,
    completion_chunks,
    count_tokens,
    load_script,
)

if TYPE_CHECKING:
    from memfold.embed.local import LocalEmbedder


@dataclass(frozen=True, slots=True)
class RecordedRequest:
    method: str
    path: str
    body: Any
    raw: str


class _ConnectionDrop(Exception):
    """Raised after the headers went out, so uvicorn closes the socket mid-body."""


class _DroppedResponse(Response):
    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", b"application/json"), (b"content-length", b"4096")],
            }
        )
        await send({"type": "http.response.body", "body": b'{"id": "chatcmpl', "more_body": True})
        raise _ConnectionDrop("fault injected: connection dropped")


_SSE = "text/event-stream"


async def _events(chunks: list[dict[str, Any]]) -> AsyncIterator[str]:
    """Server-sent events of a streamed reply, closed by ``[DONE]`` as OpenAI closes it."""
    for chunk in chunks:
        yield f"data: {json.dumps(chunk)}\n\n"
    yield "data: [DONE]\n\n"


def _error(status: int, message: str, kind: str) -> JSONResponse:
    headers = {"retry-after": "0"} if status == 429 else None
    return JSONResponse({"error": {"message": message, "type": kind}}, status, headers=headers)


class _NoDelayH11Protocol(H11Protocol):
    """HTTP/1.1 with TCP_NODELAY on each connection. Without it, a response written as
    headers then body waits for the client's delayed ACK: ~40 ms per request on a
    kept-alive connection (measured), time that would be charged to the client."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        sock = transport.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        super().connection_made(transport)  # type: ignore[arg-type]


class FakeLLMServer:
    """Scripted chat completions; a context manager that runs uvicorn in a thread."""

    def __init__(
        self,
        script: Script | None = None,
        *,
        models: Sequence[str] = ("fake-model",),
        host: str = "127.0.0.1",
        port: int = 0,
        cycle: bool = False,
        refuse_params: Sequence[str] = (),
    ) -> None:
        self.host = host
        # Request keys answered with HTTP 400 naming them, as a server that lacks them
        # does (an OpenAI reasoning model and max_tokens; a server without logprobs).
        self.refuse_params = tuple(refuse_params)
        # What /v1/completions answers: one token and its probability (None: HTTP 404).
        self.next_token: tuple[str, float] | None = None
        self.port = port
        self.models = list(models)
        self.cycle = cycle
        self.requests: list[RecordedRequest] = []
        self.total_server_seconds = 0.0
        self._lock = threading.Lock()
        self._faults: deque[Reply] = deque()
        self._replies: deque[Reply] = deque()
        self._responder: Any = None
        self._played: list[Reply] = []
        self._stopping = threading.Event()
        self._embedder: LocalEmbedder | None = None
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self.set_script(script or [])

    # --- script -------------------------------------------------------------

    def set_script(self, script: Script) -> None:
        """Replace the script: a list of replies consumed in order, or a function."""
        with self._lock:
            self._replies.clear()
            self._played.clear()
            if callable(script):
                self._responder = script
            else:
                self._responder = None
                self._replies.extend(as_reply(r) for r in script)

    def push(self, *replies: ReplyLike) -> None:
        """Append replies to the end of the script."""
        with self._lock:
            self._replies.extend(as_reply(r) for r in replies)

    def fail_next(self, fault: Fault, times: int = 1, *, delay_s: float | None = None) -> None:
        """The next ``times`` chat requests get ``fault`` before the script resumes."""
        with self._lock:
            self._faults.extend(Reply(fault=fault, delay_s=delay_s) for _ in range(times))

    def _next_reply(self, body: dict[str, Any]) -> Reply | None:
        with self._lock:
            if self._faults:
                return self._faults.popleft()
            if self._responder is not None:
                responder = self._responder
            elif self._replies:
                reply = self._replies.popleft()
                self._played.append(reply)
                return reply
            elif self.cycle and self._played:
                self._replies.extend(self._played)
                self._played.clear()
                reply = self._replies.popleft()
                self._played.append(reply)
                return reply
            else:
                return None
        return as_reply(responder(body))

    # --- recording ----------------------------------------------------------

    @property
    def chat_requests(self) -> list[dict[str, Any]]:
        """Bodies of every chat completion request received, in order."""
        with self._lock:
            return [r.body for r in self.requests if r.path.endswith("/chat/completions")]

    def request_count(self, path_suffix: str = "/chat/completions") -> int:
        with self._lock:
            return sum(1 for r in self.requests if r.path.endswith(path_suffix))

    def reset_records(self) -> None:
        with self._lock:
            self.requests.clear()
            self.total_server_seconds = 0.0

    async def _record(self, request: Request) -> Any:
        raw = (await request.body()).decode("utf-8", "replace")
        try:
            body = json.loads(raw) if raw else None
        except json.JSONDecodeError:
            body = None
        with self._lock:
            self.requests.append(RecordedRequest(request.method, request.url.path, body, raw))
        return body

    # --- endpoints ----------------------------------------------------------

    async def _timed(self, request: Request) -> Response:
        started = time.perf_counter()
        try:
            path = request.url.path
            if path.endswith("/chat/completions"):
                return await self._chat(request)
            if path.endswith("/completions"):
                return await self._completion(request)
            if path.endswith("/embeddings"):
                return await self._embeddings(request)
            await self._record(request)
            return JSONResponse(
                {"object": "list", "data": [{"id": m, "object": "model"} for m in self.models]}
            )
        finally:
            with self._lock:
                self.total_server_seconds += time.perf_counter() - started

    async def _chat(self, request: Request) -> Response:
        body = await self._record(request)
        if not isinstance(body, dict):
            return _error(400, "request body is not a JSON object", "invalid_request_error")
        refused = [p for p in self.refuse_params if p in body]
        if refused:
            return _error(400, f"Unsupported parameter: '{refused[0]}'", "invalid_request_error")
        reply = self._next_reply(body)
        if reply is None:
            return _error(500, "fake-llm script exhausted", "server_error")
        if reply.delay_s or reply.fault is Fault.DELAY:
            await self._sleep(reply.delay_s or DEFAULT_FAULT_DELAY_S)
        if reply.fault is Fault.RATE_LIMIT:
            return _error(429, "fault injected: rate limited", "rate_limit_error")
        if reply.fault is Fault.SERVER_ERROR:
            return _error(500, "fault injected: server error", "server_error")
        if reply.fault is Fault.DROP:
            return _DroppedResponse()
        if reply.fault is Fault.MALFORMED:
            if body.get("stream"):
                return Response('data: {"id": "chatcmpl-fake", "choices": [\n\n', media_type=_SSE)
            return Response('{"id": "chatcmpl-fake", "choices": [', media_type="application/json")
        if body.get("stream"):
            return StreamingResponse(_events(chat_chunks(body, reply)), media_type=_SSE)
        return JSONResponse(chat_completion(body, reply))

    async def _completion(self, request: Request) -> Response:
        """One scored token (``next_token``) on /v1/completions; 404 when none is set, as
        a server without the endpoint answers."""
        body = await self._record(request)
        if self.next_token is None or not isinstance(body, dict):
            return _error(404, "no /v1/completions on this server", "not_found_error")
        chunks = completion_chunks(body, *self.next_token)
        return StreamingResponse(_events(chunks), media_type=_SSE)

    async def _sleep(self, seconds: float) -> None:
        """Sleep in small steps so stopping the server never waits for a delay fault."""
        deadline = time.monotonic() + seconds
        while not self._stopping.is_set() and time.monotonic() < deadline:
            await asyncio.sleep(min(0.05, max(0.0, deadline - time.monotonic())))

    async def _embeddings(self, request: Request) -> Response:
        body = await self._record(request)
        raw_input = body.get("input") if isinstance(body, dict) else None
        texts = [raw_input] if isinstance(raw_input, str) else list(raw_input or [])
        if not all(isinstance(t, str) for t in texts):
            return _error(400, "input must be a string or a list of strings", "invalid_request")
        vectors = await run_in_threadpool(self._embed, texts)
        tokens = sum(count_tokens(t) for t in texts)
        return JSONResponse(
            {
                "object": "list",
                "model": body.get("model", "fake-embedder") if isinstance(body, dict) else "",
                "data": [
                    {"object": "embedding", "index": i, "embedding": v}
                    for i, v in enumerate(vectors)
                ],
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
            }
        )

    def _embed(self, texts: list[str]) -> list[list[float]]:
        with self._lock:
            if self._embedder is None:
                from memfold.embed.local import LocalEmbedder

                self._embedder = LocalEmbedder()
            embedder = self._embedder
        return [[float(x) for x in row] for row in embedder.embed(texts)]

    # --- lifecycle ----------------------------------------------------------

    def _app(self) -> Starlette:
        methods = ["GET", "POST"]
        return Starlette(
            routes=[
                Route(p, self._timed, methods=methods)
                for p in (
                    "/v1/chat/completions",
                    "/v1/completions",
                    "/v1/embeddings",
                    "/v1/models",
                    "/chat/completions",
                    "/embeddings",
                    "/models",
                )
            ]
        )

    @property
    def base_url(self) -> str:
        """The ``base_url`` to give an OpenAI client (ends in ``/v1``)."""
        return f"http://{self.host}:{self.port}/v1"

    def start(self) -> FakeLLMServer:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((self.host, self.port))
        self.port = int(sock.getsockname()[1])
        config = uvicorn.Config(
            self._app(),
            http=_NoDelayH11Protocol,
            log_config=None,
            log_level="critical",
            access_log=False,
            lifespan="off",
            timeout_graceful_shutdown=1,
        )
        self._server = uvicorn.Server(config)
        self._stopping.clear()
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [sock]}, daemon=True, name="fake-llm"
        )
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("fake LLM server did not start")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)
        self._server = None
        self._thread = None

    def __enter__(self) -> FakeLLMServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def run_from_script_file(
    path: str | Path, port: int = 8808, *, host: str = "127.0.0.1", cycle: bool = False
) -> None:
    """Serve the replies in ``path`` until interrupted (``memfold fake-llm``).

    Script file: a JSON array, or JSONL (one entry a line). Each entry is one
    chat completion reply, consumed in order:

    - a string: the reply content, sent as is;
    - an object with ``"content"`` and/or ``"fault"``: ``content`` is a string
      or any JSON value (sent JSON-encoded); ``fault`` is one of ``delay``,
      ``429``, ``500``, ``drop``, ``malformed``, ``truncated``, ``cut``,
      ``wrong_schema``; optional ``delay_s`` (seconds before answering) and
      ``usage`` (``{"prompt_tokens": n, "completion_tokens": m}``, else
      counted at 4 characters a token);
    - any other object or array: itself JSON-encoded as the reply content.

    When the script runs out the server answers HTTP 500, unless ``cycle``
    starts it over.
    """
    replies = load_script(Path(path))
    server = FakeLLMServer(replies, host=host, port=port, cycle=cycle)
    stop = threading.Event()
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, lambda *_: stop.set())
    server.start()
    print(f"fake LLM serving {len(replies)} replies at {server.base_url}", flush=True)
    try:
        while not stop.is_set() and server._thread is not None and server._thread.is_alive():
            stop.wait(0.5)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()


def recorded_texts(server: FakeLLMServer) -> Iterable[str]:
    """Every raw request body the server received (for secret-leak assertions)."""
    with server._lock:
        return [r.raw for r in server.requests]
