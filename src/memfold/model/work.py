"""What the engine passes around while it works: jobs, candidates, a judge's decision,
search hits, add results, review queue items and runs (no I/O)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from memfold.model import views
from memfold.model.records import (
    Action,
    Area,
    Category,
    JobStatus,
    JSONDict,
    MemoryRecord,
    PairLabel,
    utcnow,
)


@dataclass(slots=True)
class Job:
    id: int
    memory_id: str
    kind: str
    status: JobStatus
    attempts: int = 0
    last_error: str | None = None
    created_at: datetime = field(default_factory=utcnow)
    # The lease: who holds the job (host:pid:token:thread) and until when (renewed while
    # it works). Transient failures back off: ``backoffs`` so far, next try not before.
    owner: str | None = None
    lease_until: datetime | None = None
    backoffs: int = 0
    next_attempt_at: datetime | None = None
    # Version conflicts met so far (re-planned, not failures: no attempt spent).
    conflicts: int = 0


@dataclass(frozen=True, slots=True)
class Candidate:
    """An existing memory that a new one might consolidate with.

    ``via``: how it was found. "similar": a vector neighbour at the discovery cosine or
    above. "update": the update channel (``engine.update_channel``), an older memory
    about the same subject that a change cue may supersede; the guards let such a
    candidate be superseded (DELETE, with evidence) and never folded or replaced.
    """

    memory: MemoryRecord
    similarity: float
    via: Literal["similar", "update"] = "similar"


@dataclass(slots=True)
class Decision:
    """A judge's answer for one new memory, before and after the engine's guards."""

    action: Action
    target_ids: list[str] = field(default_factory=list)
    text: str | None = None
    area: Area | None = None
    # The new memory's category as the LLM judge read it (episodic, semantic or
    # procedural); applied only where the caller gave none (engine/apply.py).
    category: Category | None = None
    importance: float | None = None
    confidence: float = 0.0
    reasoning: str = ""
    judge: str = ""
    model: str | None = None
    prompt_version: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    transient: bool = False
    downgraded_from: Action | None = None
    downgrade_reasons: list[str] = field(default_factory=list)
    # KEEP_SEPARATE of a memory that negates a target with no sign of change: both stay
    # visible, linked as contradicting each other.
    contradicts: bool = False

    def to_dict(self) -> JSONDict:
        return {
            "action": self.action.value,
            "target_ids": self.target_ids,
            "text": self.text,
            "area": None if self.area is None else self.area.value,
            "category": None if self.category is None else self.category.value,
            "importance": self.importance,
            "confidence": self.confidence,
            "reasoning": self.reasoning,
            "judge": self.judge,
            "model": self.model,
            "downgraded_from": None if self.downgraded_from is None else self.downgraded_from.value,
            "downgrade_reasons": self.downgrade_reasons,
            "contradicts": self.contradicts,
        }


@dataclass(slots=True)
class SearchHit:
    """One memory a search found, with its score (higher is better)."""

    memory: MemoryRecord
    score: float
    vector_score: float | None = None
    keyword_rank: int | None = None

    @property
    def id(self) -> str:
        return self.memory.id

    @property
    def text(self) -> str:
        return self.memory.text

    def to_dict(self, fields: object = None) -> JSONDict:
        """The shape every surface gives a hit (model/views.py): id, text, score and
        created_at; ``fields``: other names, or "all"."""
        return views.hit(self, views.fields_of(fields, match=True))


@dataclass(slots=True)
class AddResult:
    memory: MemoryRecord
    decision: Decision | None = None
    log_id: int | None = None
    job_id: int | None = None
    # What the caller should know about how it was stored (e.g. an expiry already past).
    warnings: list[str] = field(default_factory=list)
    # True: the result of an earlier add with the same idempotency_key, not a new add
    # (engine/idempotency.py; ``memory`` as it is now).
    replayed: bool = False


@dataclass(slots=True)
class QueueItem:
    id: int
    scope_key: str
    memory_a: str
    memory_b: str
    similarity: float
    version_a: int
    version_b: int
    label: PairLabel | None
    confidence: float | None
    reasoning: str
    status: str
    created_at: datetime
    classified_at: datetime | None
    processed_at: datetime | None
    run_id: int | None
    proposal: JSONDict | None
    note: str

    def to_dict(self) -> JSONDict:
        return {
            "id": self.id,
            "scope_key": self.scope_key,
            "memory_a": self.memory_a,
            "memory_b": self.memory_b,
            "similarity": self.similarity,
            "label": None if self.label is None else self.label.value,
            "confidence": self.confidence,
            "reasoning": self.reasoning,
            "status": self.status,
            "created_at": self.created_at.isoformat(),
            "processed_at": None if self.processed_at is None else self.processed_at.isoformat(),
            "run_id": self.run_id,
            "proposal": self.proposal,
            "note": self.note,
        }


@dataclass(slots=True)
class ReviewRun:
    id: int
    scope_key: str | None
    started_at: datetime
    finished_at: datetime | None
    status: str
    p90: float | None
    counts: JSONDict = field(default_factory=dict)
    breaker: JSONDict = field(default_factory=dict)
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def to_dict(self) -> JSONDict:
        return {
            "id": self.id,
            "scope_key": self.scope_key,
            "started_at": self.started_at.isoformat(),
            "finished_at": None if self.finished_at is None else self.finished_at.isoformat(),
            "status": self.status,
            "p90": self.p90,
            "counts": self.counts,
            "breaker": self.breaker,
            "llm_calls": self.llm_calls,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
        }
