"""Reply schemas of each LLM task.

Each task has a strict schema (sent to the server as ``response_format``, and
the one a single item must match) and, for batched tasks, a loose envelope
that only checks the list is there. Batches are validated item by item, so
one malformed decision costs one SKIP, not the whole batch.
"""

from __future__ import annotations

import re
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, field_validator

ActionName = Literal["ADD", "KEEP_SEPARATE", "UPDATE", "MERGE", "REPLACE", "DELETE", "SKIP"]
AreaName = Literal["main", "fragments", "solutions", "instruments"]
# What the consolidation reply may call a new memory; core is never the model's to say
# (the caller gives it, or repeated use earns it).
CategoryName = Literal["episodic", "semantic", "procedural"]
LabelName = Literal["DUPLICATE", "RELATED", "CONTRADICTION", "SUPERSEDED"]
_AREAS = frozenset(get_args(AreaName))


def first_area(value: object) -> object:
    """A small model may answer an area as "main|fragments" or "Main, fragments" (the
    choices it was shown): read the first valid one. Anything else is left for the
    schema to refuse."""
    if not isinstance(value, str):
        return value
    for word in re.split(r"[^a-z]+", value.lower()):
        if word in _AREAS:
            return word
    return value


class _Lenient(BaseModel):
    """Extra keys from chatty models are ignored, not errors."""

    model_config = ConfigDict(extra="ignore")


class DecisionAsked(_Lenient):
    """One consolidation decision as the model is asked for it: ``item`` is the 1-based
    number of the new memory, ``targets`` the numbers of its candidates as listed to the
    model; the reasoning comes first, so the model reasons before it decides."""

    item: int = Field(ge=1)
    reasoning: str = ""
    action: ActionName
    targets: list[int] = Field(default_factory=list)
    text: str | None = None
    category: CategoryName | None = None
    confidence: float | None = Field(default=None, ge=0.0, le=1.0)


class DecisionOut(_Lenient):
    """One consolidation decision as accepted: candidate numbers (``targets``, also as
    strings) or ``target_ids`` naming candidates by number or id; area, category and
    importance when a model volunteers them."""

    item: int = Field(ge=1)
    reasoning: str = ""
    action: ActionName
    targets: list[int | str] = Field(default_factory=list)
    target_ids: list[str] = Field(default_factory=list)
    text: str | None = None
    area: AreaName | None = None

    _area = field_validator("area", mode="before")(first_area)
    # Any value is accepted here and read by the judge: one it does not know is
    # ignored, and the decision stands.
    category: Any = None
    importance: float | None = Field(default=None, ge=0.0, le=1.0)
    confidence: float | None = Field(default=None, ge=0.0, le=1.0)


class ConsolidationReply(_Lenient):
    """What the model is asked for (and what the server may enforce)."""

    decisions: list[DecisionAsked]


class ConsolidationEnvelope(_Lenient):
    """What is validated first: a list of objects, each checked on its own."""

    decisions: list[dict[str, Any]]


class VerdictOut(_Lenient):
    """One pair classification; ``pair`` is the 1-based number of the pair."""

    pair: int = Field(ge=1)
    reasoning: str = ""
    label: LabelName
    confidence: float | None = Field(default=None, ge=0.0, le=1.0)


class ClassificationReply(_Lenient):
    verdicts: list[VerdictOut]


class ClassificationEnvelope(_Lenient):
    verdicts: list[dict[str, Any]]


class TextReply(_Lenient):
    """Merged text or cluster summary."""

    text: str = Field(min_length=1)
    reasoning: str = ""


class ExtractOut(_Lenient):
    """One memory extracted from messages: ``sources`` are the 1-based numbers of the
    messages it comes from, as listed to the model."""

    text: str = Field(min_length=1)
    area: AreaName = "main"
    sources: list[int] = Field(default_factory=list)

    _area = field_validator("area", mode="before")(first_area)


class ExtractionReply(_Lenient):
    memories: list[ExtractOut]


class ExtractionEnvelope(_Lenient):
    memories: list[dict[str, Any]]
