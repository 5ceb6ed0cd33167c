"""A scripted judge and vectors with exact cosines, for on-save engine tests."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from memfold.judge.base import PairInput, PairVerdict, SaveItem, TextResult
from memfold.model import Decision, MemoryRecord

DIM = 384


def vec_with_cosine(cosine: float, axis: int = 1) -> list[float]:
    """A unit vector whose cosine with ``base()`` is exactly ``cosine``."""
    v = np.zeros(DIM, dtype=np.float64)
    v[0] = cosine
    v[axis] = np.sqrt(max(0.0, 1.0 - cosine**2))
    return v.tolist()


def base() -> list[float]:
    return vec_with_cosine(1.0)


@dataclass
class ScriptedJudge:
    """Answers each SaveItem with ``decide_fn(item)``; counts calls."""

    decide_fn: Callable[[SaveItem], Decision]
    calls: int = 0
    seen: list[list[SaveItem]] = field(default_factory=list)

    @property
    def name(self) -> str:
        return "scripted"

    def decide(self, items: Sequence[SaveItem]) -> list[Decision]:
        self.calls += 1
        self.seen.append(list(items))
        return [self.decide_fn(item) for item in items]

    def classify(self, pairs: Sequence[PairInput]) -> list[PairVerdict]:
        return [PairVerdict(None) for _ in pairs]

    def merge_text(self, memories: Sequence[MemoryRecord]) -> TextResult:
        return TextResult(" ".join(m.text for m in memories))

    def compress(self, memories: Sequence[MemoryRecord]) -> TextResult:
        return TextResult(" | ".join(m.text for m in memories))
