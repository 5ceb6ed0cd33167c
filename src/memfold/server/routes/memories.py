"""``/v1/memories``: add (text or messages), list, get, update, delete, delete all,
history and feedback. Ids are checked with owned_memory (another scope's id is 404),
scopes with request_scope."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from memfold.errors import InvalidInput
from memfold.model import AddResult, JSONDict, views
from memfold.server.auth import MemoryDep, owned_memory, request_scope
from memfold.server.responses import (
    DeletedAllOut,
    LogIdsOut,
    LogRowsOut,
    MemoryOut,
    MemoryPageOut,
    MessagesAddedOut,
    TextAddedOut,
)
from memfold.server.routes.deps import Count, ReadKey, WriteKey, json_query, page_size
from memfold.server.schemas import AddRequest, FeedbackRequest, UpdateRequest, message_dicts
from memfold.server.visibility import log_visible

router = APIRouter(prefix="/memories", tags=["memories"])

UserQ = Annotated[str | None, Query(description="user_id (a key bound to a user: its own)")]
AgentQ = Annotated[str | None, Query()]
SessionQ = Annotated[str | None, Query()]


def add_result_dict(result: AddResult) -> JSONDict:
    return {
        "memory": result.memory.to_dict(),
        "decision": None if result.decision is None else result.decision.to_dict(),
        "log_id": result.log_id,
        "job_id": result.job_id,
        "warnings": list(result.warnings),
    }


@router.post(
    "",
    summary="Add a memory (text) or memories from messages (mem0's shape)",
    response_model=TextAddedOut | MessagesAddedOut,
    response_model_exclude_unset=True,
)
def add_memory(body: AddRequest, key: WriteKey, memory: MemoryDep) -> JSONDict:
    scope = request_scope(key, memory, body.user_id, body.agent_id, body.session_id)
    options = {
        "user_id": scope.user_id,
        "agent_id": scope.agent_id,
        "session_id": scope.session_id,
        "area": body.area,
        "category": body.category,
        "importance": body.importance,
        "sources": body.sources,
        "metadata": body.metadata,
        "created_at": body.created_at,
        "expires_at": body.expires_at,
        "ttl": body.ttl,
    }
    if body.messages is not None:
        done = memory.add(messages=message_dicts(body.messages), infer=body.infer, **options)  # type: ignore[arg-type]
        return done.to_dict()
    return add_result_dict(memory.add(body.text, **options))  # type: ignore[arg-type]


@router.get(
    "",
    summary="List the memories of a scope, oldest first (id, text, created_at)",
    response_model=MemoryPageOut,
    response_model_exclude_unset=True,
)
def list_memories(
    key: ReadKey,
    memory: MemoryDep,
    user_id: UserQ = None,
    agent_id: AgentQ = None,
    session_id: SessionQ = None,
    status: Annotated[str | None, Query(description="active (default), ... or 'all'")] = "active",
    area: Annotated[str | None, Query()] = None,
    limit: Annotated[int, Query()] = 100,
    offset: Count = 0,
    filters: Annotated[str | None, Query(description="metadata filter as JSON")] = None,
    fields: Annotated[
        str | None, Query(description='more fields by name, comma-separated, or "all"')
    ] = None,
) -> JSONDict:
    scope = request_scope(key, memory, user_id, agent_id, session_id)
    size = page_size(memory, limit)
    shown = views.fields_of(fields, match=False)
    records = memory.list(
        user_id=scope.user_id,
        agent_id=scope.agent_id,
        session_id=scope.session_id,
        status=None if status == "all" else status,
        area=area,
        limit=size,
        offset=offset,
        filters=json_query(filters, "filters"),
    )
    more = len(records) == size
    return {
        "results": views.rows(records, shown),
        "next_offset": offset + size if more else None,
    }


@router.delete(
    "",
    summary="Archive every active memory of a scope (undoable)",
    response_model=DeletedAllOut,
    response_model_exclude_unset=True,
)
def delete_all_memories(
    key: WriteKey,
    memory: MemoryDep,
    user_id: UserQ = None,
    agent_id: AgentQ = None,
    session_id: SessionQ = None,
    reason: Annotated[str, Query()] = "",
) -> JSONDict:
    if key.user_id is None and user_id is None and agent_id is None and session_id is None:
        raise InvalidInput("name the scope to archive: user_id, agent_id or session_id")
    if key.user_id is not None:  # bound: its own user (and agent) fill in, others are 404
        scope = request_scope(key, memory, user_id, agent_id, session_id)
        user_id, agent_id, session_id = scope.user_id, scope.agent_id, scope.session_id
    # An id left out matches any: user_id alone covers that user's agents and sessions.
    done = memory.delete_all(
        user_id=user_id, agent_id=agent_id, session_id=session_id, reason=reason
    )
    return {"deleted": list(done.deleted), "log_ids": list(done.log_ids)}


@router.get(
    "/{memory_id}",
    summary="One memory, whatever its status",
    response_model=MemoryOut,
    response_model_exclude_unset=True,
)
def get_memory(memory_id: str, key: ReadKey, memory: MemoryDep) -> JSONDict:
    return owned_memory(key, memory, memory_id).to_dict()


@router.put(
    "/{memory_id}",
    summary="Edit a memory (version + 1, logged, undoable)",
    response_model=MemoryOut,
    response_model_exclude_unset=True,
)
def update_memory(
    memory_id: str, body: UpdateRequest, key: WriteKey, memory: MemoryDep
) -> JSONDict:
    record = owned_memory(key, memory, memory_id)
    updated = memory.update(
        record.id,
        text=body.text,
        area=body.area,
        importance=body.importance,
        metadata=body.metadata,
        reason=body.reason,
    )
    return updated.to_dict()


@router.delete(
    "/{memory_id}",
    summary="Archive a memory (soft delete, undoable)",
    response_model=MemoryOut,
    response_model_exclude_unset=True,
)
def delete_memory(
    memory_id: str, key: WriteKey, memory: MemoryDep, reason: Annotated[str, Query()] = ""
) -> JSONDict:
    record = owned_memory(key, memory, memory_id)
    return memory.delete(record.id, reason=reason).to_dict()


@router.get(
    "/{memory_id}/history",
    summary="Every log row that touched a memory, oldest first",
    response_model=LogRowsOut,
    response_model_exclude_unset=True,
)
def memory_history(memory_id: str, key: ReadKey, memory: MemoryDep) -> JSONDict:
    record = owned_memory(key, memory, memory_id)
    rows = memory.history(record.id)
    return {"results": [r.to_dict() for r in rows if log_visible(key, memory, r)]}


@router.post(
    "/{memory_id}/feedback",
    summary="Recall feedback: used, ignored, contradicted, miss",
    response_model=LogIdsOut,
    response_model_exclude_unset=True,
)
def memory_feedback(
    memory_id: str, body: FeedbackRequest, key: WriteKey, memory: MemoryDep
) -> JSONDict:
    record = owned_memory(key, memory, memory_id)
    return {"log_ids": memory.feedback(record.id, body.kind, body.context)}
