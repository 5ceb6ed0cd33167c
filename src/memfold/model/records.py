"""Memory records, scopes, links, log entries and the enums they use (no I/O)."""

from __future__ import annotations

import hashlib
import re
import unicodedata
import uuid
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

import numpy as np
import numpy.typing as npt

from memfold.model.nesting import METADATA_DEPTH_CEILING, cut_deep

Vector = npt.NDArray[np.float32]
JSONDict = dict[str, Any]


class Status(StrEnum):
    ACTIVE = "active"
    SUPERSEDED = "superseded"
    ARCHIVED = "archived"
    EXPIRED = "expired"


class Area(StrEnum):
    MAIN = "main"
    FRAGMENTS = "fragments"
    SOLUTIONS = "solutions"
    INSTRUMENTS = "instruments"


class Category(StrEnum):
    EPISODIC = "episodic"
    SEMANTIC = "semantic"
    PROCEDURAL = "procedural"
    CORE = "core"
    SUMMARY = "summary"


class CategorySource(StrEnum):
    """Where a memory's category came from: the caller (``given``), the offline rules
    on save (``rules``), the LLM judge's reply on save when the caller gave none
    (``judge``), or the lifecycle (``lifecycle``: promotion to core, a summary)."""

    GIVEN = "given"
    RULES = "rules"
    JUDGE = "judge"
    LIFECYCLE = "lifecycle"


class Tier(StrEnum):
    HOT = "hot"
    COLD = "cold"


class LinkKind(StrEnum):
    DERIVED_FROM = "derived_from"
    SUPERSEDES = "supersedes"
    CONTRADICTS = "contradicts"
    UPDATES = "updates"
    ASSOCIATION = "association"
    RELATED = "related"


class Action(StrEnum):
    """What consolidation does with a new memory and its candidates."""

    ADD = "ADD"
    KEEP_SEPARATE = "KEEP_SEPARATE"
    UPDATE = "UPDATE"
    MERGE = "MERGE"
    REPLACE = "REPLACE"
    DELETE = "DELETE"
    SKIP = "SKIP"

    @property
    def destructive(self) -> bool:
        return self in (Action.MERGE, Action.REPLACE, Action.DELETE)

    @property
    def mutating(self) -> bool:
        return self in (Action.UPDATE, Action.MERGE, Action.REPLACE, Action.DELETE)


# What a person reading a log or a decision is shown for an action: DELETE retires the
# older memory as superseded, kept as history and undoable, never erased.
_SHOWN = {Action.DELETE.value: "SUPERSEDE"}


def shown_action(action: str) -> str:
    """The name a person is shown for a logged or decided action (``_SHOWN``); the API
    and the log keep the action's own name."""
    return _SHOWN.get(action, action)


class PairLabel(StrEnum):
    """Batch review classification of a pair of memories."""

    DUPLICATE = "DUPLICATE"
    RELATED = "RELATED"
    CONTRADICTION = "CONTRADICTION"
    SUPERSEDED = "SUPERSEDED"


class JobStatus(StrEnum):
    PENDING = "pending"
    RUNNING = "running"
    DONE = "done"


class ConsolidateMode(StrEnum):
    BACKGROUND = "background"  # a worker thread in this process decides after add() returns
    SYNC = "sync"  # add() decides and returns the decision
    QUEUE = "queue"  # add() only queues the job; a separate `memfold worker` decides
    OFF = "off"  # store only


def utcnow() -> datetime:
    return datetime.now(UTC)


def new_id() -> str:
    return uuid.uuid4().hex


_WS = re.compile(r"\s+")
_NOT_WORD = re.compile(r"[\W_]+", re.UNICODE)


def normalize_text(text: str) -> str:
    """Canonical form used for content hashes and exact-duplicate checks."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return _WS.sub(" ", folded).strip()


def plain_words(text: str) -> str:
    """Casefolded words without punctuation: two texts equal here say the same words
    ("Alice likes tea." / "alice likes tea")."""
    return _NOT_WORD.sub(" ", normalize_text(text)).strip()


def content_hash(text: str) -> str:
    return hashlib.sha256(normalize_text(text).encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class Scope:
    """Who a memory belongs to. Search and consolidation never cross scopes."""

    user_id: str | None = None
    agent_id: str | None = None
    session_id: str | None = None

    def key(self) -> str:
        return f"u={self.user_id or ''}|a={self.agent_id or ''}|s={self.session_id or ''}"

    @classmethod
    def from_key(cls, key: str) -> Scope:
        parts = dict(p.split("=", 1) for p in key.split("|"))
        return cls(parts.get("u") or None, parts.get("a") or None, parts.get("s") or None)

    def as_dict(self) -> dict[str, str | None]:
        return {"user_id": self.user_id, "agent_id": self.agent_id, "session_id": self.session_id}


@dataclass(slots=True)
class MemoryRecord:
    id: str
    scope: Scope
    text: str
    area: Area = Area.MAIN
    category: Category = Category.SEMANTIC
    importance: float = 0.5
    stability: float = 0.25
    access_count: int = 0
    last_access_at: datetime | None = None
    created_at: datetime = field(default_factory=utcnow)
    updated_at: datetime = field(default_factory=utcnow)
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    status: Status = Status.ACTIVE
    tier: Tier = Tier.HOT
    superseded_by: str | None = None
    consolidated_from: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    metadata: JSONDict = field(default_factory=dict)
    content_hash: str = ""
    embedding: Vector | None = None
    embedding_model: str | None = None
    version: int = 1
    # When the memory stops being valid (a TTL); the lifecycle tick then marks it expired.
    expires_at: datetime | None = None
    # Rows from before the column existed read as "given": see CategorySource.
    category_source: CategorySource = CategorySource.GIVEN
    # A long text's passage vectors, one row each (policy/passages.py), beside the
    # whole-text ``embedding``; None: none (a short text, or not computed). Search only:
    # consolidation compares whole-text vectors. ``passages_of``: the text they were
    # computed for (a store writes them only while it is still ``text``, so a text
    # changed without them never keeps the old text's passages); None: not computed.
    passages: np.ndarray | None = field(default=None, repr=False)
    passages_of: str | None = field(default=None, repr=False)

    def copy(self, **changes: Any) -> MemoryRecord:
        return replace(self, **changes)

    def to_dict(self, *, with_embedding: bool = False) -> JSONDict:
        """A JSON-ready dict of every field (embedding optional, as a list)."""
        data: JSONDict = {
            "id": self.id,
            **self.scope.as_dict(),
            "text": self.text,
            "area": self.area.value,
            "category": self.category.value,
            "importance": self.importance,
            "stability": self.stability,
            "access_count": self.access_count,
            "last_access_at": _iso(self.last_access_at),
            "created_at": _iso(self.created_at),
            "updated_at": _iso(self.updated_at),
            "valid_from": _iso(self.valid_from),
            "valid_to": _iso(self.valid_to),
            "status": self.status.value,
            "tier": self.tier.value,
            "superseded_by": self.superseded_by,
            "consolidated_from": list(self.consolidated_from),
            "sources": list(self.sources),
            "metadata": dict(cut_deep(self.metadata)),  # a row older than the depth check: cut
            "content_hash": self.content_hash,
            "embedding_model": self.embedding_model,
            "version": self.version,
            "expires_at": _iso(self.expires_at),
            "category_source": self.category_source.value,
        }
        if with_embedding:
            data["embedding"] = None if self.embedding is None else self.embedding.tolist()
        return data

    @classmethod
    def from_dict(cls, data: JSONDict) -> MemoryRecord:
        emb = data.get("embedding")
        return cls(
            id=str(data["id"]),
            scope=Scope(data.get("user_id"), data.get("agent_id"), data.get("session_id")),
            text=str(data["text"]),
            area=Area(data.get("area", "main")),
            category=Category(data.get("category", "semantic")),
            importance=float(data.get("importance", 0.5)),
            stability=float(data.get("stability", 0.25)),
            access_count=int(data.get("access_count", 0)),
            last_access_at=parse_time(data.get("last_access_at")),
            created_at=parse_time(data.get("created_at")) or utcnow(),
            updated_at=parse_time(data.get("updated_at")) or utcnow(),
            valid_from=parse_time(data.get("valid_from")),
            valid_to=parse_time(data.get("valid_to")),
            status=Status(data.get("status", "active")),
            tier=Tier(data.get("tier", "hot")),
            superseded_by=data.get("superseded_by"),
            consolidated_from=list(data.get("consolidated_from") or []),
            sources=list(data.get("sources") or []),
            metadata=dict(data.get("metadata") or {}),
            content_hash=str(data.get("content_hash") or content_hash(str(data["text"]))),
            embedding=None if emb is None else np.asarray(emb, dtype=np.float32),
            embedding_model=data.get("embedding_model"),
            version=int(data.get("version", 1)),
            expires_at=parse_time(data.get("expires_at")),
            category_source=CategorySource(data.get("category_source", "given")),
        )


def _iso(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat()


def parse_time(value: object) -> datetime | None:
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    parsed = datetime.fromisoformat(str(value))
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class Link:
    src: str
    dst: str
    kind: LinkKind
    weight: float = 1.0
    created_at: datetime = field(default_factory=utcnow)


@dataclass(slots=True)
class LogEntry:
    """One row of the consolidation log: what changed, why, and how to undo it."""

    id: int
    time: datetime
    path: str
    action: str
    input_ids: list[str]
    output_ids: list[str]
    similarity: float | None = None
    confidence: float | None = None
    reasoning: str = ""
    judge: str = ""
    model: str | None = None
    prompt_version: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    before: JSONDict = field(default_factory=dict)
    after: JSONDict = field(default_factory=dict)
    undone_by: int | None = None
    undoes: int | None = None

    def to_dict(self) -> JSONDict:
        return {
            "id": self.id,
            "time": self.time.isoformat(),
            "path": self.path,
            "action": self.action,
            "input_ids": self.input_ids,
            "output_ids": self.output_ids,
            "similarity": self.similarity,
            "confidence": self.confidence,
            "reasoning": self.reasoning,
            "judge": self.judge,
            "model": self.model,
            "prompt_version": self.prompt_version,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            # snapshots hold metadata a few levels down (a row older than the depth check)
            "before": cut_deep(self.before, METADATA_DEPTH_CEILING + 4),
            "after": cut_deep(self.after, METADATA_DEPTH_CEILING + 4),
            "undone_by": self.undone_by,
            "undoes": self.undoes,
        }
