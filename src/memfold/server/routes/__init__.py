"""The REST API's routes under ``/v1``, one module per resource. Every route needs a
key (401) and counts against its rate limit (429) before anything else runs."""

from __future__ import annotations

from fastapi import APIRouter, Depends

from memfold.server.limits import enforce_rate_limit
from memfold.server.routes import conversations, log, maintenance, memories, review, search


def api_router() -> APIRouter:
    router = APIRouter(prefix="/v1", dependencies=[Depends(enforce_rate_limit)])
    # search before memories: "/memories/search" must not match "/memories/{memory_id}"
    for module in (search, memories, log, review, conversations, maintenance):
        router.include_router(module.router)
    return router
