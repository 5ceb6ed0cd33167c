"""Response bodies of mem0's routes under ``/mem0`` (mem0 2.x's shapes, from
memfold/mem0/shapes.py and calls.py) and of ``/health`` (see responses.py: how the
routes use them). mem0 leaves a key out rather than sending null: so do these."""

from __future__ import annotations

from pydantic import Field

from memfold.server.responses import JSONObject, Number, Shape


class Mem0PingOut(Shape):
    status: str
    org_id: str = Field(description="memfold has no org: the service's name")
    project_id: str
    user_email: str | None


class Mem0MemoryOut(Shape):
    """One memory as mem0 returns it; keys with no value are left out."""

    id: str
    memory: str = Field(description="its text")
    hash: str = Field(description="MD5 of the text")
    metadata: JSONObject | None
    created_at: str
    updated_at: str
    score: Number | None = Field(None, description="search hits only")
    user_id: str | None = None
    agent_id: str | None = None
    run_id: str | None = Field(None, description="memfold's session_id")
    expiration_date: str | None = Field(None, description="YYYY-MM-DD")


class Mem0EventOut(Shape):
    id: str
    memory: str
    event: str = Field(description="ADD, UPDATE, DELETE or NONE")


class Mem0AddedOut(Shape):
    results: list[Mem0EventOut]


class Mem0SearchOut(Shape):
    results: list[Mem0MemoryOut] = Field(description="best first")


class Mem0PageOut(Shape):
    """One page of get_all (pages count from 1)."""

    count: int = Field(description="memories on every page")
    next: str | None = Field(description="the next page's URL")
    previous: str | None
    results: list[Mem0MemoryOut]


class Mem0MessageOut(Shape):
    message: str


class Mem0HistoryRowOut(Shape):
    """One event of a memory's history, oldest first."""

    id: str
    memory_id: str
    old_memory: str | None
    new_memory: str | None
    event: str = Field(description="ADD, UPDATE or DELETE")
    created_at: str
    updated_at: str
    is_deleted: bool
    actor_id: str | None
    role: str | None


# /health --------------------------------------------------------------------------------


class HealthOut(Shape):
    status: str = Field(description='"ok"')
    version: str = Field(description="memfold's version")
    schema_version: int = Field(description="the store's schema version")


class HealthUnavailableOut(Shape):
    status: str = Field(description='"unavailable"')
    version: str
