"""The FastAPI application of ``memfold serve``: ``create_app(memory)``."""

from __future__ import annotations

from fastapi import FastAPI

from memfold.memory import Memory


def create_app(memory: Memory) -> FastAPI:
    """The REST API (``/v1``), its OpenAPI docs (``/docs``) and the review page
    (``/review``), serving ``memory`` with its settings (``memory.settings.server``)."""
    app = FastAPI(title="memfold", version="0.1.0", docs_url="/docs")
    app.state.memory = memory
    return app
