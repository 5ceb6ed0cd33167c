"""Request bodies of the REST API (pydantic): a wrong type or an unknown field is 422
naming the field, before the route runs. Types are strict (``"0.5"`` is not a number);
what memfold checks itself (text length, NUL bytes, scopes, filters) it checks again
in the Python API, with the same messages. Response bodies: responses.py.
"""

from __future__ import annotations

from typing import Any, Literal, Self

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, model_validator

JSONObject = dict[str, Any]


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class ScopeFields(Body):
    """The scope ids a request may name; a key bound to a user fills in its own and
    refuses others (404)."""

    user_id: str | None = None
    agent_id: str | None = None
    session_id: str | None = Field(
        None, validation_alias=AliasChoices("session_id", "run_id"), description="mem0: run_id"
    )


class ChatMessageIn(Body):
    role: str = Field(description="system, user, assistant or tool")
    content: str
    created_at: str | None = Field(None, description="ISO date/time; times never go back")
    metadata: JSONObject | None = None
    name: str | None = Field(None, description="OpenAI's participant name")


class AddRequest(ScopeFields):
    """``text`` (one memory) or ``messages`` (mem0's call: extracted, or each saved
    as it is with ``infer=false``), not both."""

    text: str | None = None
    messages: list[ChatMessageIn] | None = None
    infer: bool = True
    area: str = "main"
    category: str | None = None
    importance: float = 0.5
    sources: list[str] | None = None
    metadata: JSONObject | None = None
    created_at: str | None = None
    expires_at: str | None = None
    ttl: float | None = Field(None, description="seconds until it expires")

    @model_validator(mode="after")
    def _text_or_messages(self) -> Self:
        if (self.text is None) == (self.messages is None):
            raise ValueError("give either text or messages")
        return self


class UpdateRequest(Body):
    text: str | None = None
    area: str | None = None
    importance: float | None = None
    metadata: JSONObject | None = None
    reason: str = ""


class SearchRequest(ScopeFields):
    query: str
    k: int | None = Field(
        None, validation_alias=AliasChoices("k", "limit"), description="how many hits (mem0: limit)"
    )
    area: str | list[str] | None = None
    deep: bool = False
    mode: Literal["hybrid", "vector", "keyword"] = "hybrid"
    filters: JSONObject | None = None
    threshold: float | None = None
    offset: int = 0
    fields: list[str] | str | None = Field(
        None, description='more fields of each hit by name (metadata, category...), or "all"'
    )


class FeedbackRequest(Body):
    kind: Literal["used", "ignored", "contradicted", "miss"]
    context: str | None = None


class UndoRequest(Body):
    cascade: bool = False


class RejectRequest(Body):
    reason: str = ""


class ReviewRunRequest(ScopeFields):
    """No ids with an admin key that names no user: every scope."""


class TickRequest(Body):
    now: str | None = Field(None, description="run as of this ISO time (default: now)")


class AppendMessagesRequest(Body):
    user_id: str | None = None
    agent_id: str | None = None
    messages: list[ChatMessageIn] = Field(min_length=1)


class NoteRequest(Body):
    user_id: str | None = None
    agent_id: str | None = None
    text: str


class WindowRequest(Body):
    user_id: str | None = None
    agent_id: str | None = None
    user_message: str
    system_prompt: str | None = None
    k_memories: int | None = None


def message_dicts(messages: list[ChatMessageIn]) -> list[JSONObject]:
    """The messages as memfold's Python API takes them (fields left out stay out)."""
    return [m.model_dump(exclude_unset=True) for m in messages]


class FieldError(BaseModel):
    """One offending field of a request that did not validate."""

    field: str
    message: str
    type: str


class ErrorDetail(BaseModel):
    code: str = Field(description="stable: clients branch on it (invalid_input, not_found...)")
    message: str = Field(description="for people; may change")
    fields: list[FieldError] | None = Field(None, description="422 from validation only")


class ErrorBody(BaseModel):
    """What every failure of the service answers (server/errors.py)."""

    error: ErrorDetail


def error_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses`` for these statuses, all in the one error shape."""
    return {status: {"model": ErrorBody, "description": _WHY[status]} for status in statuses}


_WHY = {
    401: "no key, or not a valid one",
    403: "the key's role or scope does not allow it",
    404: "no such memory, log row or item (or not the key's)",
    409: "a conflict: an undo refused, a read-only store, another embedding model",
    413: "the body is over server.max_body_bytes",
    422: "the request or a value in it is invalid",
    429: "over the key's rate limit (Retry-After says when)",
    502: "the LLM failed",
    503: "the store or the LLM budget is unavailable",
}
