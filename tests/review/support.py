"""Review test support: a scripted judge, and stores filled with known duplicate pairs."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import timedelta
from typing import Any

from memfold import Memory
from memfold.config import ReviewSettings, Settings
from memfold.engine.review.api import Review
from memfold.judge.base import PairInput, PairVerdict, SaveItem, TextResult
from memfold.model import Action, Decision, MemoryRecord, PairLabel, utcnow

FACTS = [
    "Alice's dentist is Dr. Moreau in Lyon.",
    "The team's standup meeting starts at 9:30 every weekday.",
    "Bob drives a blue 2019 Toyota Corolla.",
    "The production database runs PostgreSQL 16 on AWS.",
    "Carol is allergic to peanuts and shellfish.",
    "The quarterly budget review happens in the first week of April.",
    "Dave's favourite programming language is Rust.",
    "The office wifi password rotates every month.",
    "Eve adopted a golden retriever named Biscuit.",
    "The company offsite will be held in Lisbon this year.",
    "Frank prefers green tea over coffee in the morning.",
    "Our main competitor launched a pricing change in March.",
]


def variant(fact: str) -> str:
    return fact.rstrip(".") + ", as noted earlier."


class ScriptedJudge:
    """Returns the verdicts a test scripts, keyed by the pair's two texts."""

    def __init__(self) -> None:
        self.verdicts: dict[frozenset[str], PairVerdict] = {}
        self.default = PairVerdict(PairLabel.RELATED, 0.6, "unscripted pair", "scripted")
        self.merge: Callable[[Sequence[MemoryRecord]], str | None] = union
        self.classify_calls = 0
        self.batch_sizes: list[int] = []

    @property
    def name(self) -> str:
        return "scripted"

    def script(self, a: str, b: str, label: PairLabel | None, confidence: float) -> None:
        self.verdicts[frozenset((a, b))] = PairVerdict(
            label, confidence, f"scripted {label}", "scripted", "fake-model", None, 10, 5
        )

    def decide(self, items: Sequence[SaveItem]) -> list[Decision]:
        return [Decision(Action.SKIP) for _ in items]

    def classify(self, pairs: Sequence[PairInput]) -> list[PairVerdict]:
        self.classify_calls += 1
        self.batch_sizes.append(len(pairs))
        return [self.verdicts.get(frozenset((p.a.text, p.b.text)), self.default) for p in pairs]

    def merge_text(self, memories: Sequence[MemoryRecord]) -> TextResult:
        return TextResult(
            self.merge(memories), "scripted merge", "scripted", "fake-model", None, 7, 3
        )

    def compress(self, memories: Sequence[MemoryRecord]) -> TextResult:
        return TextResult(None)


def union(memories: Sequence[MemoryRecord]) -> str:
    return " ".join(dict.fromkeys(m.text for m in memories))


def settings(**review: Any) -> Settings:
    # Small test scopes are entirely queued on day one; the share guard has its own test.
    review.setdefault("max_daily_queue_share", 1.0)
    return Settings(review=ReviewSettings(**review))


def fill_pairs(
    mem: Memory,
    judge: ScriptedJudge,
    confidences: Sequence[float | None],
    *,
    label: PairLabel = PairLabel.DUPLICATE,
    facts: Sequence[str] = FACTS,
) -> list[tuple[str, str]]:
    """One (fact, variant) pair per confidence, both an hour old; returns their ids."""
    old = utcnow() - timedelta(hours=1)
    ids = []
    for fact, conf in zip(facts, confidences, strict=False):
        a = mem.add(fact, created_at=old).memory.id
        b = mem.add(variant(fact), created_at=old + timedelta(seconds=1)).memory.id
        judge.script(fact, variant(fact), None if conf is None else label, conf or 0.0)
        ids.append((a, b))
    return ids


def review_of(mem: Memory, judge: ScriptedJudge) -> Review:
    return Review(mem.ctx, judge)
