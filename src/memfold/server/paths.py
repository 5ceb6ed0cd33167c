"""ASGI middleware: a path with a trailing slash is served as the path without it.

Starlette answers ``POST /v1/memories/`` with a 307 redirect to ``/v1/memories``, which
many HTTP clients do not follow for a POST (or follow without the body); no memfold
route ends with a slash, so the slash is dropped before routing instead."""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send


class TrailingSlash:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            path = str(scope.get("path", ""))
            if len(path) > 1 and path.endswith("/"):
                trimmed = path.rstrip("/") or "/"
                raw = scope.get("raw_path")
                scope = {**scope, "path": trimmed}
                if isinstance(raw, bytes):
                    scope["raw_path"] = raw.rstrip(b"/") or b"/"
        await self.app(scope, receive, send)
