"""The REST API's routes under ``/v1``, one module per resource. Every route needs a
key (401) and counts against its rate limit (429) before anything else runs."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, FastAPI
from fastapi.openapi.utils import get_openapi

from memfold.server.limits import enforce_rate_limit
from memfold.server.routes import conversations, links, log, maintenance, memories, review, search
from memfold.server.schemas import error_responses


def api_router() -> APIRouter:
    router = APIRouter(
        prefix="/v1",
        dependencies=[Depends(enforce_rate_limit)],
        # documented as sent (FastAPI's default 422 body is one the service never sends)
        responses=error_responses(401, 403, 404, 409, 413, 422, 429, 502, 503),
    )
    # search before memories: "/memories/search" must not match "/memories/{memory_id}"
    for module in (search, memories, links, log, review, conversations, maintenance):
        router.include_router(module.router)
    return router


def document_bearer_auth(app: FastAPI) -> None:
    """Declare the bearer key in the OpenAPI schema, so /docs has an Authorize button
    and every /v1 operation lists it (authentication itself is auth.authenticate)."""

    def schema() -> dict[str, Any]:
        if app.openapi_schema is None:
            spec = get_openapi(title=app.title, version=app.version, routes=app.routes)
            schemes = spec.setdefault("components", {}).setdefault("securitySchemes", {})
            schemes["bearer"] = {"type": "http", "scheme": "bearer", "bearerFormat": "mf_..."}
            for path, operations in spec.get("paths", {}).items():
                if path.startswith(("/v1/", "/mem0/")):
                    for operation in operations.values():
                        operation["security"] = [{"bearer": []}]
            app.openapi_schema = spec
        return app.openapi_schema

    app.openapi = schema  # type: ignore[method-assign]
