"""Response bodies of the REST API (pydantic), for ``/openapi.json`` and a check of
what is sent: each route names its model with ``response_model=``, and
``response_model_exclude_unset=True`` (a key the route leaves out stays out).

The routes still build the records' ``to_dict()``; a model declares each key those send,
in their order (tests/server/test_openapi.py holds the two together: a key a model did
not declare would be dropped). Open-ended content (metadata, a log row's snapshots)
stays a JSON object. Review, lifecycle and conversation bodies: responses_review.py;
mem0's and ``/health``: responses_mem0.py.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import (
    BaseModel,
    Field,
    WithJsonSchema,
)

from memfold.model import Action, Area, Category, CategorySource, Status, Tier

JSONObject = dict[str, Any]

#: A JSON number sent as it is: an int stays an int (``float`` would send ``1`` as ``1.0``).
Number = Annotated[int | float, WithJsonSchema({"type": "number"})]


class Shape(BaseModel):
    """A body of fixed keys (pydantic's default: a key not declared is not sent)."""


class CallerFields(BaseModel, extra="allow"):
    """A body whose keys the caller picks (``fields``): the declared keys first, then any
    other the route sent."""


# memories ------------------------------------------------------------------------------


class MemoryOut(Shape):
    """One memory, every field (``MemoryRecord.to_dict()``)."""

    id: str
    user_id: str | None
    agent_id: str | None
    session_id: str | None
    text: str
    area: Area
    category: Category
    importance: Number = Field(description="0..1")
    stability: Number = Field(description="how slowly it fades")
    access_count: int
    last_access_at: str | None = Field(description="ISO date/time")
    created_at: str = Field(description="ISO date/time")
    updated_at: str
    valid_from: str | None
    valid_to: str | None
    status: Status
    tier: Tier
    superseded_by: str | None
    consolidated_from: list[str] = Field(description="ids merged into it")
    sources: list[str]
    metadata: JSONObject
    content_hash: str
    embedding_model: str | None
    version: int = Field(description="+1 on each edit")
    expires_at: str | None
    category_source: CategorySource = Field(description="who set the category")


class MemoryRowOut(CallerFields):
    """One memory of a listing: these, and any other field of a memory named in ``fields``."""

    id: str
    text: str
    created_at: str


class SearchHitOut(CallerFields):
    """One hit: these, and any field named in ``fields`` (a memory's, ``vector_score``,
    ``keyword_rank``)."""

    id: str
    text: str
    score: Number = Field(description="higher is better")
    created_at: str


class DecisionOut(Shape):
    """The judge's decision on a new memory, after the engine's guards."""

    action: Action
    target_ids: list[str]
    text: str | None
    area: Area | None
    category: Category | None
    importance: Number | None
    confidence: Number
    reasoning: str
    judge: str
    model: str | None
    downgraded_from: Action | None = Field(description="the judge's own action, if changed")
    downgrade_reasons: list[str]
    contradicts: bool


class TextAddedOut(Shape):
    """A text added (``text``)."""

    memory: MemoryOut
    decision: DecisionOut | None = Field(description="null: not decided yet (or off)")
    log_id: int | None
    job_id: int | None = Field(description="the queued consolidation job")
    warnings: list[str]


class MemoryEventOut(Shape):
    """A memory the call created or changed, as mem0 reports it, and memfold's action."""

    id: str
    memory: str = Field(description="its text")
    event: str = Field(description="ADD, UPDATE, DELETE or NONE")
    area: Area
    action: str | None = Field(description="memfold's action (null: not decided yet)")
    replaces: list[str] = Field([], description="the ids it replaced (merge, replace)")


class MessagesAddedOut(Shape):
    """Memories from ``messages`` (mem0's shape)."""

    results: list[MemoryEventOut]


class MemoryPageOut(Shape):
    results: list[MemoryRowOut]
    next_offset: int | None = Field(description="the next page's offset; null: the last")


class SearchOut(Shape):
    results: list[SearchHitOut] = Field(description="best first")


class DeletedAllOut(Shape):
    deleted: list[str] = Field(description="the ids archived")
    log_ids: list[int]


class LogIdsOut(Shape):
    log_ids: list[int]


# the log -------------------------------------------------------------------------------


class LogRowOut(Shape):
    """One change log row (``LogEntry.to_dict()``)."""

    id: int
    time: str
    path: str = Field(description="what wrote it (add, review, lifecycle...)")
    action: str
    input_ids: list[str]
    output_ids: list[str]
    similarity: Number | None
    confidence: Number | None
    reasoning: str
    judge: str
    model: str | None
    prompt_version: str | None
    prompt_tokens: int
    completion_tokens: int
    before: JSONObject = Field(description="the state it changed")
    after: JSONObject
    undone_by: int | None = Field(description="the log row that undid it")
    undoes: int | None = Field(description="the log row it undid")


class LogRowsOut(Shape):
    results: list[LogRowOut]


class UndoOut(Shape):
    undo_log_ids: list[int] = Field(description="the undo's own log rows")
