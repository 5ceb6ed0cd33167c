"""The FastAPI application of ``memfold serve``: ``create_app(memory)``."""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware
from fastapi_offline import FastAPIOffline

from memfold import __version__
from memfold.memory import Memory
from memfold.server.auth import KeyFirst
from memfold.server.errors import install_error_handlers
from memfold.server.idempotency import Idempotency, document_idempotency_key
from memfold.server.limits import BodySizeLimit, RateLimiter
from memfold.server.mem0_routes import mem0_router
from memfold.server.paths import TrailingSlash
from memfold.server.review_page import router as review_page_router
from memfold.server.routes import api_router, document_bearer_auth
from memfold.server.routes.health import router as health_router


def create_app(memory: Memory) -> FastAPI:
    """The REST API (``/v1``), ``/health``, its OpenAPI docs (``/docs``) and the review
    page (``/review``), serving ``memory`` with its settings (``memory.settings.server``)."""
    # /docs and /redoc load Swagger UI and ReDoc from the package, not a CDN: they work
    # on a machine without internet access.
    app = FastAPIOffline(
        title="memfold",
        version=__version__,
        docs_url="/docs",
        redoc_url="/redoc",
        static_url="/docs-assets",
    )
    app.state.memory = memory
    cfg = memory.settings.server
    app.state.rate_limiter = RateLimiter(cfg.rate_limit_per_minute)
    install_error_handlers(app)
    app.include_router(api_router())
    app.include_router(mem0_router())  # mem0's platform routes, for its MemoryClient
    app.include_router(health_router)
    document_bearer_auth(app)
    document_idempotency_key(app)
    # Inside KeyFirst (the caller's key is known) and CORS (a replay gets its headers).
    app.add_middleware(Idempotency, memory=memory)
    if cfg.cors_origins:  # off by default: browsers refuse cross-origin calls
        app.add_middleware(
            CORSMiddleware,
            allow_origins=list(cfg.cors_origins),
            allow_methods=["GET", "POST", "PUT", "DELETE"],
            allow_headers=["Authorization", "Content-Type", "Idempotency-Key"],
            expose_headers=["Idempotent-Replayed"],
        )
    # Then a /v1 call without a valid key is 401 before its body is parsed.
    app.add_middleware(KeyFirst, memory=memory)
    # An oversize body is refused before anything reads it.
    app.add_middleware(BodySizeLimit, max_bytes=cfg.max_body_bytes)
    # Outermost: "/v1/memories/" is routed (and its key checked) as "/v1/memories".
    app.add_middleware(TrailingSlash)
    app.include_router(review_page_router)
    return app
