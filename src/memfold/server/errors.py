"""Errors as JSON with a stable code: ``{"error": {"code": ..., "message": ...}}``.

Every failure of the service answers in this one shape, whatever raised it: memfold's
own errors (memfold.errors), FastAPI's HTTPException (auth, roles, limits) and request
validation (422, which also lists each offending field under ``"fields"``). Clients
branch on ``code``; ``message`` is for people and may change.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from memfold.errors import (
    BudgetExhausted,
    ConfigError,
    ConflictError,
    EmbeddingMismatch,
    InvalidInput,
    LLMError,
    LLMRateLimited,
    MemfoldError,
    NotFound,
    ReadOnlyStore,
    StoreUnavailable,
    UndoRefused,
)

log = logging.getLogger("memfold.server")

# memfold's errors, most specific first: (class, HTTP status, code).
ERROR_CODES: tuple[tuple[type[MemfoldError], int, str], ...] = (
    (UndoRefused, 409, "undo_refused"),
    (ConflictError, 409, "conflict"),
    (ReadOnlyStore, 409, "read_only"),
    (EmbeddingMismatch, 409, "embedding_mismatch"),
    (NotFound, 404, "not_found"),
    (InvalidInput, 422, "invalid_input"),
    (StoreUnavailable, 503, "store_unavailable"),
    (BudgetExhausted, 503, "llm_budget_exhausted"),
    (LLMRateLimited, 503, "llm_rate_limited"),
    (LLMError, 502, "llm_error"),
    (ConfigError, 500, "config_error"),
)

# The code of each HTTP status FastAPI or the limits raise by themselves.
STATUS_CODES: dict[int, str] = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "payload_too_large",
    415: "unsupported_media_type",
    422: "invalid_input",
    429: "rate_limited",
}


def error_response(
    status: int,
    code: str,
    message: str,
    *,
    headers: Mapping[str, str] | None = None,
    **extra: Any,
) -> JSONResponse:
    """The one error shape; ``extra`` adds fields beside code and message."""
    body = {"error": {"code": code, "message": message, **extra}}
    return JSONResponse(body, status_code=status, headers=dict(headers or {}))


def memfold_error_response(exc: MemfoldError) -> JSONResponse:
    for kind, status, code in ERROR_CODES:
        if isinstance(exc, kind):
            extra: dict[str, Any] = {}
            if isinstance(exc, UndoRefused):
                extra["blocking_log_ids"] = list(exc.blocking_log_ids)
            return error_response(status, code, str(exc), **extra)
    log.error("unmapped memfold error: %s: %s", type(exc).__name__, exc)
    return error_response(500, "internal_error", str(exc))


def _field_name(loc: tuple[int | str, ...] | list[int | str]) -> str:
    """``("body", "metadata", "k")`` -> ``"metadata.k"``; query/path keep their prefix
    (``"query.limit"``) so a client sees where the value came from."""
    parts = [str(p) for p in loc]
    if parts and parts[0] == "body":
        parts = parts[1:] or ["body"]
    return ".".join(parts)


def validation_response(exc: RequestValidationError) -> JSONResponse:
    fields = [
        {
            # A JSON syntax error's loc holds a character position, not a field.
            "field": "body" if err.get("type") == "json_invalid" else _field_name(err["loc"]),
            "message": err.get("msg", ""),
            "type": err.get("type", ""),
        }
        for err in exc.errors()
    ]
    first = fields[0] if fields else {"field": "body", "message": "invalid request"}
    if first.get("type") == "json_invalid":
        message = "the request body is not valid JSON"
    else:
        message = f"{first['field']}: {first['message']}"
        if len(fields) > 1:
            message += f" (and {len(fields) - 1} more)"
    return error_response(422, "invalid_input", message, fields=fields)


def http_error_response(exc: StarletteHTTPException) -> JSONResponse:
    code = STATUS_CODES.get(exc.status_code, "http_error")
    message = exc.detail if isinstance(exc.detail, str) else str(exc.detail)
    return error_response(exc.status_code, code, message, headers=exc.headers)


def with_detail(request: Request, response: JSONResponse) -> JSONResponse:
    """Under ``/mem0`` (mem0's routes) the message is also ``detail``, where mem0's
    client reads it for its exceptions."""
    if not request.url.path.startswith("/mem0/"):
        return response
    body = json.loads(bytes(response.body))
    body["detail"] = body["error"]["message"]
    headers = {k: v for k, v in response.headers.items() if k.lower() != "content-length"}
    return JSONResponse(body, status_code=response.status_code, headers=headers)


def install_error_handlers(app: FastAPI) -> None:
    """Register the handlers: every error leaves the app in the shape above."""

    async def on_memfold(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, MemfoldError)
        return with_detail(request, memfold_error_response(exc))

    async def on_validation(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        return with_detail(request, validation_response(exc))

    async def on_http(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, StarletteHTTPException)
        return with_detail(request, http_error_response(exc))

    async def on_unexpected(request: Request, exc: Exception) -> JSONResponse:
        # The traceback goes to the server's log, never to the client.
        log.exception("%s %s failed", request.method, request.url.path, exc_info=exc)
        return error_response(500, "internal_error", "internal server error")

    app.add_exception_handler(MemfoldError, on_memfold)
    app.add_exception_handler(RequestValidationError, on_validation)
    app.add_exception_handler(StarletteHTTPException, on_http)
    app.add_exception_handler(HTTPException, on_http)
    app.add_exception_handler(Exception, on_unexpected)
