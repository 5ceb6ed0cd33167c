"""The Judge protocol: turns (new memory, candidates) or a pair into a decision.

Judges only propose. The engine's guards (``memfold.policy.guards``) check every
proposal against deterministic rules before anything is written.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from memfold.model import Candidate, Decision, MemoryRecord, PairLabel


@dataclass(frozen=True, slots=True)
class PairInput:
    """One queued pair for batch review; ``a`` is the older memory."""

    a: MemoryRecord
    b: MemoryRecord
    similarity: float


@dataclass(slots=True)
class PairVerdict:
    """A classification; ``label`` None means "no decision" (malformed reply, error)."""

    label: PairLabel | None
    confidence: float = 0.0
    reasoning: str = ""
    judge: str = ""
    model: str | None = None
    prompt_version: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0


@dataclass(slots=True)
class TextResult:
    """Text written by a judge (merged text, cluster summary), with its cost."""

    text: str | None
    reasoning: str = ""
    judge: str = ""
    model: str | None = None
    prompt_version: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    extra: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class SaveItem:
    """One pending on-save decision: the new memory and its candidates (best first)."""

    new: MemoryRecord
    candidates: Sequence[Candidate]


class Judge(Protocol):
    @property
    def name(self) -> str: ...

    def decide(self, items: Sequence[SaveItem]) -> list[Decision]:
        """One decision per item, in order. Never raises: failures come back as SKIP
        with ``transient=True`` when a later retry may succeed."""
        ...

    def classify(self, pairs: Sequence[PairInput]) -> list[PairVerdict]:
        """One verdict per pair, in order. Never raises."""
        ...

    def merge_text(self, memories: Sequence[MemoryRecord]) -> TextResult:
        """Text that keeps every fact of ``memories`` (batch review merges)."""
        ...

    def compress(self, memories: Sequence[MemoryRecord]) -> TextResult:
        """One summary of a cluster of fading memories (lifecycle tick)."""
        ...
