"""``POST /v1/memories/search``: hybrid search in one scope (mem0's search route)."""

from __future__ import annotations

from fastapi import APIRouter

from memfold.model import JSONDict, SearchHit
from memfold.server.auth import MemoryDep, request_scope
from memfold.server.routes.deps import ReadKey
from memfold.server.schemas import SearchRequest

router = APIRouter(prefix="/memories", tags=["memories"])


def hit_dict(hit: SearchHit) -> JSONDict:
    return {
        "memory": hit.memory.to_dict(),
        "score": hit.score,
        "vector_score": hit.vector_score,
        "keyword_rank": hit.keyword_rank,
    }


@router.post("/search", summary="Search one scope (hybrid, vector or keyword)")
def search_memories(body: SearchRequest, key: ReadKey, memory: MemoryDep) -> JSONDict:
    scope = request_scope(key, memory, body.user_id, body.agent_id, body.session_id)
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
    return {"results": [hit_dict(h) for h in hits]}
