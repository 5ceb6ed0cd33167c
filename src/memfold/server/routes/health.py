"""``GET /health``: whether the service answers and its store can be read; no key
needed, and nothing said of the store beyond that (a load balancer's probe)."""

from __future__ import annotations

import logging

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from memfold import __version__
from memfold.model import JSONDict
from memfold.server.auth import MemoryDep
from memfold.server.responses_mem0 import HealthOut, HealthUnavailableOut

log = logging.getLogger("memfold.server")

router = APIRouter(tags=["health"])


@router.get(
    "/health",
    summary="Liveness and store check (no key)",
    response_model=HealthOut,
    response_model_exclude_unset=True,
    responses={503: {"model": HealthUnavailableOut, "description": "the store could not be read"}},
)
def health(memory: MemoryDep) -> JSONDict | JSONResponse:
    try:
        schema = memory.store.schema_version()
    except Exception as exc:  # a probe must answer, whatever broke
        log.warning("health check: the store could not be read: %s", type(exc).__name__)
        body = {"status": "unavailable", "version": __version__}
        return JSONResponse(body, status_code=503)
    return {"status": "ok", "version": __version__, "schema_version": schema}
