"""The LLM judge with the offline rule judge in front of it and behind it.

In front: a save the rules settle with certainty (an exact or contained
restatement: UPDATE or REPLACE at confidence >= ``rules_first_confidence``) costs no LLM
call. Behind: when the endpoint cannot be reached, the rule judge takes over
(logged once, not per call) until a probe, at most every ``recheck_after_s``,
finds it back.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar

from memfold.judge.base import Judge, PairInput, PairVerdict, SaveItem, TextResult
from memfold.model import Action, Decision, MemoryRecord

log = logging.getLogger(__name__)
T = TypeVar("T")


class ProbedJudge(Judge, Protocol):
    def available(self) -> bool: ...


class FallbackJudge:
    def __init__(
        self,
        primary: ProbedJudge,
        fallback: Judge,
        *,
        recheck_after_s: float,
        rules_first_confidence: float | None = None,
    ) -> None:
        self.primary = primary
        self.fallback = fallback
        self._recheck_after_s = recheck_after_s
        self._rules_first = rules_first_confidence
        self._up: bool | None = None
        self._checked_at = 0.0
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return self.primary.name if self._up is not False else self.fallback.name

    def primary_up(self) -> bool:
        with self._lock:
            now = time.monotonic()
            if self._up is None or (
                not self._up and now - self._checked_at >= self._recheck_after_s
            ):
                was = self._up
                self._up = self.primary.available()
                self._checked_at = now
                if not self._up and was is not False:
                    log.warning(
                        "LLM judge %s is unavailable; the offline %s judge takes over",
                        self.primary.name,
                        self.fallback.name,
                    )
                elif self._up and was is False:
                    log.warning("LLM judge %s is reachable again", self.primary.name)
            return self._up

    def _pick(self, call: Callable[[Judge], T]) -> T:
        return call(self.primary if self.primary_up() else self.fallback)

    def decide(self, items: Sequence[SaveItem]) -> list[Decision]:
        if self._rules_first is None or not self.primary_up():
            return self._pick(lambda judge: judge.decide(items))
        decisions = self.fallback.decide(items)
        ask = [n for n, d in enumerate(decisions) if not self._settled(d)]
        if ask:
            for n, decision in zip(ask, self.primary.decide([items[n] for n in ask]), strict=True):
                decisions[n] = decision
        return decisions

    def _settled(self, decision: Decision) -> bool:
        """A restatement the rules are sure of: the LLM could only agree."""
        bar = self._rules_first
        settled = decision.action in (Action.UPDATE, Action.REPLACE)
        return bar is not None and settled and decision.confidence >= bar

    def classify(self, pairs: Sequence[PairInput]) -> list[PairVerdict]:
        return self._pick(lambda judge: judge.classify(pairs))

    def merge_text(self, memories: Sequence[MemoryRecord]) -> TextResult:
        return self._pick(lambda judge: judge.merge_text(memories))

    def compress(self, memories: Sequence[MemoryRecord]) -> TextResult:
        return self._pick(lambda judge: judge.compress(memories))
