"""``POST /v1/memories/search``: hybrid search in one scope. Hits in the one shape
(model/views.py): id, text, score, created_at, and the ``fields`` asked for."""

from __future__ import annotations

from fastapi import APIRouter

from memfold.model import JSONDict, views
from memfold.server.auth import MemoryDep, request_scope
from memfold.server.responses import SearchOut
from memfold.server.routes.deps import ReadKey
from memfold.server.schemas import SearchRequest

router = APIRouter(prefix="/memories", tags=["memories"])


@router.post(
    "/search",
    summary="Search one scope (hybrid, vector or keyword)",
    response_model=SearchOut,
    response_model_exclude_unset=True,
)
def search_memories(body: SearchRequest, key: ReadKey, memory: MemoryDep) -> JSONDict:
    scope = request_scope(key, memory, body.user_id, body.agent_id, body.session_id)
    fields = views.fields_of(body.fields, match=True)
    hits = memory.search(
        body.query,
        user_id=scope.user_id,
        agent_id=scope.agent_id,
        session_id=scope.session_id,
        k=body.k,
        area=body.area,
        deep=body.deep,
        mode=body.mode,
        filters=body.filters,
        threshold=body.threshold,
        offset=body.offset,
    )
    return {"results": [views.hit(h, fields) for h in hits]}
