"""Reply schemas of each LLM task.

Each task has a strict schema (sent to the server as ``response_format``, and
the one a single item must match) and, for batched tasks, a loose envelope
that only checks the list is there. Batches are validated item by item, so
one malformed decision costs one SKIP, not the whole batch.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

ActionName = Literal["ADD", "KEEP_SEPARATE", "UPDATE", "MERGE", "REPLACE", "DELETE", "SKIP"]
AreaName = Literal["main", "fragments", "solutions", "instruments"]
LabelName = Literal["DUPLICATE", "RELATED", "CONTRADICTION", "SUPERSEDED"]


class _Lenient(BaseModel):
    """Extra keys from chatty models are ignored, not errors."""

    model_config = ConfigDict(extra="ignore")


class DecisionOut(_Lenient):
    """One consolidation decision; ``item`` is the 1-based number of the new memory."""

    item: int = Field(ge=1)
    action: ActionName
    target_ids: list[str] = Field(default_factory=list)
    text: str | None = None
    area: AreaName | None = None
    importance: float | None = Field(default=None, ge=0.0, le=1.0)
    confidence: float = Field(ge=0.0, le=1.0)
    reasoning: str = ""


class ConsolidationReply(_Lenient):
    """What the model is asked for (and what the server may enforce)."""

    decisions: list[DecisionOut]


class ConsolidationEnvelope(_Lenient):
    """What is validated first: a list of objects, each checked on its own."""

    decisions: list[dict[str, Any]]


class VerdictOut(_Lenient):
    """One pair classification; ``pair`` is the 1-based number of the pair."""

    pair: int = Field(ge=1)
    label: LabelName
    confidence: float = Field(ge=0.0, le=1.0)
    reasoning: str = ""


class ClassificationReply(_Lenient):
    verdicts: list[VerdictOut]


class ClassificationEnvelope(_Lenient):
    verdicts: list[dict[str, Any]]


class TextReply(_Lenient):
    """Merged text or cluster summary."""

    text: str = Field(min_length=1)
    reasoning: str = ""
