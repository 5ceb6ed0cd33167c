"""``Idempotency-Key`` on the REST writes (engine/idempotency.py has the semantics).

ASGI middleware, inside ``KeyFirst`` (the caller's key is known) and outside the
routes and their error handlers (it sees each response as the client would). For a
write (POST, PUT, PATCH, DELETE under ``/v1/``, but not the read POSTs of
``READ_POSTS``) that carries the header, it reads the body, claims the key for the
calling API key with the request's fingerprint (method, path, sorted query, body as
canonical JSON) and either:

- runs the route, stores its response (status, content type, body) and only then sends
  it, so a connection cut while sending loses nothing; a request refused before its
  route ran (401, 403, 413, 429) releases the key instead; an unexpected exception
  stores the 500 the client gets;
- or answers from the key's row: the stored response with ``Idempotent-Replayed:
  true`` (the route does not run), 422 ``idempotency_key_reused`` for another request,
  409 ``idempotency_key_in_use`` while the first still runs.

A malformed key (empty, over ``server.idempotency_key_max_chars``, not printable
ASCII, or the header twice) is 400 ``invalid_idempotency_key`` and nothing runs. A
request without the header is passed through untouched.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qsl

from fastapi import FastAPI
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool
from starlette.types import ASGIApp, Message, Receive, Send
from starlette.types import Scope as ASGIScope

from memfold.engine import idempotency as idem
from memfold.errors import InvalidInput, MemfoldError
from memfold.memory import Memory
from memfold.model import ApiKey
from memfold.server.asgi import replay
from memfold.server.errors import error_response, memfold_error_response
from memfold.store.base import IdempotencyEntry

log = logging.getLogger("memfold.server")

HEADER = "Idempotency-Key"
REPLAYED = "Idempotent-Replayed"
WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
# POST routes that write nothing: the header is ignored there.
READ_POSTS = frozenset({"/v1/memories/search"})
# Refused before the route ran (key, role, body size, rate limit): the key is released.
NOT_RUN = frozenset({401, 403, 413, 429})
_INTERNAL = {"error": {"code": "internal_error", "message": "internal server error"}}


def takes_key(method: str, path: str, prefix: str = "/v1/") -> bool:
    """Whether a request to ``method path`` honours the header."""
    return method in WRITE_METHODS and path.startswith(prefix) and path not in READ_POSTS


class Idempotency:
    """The middleware (see the module docstring)."""

    def __init__(self, app: ASGIApp, memory: Memory, prefix: str = "/v1/") -> None:
        self.app = app
        self.memory = memory
        self.prefix = prefix

    async def __call__(self, scope: ASGIScope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not takes_key(scope["method"], scope["path"], self.prefix):
            await self.app(scope, receive, send)
            return
        given = [v for k, v in scope.get("headers", []) if k == b"idempotency-key"]
        api_key: ApiKey | None = scope.get("state", {}).get("api_key")
        if not given or api_key is None:  # no header; no key: the routes answer 401
            await self.app(scope, receive, send)
            return
        cfg = self.memory.settings.server
        try:
            if len(given) > 1:
                raise InvalidInput(f"give one {HEADER} header, not {len(given)}")
            key = idem.clean_idempotency_key(_header_text(given[0]), cfg.idempotency_key_max_chars)
        except InvalidInput as exc:
            await _send(error_response(400, "invalid_idempotency_key", str(exc)), scope, send)
            return
        body, more = await _read_body(receive)
        if more is not None:  # the client went away before sending the whole body
            await self.app(scope, replay([more], receive), send)
            return
        request_digest = _fingerprint(scope, body)
        store, owner = self.memory.store, idem.KEY_OWNER + api_key.id
        now = self.memory.ctx.clock()
        try:
            got = await run_in_threadpool(idem.claim, store, cfg, now, owner, key, request_digest)
        except MemfoldError as exc:  # the store refused or failed: nothing ran
            await _send(memfold_error_response(exc), scope, send)
            return
        if isinstance(got, IdempotencyEntry):
            await _send(_answer(got, request_digest), scope, send)
            return
        await self._run(got, scope, replay([_body_message(body)], receive), send)

    async def _run(
        self, held: idem.Claimed, scope: ASGIScope, receive: Receive, send: Send
    ) -> None:
        """Run the route, store its response, then send it."""
        start: Message | None = None
        chunks: list[bytes] = []

        async def capture(message: Message) -> None:
            nonlocal start
            if message["type"] == "http.response.start":
                start = message
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))
            else:
                await send(message)

        try:
            await self.app(scope, receive, capture)
        except Exception:
            await self._keep(held, 500, "application/json", json.dumps(_INTERNAL))
            raise  # ServerErrorMiddleware logs it and answers the same 500
        if start is None:  # no response at all, an outcome unknown: the key stays claimed
            return
        status = int(start["status"])
        body = b"".join(chunks)
        if status in NOT_RUN:
            await self._release(held)
        else:
            content_type = _header(start.get("headers", []), b"content-type")
            await self._keep(held, status, content_type, body.decode("utf-8", "replace"))
        await send(start)
        await send({"type": "http.response.body", "body": body, "more_body": False})

    async def _release(self, held: idem.Claimed) -> None:
        try:
            await run_in_threadpool(idem.release, self.memory.store, held)
        except Exception:  # the refusal is still sent; the key stays claimed
            log.exception("could not release the %s %r", HEADER, held.key)

    async def _keep(
        self, held: idem.Claimed, status: int, content_type: str | None, body: str
    ) -> None:
        """Store the outcome; a store failure is logged and the client still gets the
        response (the key then stays claimed: engine/idempotency.py)."""
        store, cfg = self.memory.store, self.memory.settings.server
        try:
            kept = await run_in_threadpool(
                idem.finish, store, cfg, held, status, body, content_type
            )
        except Exception:
            log.exception("could not store the response for %s %r", HEADER, held.key)
            return
        if not kept:
            log.warning("%s %r: the claim expired before the response was stored", HEADER, held.key)


def _answer(entry: IdempotencyEntry, request_digest: str) -> Response:
    """The answer from a key already held (see the module docstring)."""
    if entry.fingerprint != request_digest:
        return error_response(
            422,
            "idempotency_key_reused",
            f"the {HEADER} {entry.key!r} was used for another request (method, path, query "
            "or body differ); a key names one request: use a new key",
        )
    if entry.state != idem.DONE or entry.status is None:
        return error_response(
            409,
            "idempotency_key_in_use",
            f"a request with the {HEADER} {entry.key!r} is still running (since "
            f"{entry.created_at.isoformat()}); retry when it is done",
            headers={"Retry-After": "1"},
        )
    body = entry.body or ""
    media = entry.content_type or "application/json"
    if media.startswith("application/json") and not _is_json(body):
        return error_response(
            410,
            "idempotent_response_erased",
            f"the request with the {HEADER} {entry.key!r} was done (status {entry.status}); "
            "its response is no longer kept (it quoted an erased memory)",
        )
    # The body as it was sent, not encoded again.
    return Response(body.encode("utf-8"), entry.status, {REPLAYED: "true"}, media)


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def _header_text(raw: bytes) -> str:
    """The header's value; a structured-field string (``"abc"``, the draft's form)
    without its quotes. Bytes outside ASCII stay visible to the key check."""
    text = raw.decode("latin-1")
    if len(text) >= 2 and text[0] == text[-1] == '"':
        text = text[1:-1].replace('\\"', '"').replace("\\\\", "\\")
    return text


def _fingerprint(scope: ASGIScope, body: bytes) -> str:
    query = sorted(parse_qsl(scope.get("query_string", b"").decode("latin-1"), True))
    try:
        canonical = json.dumps(json.loads(body), sort_keys=True, separators=(",", ":"))
        payload = b"json:" + canonical.encode()
    except ValueError:  # not JSON (or empty): the bytes as sent
        payload = b"raw:" + body
    return idem.fingerprint(
        scope["method"].encode(), scope["path"].encode(), json.dumps(query).encode(), payload
    )


def _header(headers: list[tuple[bytes, bytes]], name: bytes) -> str | None:
    return next((v.decode("latin-1") for k, v in headers if k.lower() == name), None)


async def _read_body(receive: Receive) -> tuple[bytes, Message | None]:
    """The whole request body; or what came instead of its end (a disconnect)."""
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return b"", message
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            return b"".join(chunks), None


def _body_message(body: bytes) -> Message:
    return {"type": "http.request", "body": body, "more_body": False}


async def _send(response: Response, scope: ASGIScope, send: Send) -> None:
    async def nothing() -> Message:  # these answers read no body
        return {"type": "http.disconnect"}

    await response(scope, nothing, send)


def document_idempotency_key(app: FastAPI) -> None:
    """List the optional header on every write operation of the OpenAPI schema."""
    base: Callable[[], dict[str, Any]] = app.openapi
    cfg_max = app.state.memory.settings.server.idempotency_key_max_chars

    def schema() -> dict[str, Any]:
        spec = base()
        for path, operations in spec.get("paths", {}).items():
            for method, operation in operations.items():
                if not takes_key(method.upper(), path):
                    continue
                params = operation.setdefault("parameters", [])
                if any(p.get("name") == HEADER for p in params):
                    continue
                params.append(
                    {
                        "name": HEADER,
                        "in": "header",
                        "required": False,
                        "schema": {"type": "string", "minLength": 1, "maxLength": cfg_max},
                        "description": "A key of the client's choosing: a retry with the same "
                        "key and request gets the first response back (Idempotent-Replayed: "
                        "true) instead of writing again; kept server.idempotency_ttl_s.",
                    }
                )
        return spec

    app.openapi = schema  # type: ignore[method-assign]
