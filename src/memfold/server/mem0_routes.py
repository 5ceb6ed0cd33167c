"""mem0's platform API under ``/mem0``: the routes mem0's ``MemoryClient`` calls, so
that ``MemoryClient(api_key=<memfold key>, host="http://127.0.0.1:8000/mem0")`` works
against ``memfold serve`` (docs/mem0.md).

Under a prefix because three of mem0's paths (``/v1/memories/{id}/``, its history,
``DELETE /v1/memories/``) are memfold's own with memfold's shapes. The key is the
caller's memfold key, sent as mem0 sends it (``Authorization: Token <key>``) or as a
bearer; a key bound to a user sees only its own memories, as on ``/v1``. The bodies
take mem0's field names; a field memfold has no meaning for is 422 naming it.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from pydantic import Field

from memfold.errors import InvalidInput
from memfold.mem0 import calls, shapes
from memfold.mem0 import filters as mem0_filters
from memfold.memory import Memory
from memfold.model import ApiKey, JSONDict, Scope
from memfold.server.auth import MemoryDep, owned_memory, request_scope
from memfold.server.limits import enforce_rate_limit
from memfold.server.responses_mem0 import (
    Mem0AddedOut,
    Mem0HistoryRowOut,
    Mem0MemoryOut,
    Mem0MessageOut,
    Mem0PageOut,
    Mem0PingOut,
    Mem0SearchOut,
)
from memfold.server.routes.deps import ReadKey, WriteKey, page_size
from memfold.server.schemas import Body, ChatMessageIn, JSONObject, error_responses, message_dicts

PREFIX = "/mem0"


class Ids(Body):
    """mem0's entity ids, at the top level or in ``filters`` (mem0 2.x)."""

    user_id: str | None = None
    agent_id: str | None = None
    run_id: str | None = Field(None, description="memfold's session_id")
    filters: JSONObject | None = None


class AddBody(Ids):
    messages: list[ChatMessageIn] = Field(min_length=1)
    metadata: JSONObject | None = None
    infer: bool = True
    expiration_date: str | None = Field(None, description="YYYY-MM-DD: expires then")


class SearchBody(Ids):
    query: str
    top_k: int = Field(calls.DEFAULT_TOP_K, ge=0)
    threshold: float | None = Field(None, ge=0, le=1, description="least cosine similarity")
    keyword_search: bool = False
    show_expired: bool = False
    rerank: bool = Field(False, description="memfold has no reranker: only false")
    latest_only: bool = Field(True, description="memfold serves the latest only: only true")


class GetAllBody(Ids):
    show_expired: bool = False
    latest_only: bool = Field(True, description="memfold serves the latest only: only true")


class UpdateBody(Body):
    text: str | None = None
    metadata: JSONObject | None = None


def mem0_router() -> APIRouter:
    router = APIRouter(
        prefix=PREFIX,
        tags=["mem0"],
        dependencies=[Depends(enforce_rate_limit)],
        responses=error_responses(401, 403, 404, 413, 422, 429, 502, 503),
    )
    for route in _ROUTES:
        # a key a route leaves out stays out (mem0 sends no nulls for absent values)
        router.add_api_route(**route, response_model_exclude_unset=True)
    return router


def _scope(key: ApiKey, memory: Memory, body: Ids, *, where_allowed: bool) -> tuple[Scope, Any]:
    ids, where = mem0_filters.split(body.filters, required=False)
    given = mem0_filters.Ids(
        _one(body.user_id, ids.user_id, "user_id"),
        _one(body.agent_id, ids.agent_id, "agent_id"),
        _one(body.run_id, ids.run_id, "run_id"),
    )
    if where is not None and not where_allowed:
        raise InvalidInput("filters here take user_id, agent_id and run_id only")
    scope = request_scope(key, memory, given.user_id, given.agent_id, given.run_id)
    return scope, where


def _one(top: str | None, inside: str | None, name: str) -> str | None:
    top = mem0_filters.entity_id(top, name)
    if top is not None and inside is not None and top != inside:
        raise InvalidInput(f"{name} given twice with different values")
    return top if top is not None else inside


def ping(key: ReadKey) -> JSONDict:
    """What mem0's client asks first: the key is valid. mem0's client wants an org and a
    project; memfold has neither, so both name the service (nothing reads them here)."""
    return {"status": "ok", "org_id": "memfold", "project_id": "memfold", "user_email": None}


def add(body: AddBody, key: WriteKey, memory: MemoryDep) -> JSONDict:
    scope, _ = _scope(key, memory, body, where_allowed=False)
    return calls.add(
        memory,
        scope,
        message_dicts(body.messages),
        metadata=body.metadata,
        infer=body.infer,
        expires_at=body.expiration_date,
    )


def search(body: SearchBody, key: ReadKey, memory: MemoryDep) -> JSONDict:
    _only_latest(body.latest_only, body.rerank)
    scope, where = _scope(key, memory, body, where_allowed=True)
    return calls.search(
        memory,
        scope,
        body.query,
        where=where,
        top_k=body.top_k,
        threshold=body.threshold,
        show_expired=body.show_expired,
        keyword=body.keyword_search,
    )


def get_all(
    body: GetAllBody,
    request: Request,
    key: ReadKey,
    memory: MemoryDep,
    page: Annotated[int, Query(ge=1)] = 1,
    page_size_: Annotated[int, Query(alias="page_size")] = 100,
) -> JSONDict:
    """mem0's page: ``{"count", "next", "previous", "results"}`` (pages from 1)."""
    _only_latest(body.latest_only, False)
    size = page_size(memory, page_size_, "page_size")
    scope, where = _scope(key, memory, body, where_allowed=True)
    offset = (page - 1) * size
    results = calls.get_all(
        memory, scope, where=where, top_k=size, offset=offset, show_expired=body.show_expired
    )
    total = calls.count(memory, scope, where)
    link = request.url.remove_query_params("page")
    return {
        "count": total,
        "next": str(link.include_query_params(page=page + 1)) if offset + size < total else None,
        "previous": str(link.include_query_params(page=page - 1)) if page > 1 else None,
        "results": results,
    }


def get(memory_id: str, key: ReadKey, memory: MemoryDep) -> JSONDict:
    return shapes.item(owned_memory(key, memory, memory_id))


def update(memory_id: str, body: UpdateBody, key: WriteKey, memory: MemoryDep) -> JSONDict:
    record = owned_memory(key, memory, memory_id)
    return shapes.item(calls.update(memory, record, text=body.text, metadata=body.metadata))


def delete(
    memory_id: str,
    key: WriteKey,
    memory: MemoryDep,
    delete_linked: Annotated[bool, Query(description="superseded ones are never served")] = False,
) -> JSONDict:
    record = owned_memory(key, memory, memory_id)
    memory.delete(record.id, reason="mem0 delete")
    return dict(shapes.DELETED)


def delete_all(
    key: WriteKey,
    memory: MemoryDep,
    user_id: Annotated[str | None, Query()] = None,
    agent_id: Annotated[str | None, Query()] = None,
    run_id: Annotated[str | None, Query()] = None,
) -> JSONDict:
    """Archive every memory of the scope (an id left out matches any; undoable)."""
    ids = [
        mem0_filters.entity_id(v, n)
        for v, n in ((user_id, "user_id"), (agent_id, "agent_id"), (run_id, "run_id"))
    ]
    if key.user_id is None and not any(ids):
        raise InvalidInput("name the scope to delete: user_id, agent_id or run_id")
    if key.user_id is not None:
        scope = request_scope(key, memory, *ids)
        ids = [scope.user_id, scope.agent_id, scope.session_id]
    memory.delete_all(user_id=ids[0], agent_id=ids[1], session_id=ids[2], reason="mem0")
    return dict(shapes.ALL_DELETED)


def history(memory_id: str, key: ReadKey, memory: MemoryDep) -> list[JSONDict]:
    return calls.history(memory, owned_memory(key, memory, memory_id))


def _only_latest(latest_only: bool, rerank: bool) -> None:
    if not latest_only:
        raise InvalidInput("latest_only=false: memfold serves superseded memories only to undo")
    if rerank:
        raise InvalidInput("rerank: memfold has no reranker")


_ROUTES: list[dict[str, Any]] = [
    {
        "path": "/v1/ping",
        "endpoint": ping,
        "response_model": Mem0PingOut,
        "methods": ["GET"],
        "summary": "mem0: check the key",
    },
    {
        "path": "/v3/memories/add",
        "endpoint": add,
        "response_model": Mem0AddedOut,
        "methods": ["POST"],
        "summary": "mem0: add",
    },
    {
        "path": "/v3/memories/search",
        "endpoint": search,
        "response_model": Mem0SearchOut,
        "methods": ["POST"],
        "summary": "mem0: search",
    },
    {
        "path": "/v3/memories",
        "endpoint": get_all,
        "response_model": Mem0PageOut,
        "methods": ["POST"],
        "summary": "mem0: get_all",
    },
    {
        "path": "/v1/memories",
        "endpoint": delete_all,
        "response_model": Mem0MessageOut,
        "methods": ["DELETE"],
        "summary": "mem0: delete_all",
    },
    {
        "path": "/v1/memories/{memory_id}",
        "endpoint": get,
        "response_model": Mem0MemoryOut,
        "methods": ["GET"],
        "summary": "mem0: get",
    },
    {
        "path": "/v1/memories/{memory_id}",
        "endpoint": update,
        "response_model": Mem0MemoryOut,
        "methods": ["PUT"],
        "summary": "mem0: update",
    },
    {
        "path": "/v1/memories/{memory_id}",
        "endpoint": delete,
        "response_model": Mem0MessageOut,
        "methods": ["DELETE"],
        "summary": "mem0: delete",
    },
    {
        "path": "/v1/memories/{memory_id}/history",
        "endpoint": history,
        "response_model": list[Mem0HistoryRowOut],
        "methods": ["GET"],
        "summary": "mem0: history",
    },
]
