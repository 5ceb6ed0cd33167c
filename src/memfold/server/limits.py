"""The service's limits: request body size (413) and requests per key (429).

The body limit is ASGI middleware, so an oversize body is refused before anything
parses it: a ``Content-Length`` above the limit at once, without reading; a body sent
without one (chunked) is read up to the limit and refused as soon as it passes it.
The rate limit is a dependency of every ``/v1`` route, run right after the key is
authenticated: a moving window per key (the ``limits`` library, in memory, so per
server process) of ``server.rate_limit_per_minute`` requests in any 60 seconds.
"""

from __future__ import annotations

import json
import math
import time
from typing import Annotated

from fastapi import Depends, HTTPException, Request
from limits import RateLimitItemPerMinute
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from memfold.model import ApiKey
from memfold.server.asgi import replay
from memfold.server.auth import authenticate


class BodySizeLimit:
    """Refuse request bodies over ``max_bytes`` with 413, before the app reads them."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _content_length(scope)
        if declared is not None and declared > self.max_bytes:
            await self._refuse(send)
            return
        if declared is not None:
            await self.app(scope, _capped(receive, self.max_bytes), send)
            return
        # No length given: read the body here, up to the limit, and replay it.
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client went away
                await self.app(scope, replay([message], receive), send)
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                await self._refuse(send)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = {"type": "http.request", "body": b"".join(chunks), "more_body": False}
        await self.app(scope, replay([body], receive), send)

    async def _refuse(self, send: Send) -> None:
        payload = {
            "error": {
                "code": "payload_too_large",
                "message": f"the request body is over {self.max_bytes} bytes "
                "(server.max_body_bytes)",
            }
        }
        data = json.dumps(payload).encode()
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(data)).encode()),
            (b"connection", b"close"),
        ]
        await send({"type": "http.response.start", "status": 413, "headers": headers})
        await send({"type": "http.response.body", "body": data})


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", []):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


def _capped(receive: Receive, max_bytes: int) -> Receive:
    """A receive that stops at ``max_bytes`` even when a client sends more than its
    ``Content-Length`` said (the server normally refuses that itself)."""
    seen = 0

    async def capped() -> Message:
        nonlocal seen
        message = await receive()
        if message["type"] == "http.request":
            seen += len(message.get("body", b""))
            if seen > max_bytes:
                raise HTTPException(413, f"the request body is over {max_bytes} bytes")
        return message

    return capped


class RateLimiter:
    """``per_minute`` requests per key in any 60 seconds; 0 turns it off."""

    def __init__(self, per_minute: int) -> None:
        self.per_minute = per_minute
        self._item = RateLimitItemPerMinute(max(1, per_minute))
        self._limiter = MovingWindowRateLimiter(MemoryStorage())

    def hit(self, key_id: str) -> float | None:
        """Count one request of this key; None when allowed, else the seconds to wait."""
        if self.per_minute <= 0:
            return None
        if self._limiter.hit(self._item, key_id):
            return None
        stats = self._limiter.get_window_stats(self._item, key_id)
        return max(0.0, stats.reset_time - time.time())


def enforce_rate_limit(request: Request, key: Annotated[ApiKey, Depends(authenticate)]) -> None:
    """A dependency of every ``/v1`` route: 429 with ``Retry-After`` past the limit."""
    limiter: RateLimiter = request.app.state.rate_limiter
    wait = limiter.hit(key.id)
    if wait is not None:
        seconds = max(1, math.ceil(wait))
        raise HTTPException(
            status_code=429,
            detail=f"rate limit of {limiter.per_minute} requests per minute reached for "
            f"this key; retry in {seconds} s",
            headers={"Retry-After": str(seconds)},
        )
