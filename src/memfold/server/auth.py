"""Who is calling, and which scope a request may touch.

Every request carries ``Authorization: Bearer <token>`` (engine/keys.py makes tokens).
A missing, unknown or revoked key is 401. A read or write key is bound to its user (and
agent, when the key names one): a request that names another scope, or an id whose
memory lives in another scope, is 404 with the same message as an unknown id, so a key
learns nothing about other tenants. An admin key may name any scope.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

from fastapi import Depends, HTTPException, Request
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool
from starlette.types import ASGIApp, Receive, Send
from starlette.types import Scope as ASGIScope

from memfold.engine.ids import resolve_visible_id
from memfold.engine.keys import verify_key
from memfold.errors import NotFound
from memfold.memory import Memory
from memfold.model import ApiKey, MemoryRecord, Role, Scope
from memfold.policy.validate import clean_id, clean_scope


def get_memory(request: Request) -> Memory:
    """The Memory the app serves (create_app puts it on app.state)."""
    memory: Memory = request.app.state.memory
    return memory


# Route parameters: ``memory: MemoryDep``.
MemoryDep = Annotated[Memory, Depends(get_memory)]


def bearer_token(request: Request) -> str | None:
    """The key of ``Authorization: Bearer <key>``, or ``Token <key>`` as mem0's client
    sends it."""
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() not in ("bearer", "token") or not token.strip():
        return None
    return token.strip()


_KEY_REQUIRED = "a valid API key is required: Authorization: Bearer <key>"


def authenticate(request: Request, memory: MemoryDep) -> ApiKey:
    """The calling key (checked already by ``KeyFirst`` under /v1); 401 when missing,
    unknown or revoked."""
    key: ApiKey | None = getattr(request.state, "api_key", None)
    if key is None:
        key = verify_key(memory.store, bearer_token(request))
    if key is None:
        raise HTTPException(
            status_code=401, detail=_KEY_REQUIRED, headers={"WWW-Authenticate": "Bearer"}
        )
    request.state.api_key = key
    return key


class KeyFirst:
    """ASGI middleware for the paths under ``prefixes`` (``/v1``, mem0's ``/mem0``): the
    key is checked before anything reads the request, so a call without a valid key is
    401 whatever its body (FastAPI parses and validates a JSON body before any
    dependency runs, which would answer 422 first). The key found is kept for ``authenticate``."""

    def __init__(
        self, app: ASGIApp, memory: Memory, prefixes: tuple[str, ...] = ("/v1/", "/mem0/")
    ) -> None:
        self.app = app
        self.memory = memory
        self.prefixes = prefixes

    async def __call__(self, scope: ASGIScope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not str(scope.get("path", "")).startswith(self.prefixes):
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        token = bearer_token(request)
        # the store lookup is blocking I/O: off the event loop, like the sync routes
        key = await run_in_threadpool(verify_key, self.memory.store, token)
        if key is None:
            body: dict[str, object] = {"error": {"code": "unauthorized", "message": _KEY_REQUIRED}}
            if str(scope["path"]).startswith("/mem0/"):  # where mem0's client reads it
                body["detail"] = _KEY_REQUIRED
            response = JSONResponse(body, status_code=401, headers={"WWW-Authenticate": "Bearer"})
            await response(scope, receive, send)
            return
        scope.setdefault("state", {})["api_key"] = key
        await self.app(scope, receive, send)


def require(role: Role) -> Callable[..., ApiKey]:
    """A dependency: the calling key, which must hold at least ``role`` (else 403)."""

    def check(key: Annotated[ApiKey, Depends(authenticate)]) -> ApiKey:
        if not key.role.allows(role):
            raise HTTPException(
                status_code=403,
                detail=f"this endpoint needs {_article(role.value)} {role.value} key",
            )
        return key

    return check


def request_scope(
    key: ApiKey,
    memory: Memory,
    user_id: str | None,
    agent_id: str | None,
    session_id: str | None,
) -> Scope:
    """The scope a request may use: the key's own ids fill what the request leaves
    out; naming another user or agent is NotFound (404). An admin key without a user
    takes the ids as given (memfold's default user when none)."""
    if key.user_id is not None:
        if user_id is not None and user_id != key.user_id:
            raise NotFound(f"no scope user_id={user_id!r}")
        user_id = key.user_id
        if key.agent_id is not None:
            if agent_id is not None and agent_id != key.agent_id:
                raise NotFound(f"no scope agent_id={agent_id!r}")
            agent_id = key.agent_id
    default = memory.settings.store.default_user_id
    return clean_scope(user_id, agent_id, session_id, default_user_id=default)


def may_see(key: ApiKey, scope: Scope) -> bool:
    """Whether a memory (or log row, review item) of ``scope`` is within the key's."""
    if key.user_id is None:
        return True
    if scope.user_id != key.user_id:
        return False
    return key.agent_id is None or scope.agent_id == key.agent_id


def owned_memory(key: ApiKey, memory: Memory, memory_id: str) -> MemoryRecord:
    """The memory with this id, or the one id starting with this prefix (at least
    ``store.id_prefix_min_chars`` characters) among the memories the key may see;
    otherwise NotFound with the message an unknown id gets. Another tenant's ids are
    never matched nor named."""
    given = clean_id(memory_id, "memory id")
    stored = resolve_visible_id(
        memory.store,
        given,
        min_chars=memory.settings.store.id_prefix_min_chars,
        visible=lambda record: may_see(key, record.scope),
    )
    if stored is None:
        raise NotFound(f"no memory with id {given!r}")
    return memory.get(stored.id)


def _article(word: str) -> str:
    return "an" if word[:1] in "aeiou" else "a"
