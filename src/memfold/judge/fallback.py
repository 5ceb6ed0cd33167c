"""The LLM judge with the offline rule judge in front of it and behind it.

In front: a save the rules settle with certainty (an exact, contained or aligned
restatement, UPDATE or REPLACE; a new value or a retraction they read word for word,
DELETE; at confidence >= ``rules_first_confidence``) costs no LLM call. Behind: when
the endpoint cannot be reached, or when ``fail_after`` on-save calls in a row failed
transiently (timeouts, 5xx, 429, budget: an LLM that went down mid-session), the
rule judge takes over, logged once, not per save. After ``recheck_after_s`` the
endpoint is probed and the LLM asked again; if that call fails transiently too, the
rules take over again at once for another ``recheck_after_s``. With ``fail_after=None``
the rules never take over (seed 000: a save the LLM cannot judge is skipped, as a
transient SKIP, and picked up by the next cycle); they still answer first.
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
        fail_after: int | None = 3,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.primary = primary
        self.fallback = fallback
        self._recheck_after_s = recheck_after_s
        self._rules_first = rules_first_confidence
        self._fail_after = fail_after
        self._clock = clock
        self._up: bool | None = None
        self._checked_at = 0.0
        self._failures = 0  # consecutive transient failures of on-save calls
        self._probing = False  # probed back after a cooldown: one failure hands over
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return self.primary.name if self._up is not False else self.fallback.name

    def primary_up(self) -> bool:
        with self._lock:
            now = self._clock()
            if self._up is None or (
                not self._up and now - self._checked_at >= self._recheck_after_s
            ):
                was = self._up
                self._up = self.primary.available()
                self._checked_at = now
                if not self._up and was is not False:
                    log.warning(
                        "LLM judge %s is unavailable; %s",
                        self.primary.name,
                        "its saves are skipped for the next cycle"
                        if self._fail_after is None
                        else f"the offline {self.fallback.name} judge takes over",
                    )
                elif self._up and was is False:
                    self._probing = True
                    log.info("LLM judge %s answers its probe; trying it", self.primary.name)
            return self._up

    def _ask_primary(self, items: Sequence[SaveItem]) -> list[Decision]:
        """The LLM's decisions; the rules' instead when this failure hands over to them."""
        decisions = self.primary.decide(items)
        failed = bool(decisions) and all(d.action is Action.SKIP and d.transient for d in decisions)
        if failed and self._fail_after is None:
            return decisions  # skipped: the next cycle asks again
        if failed and self._failed(decisions[0].reasoning):
            return self.fallback.decide(items)
        if not failed:
            with self._lock:
                if self._probing:
                    log.warning("LLM judge %s decides again", self.primary.name)
                self._failures, self._probing = 0, False
        return decisions

    def _failed(self, reason: str) -> bool:
        """Count one transient failure; True when the rules take over now."""
        with self._lock:
            self._failures += 1
            if not self._probing and self._failures < (self._fail_after or 1):
                return False
            if self._probing:
                log.info(
                    "LLM judge %s still failing (%s); rules decide for another %g s",
                    self.primary.name,
                    reason,
                    self._recheck_after_s,
                )
            else:
                log.warning(
                    "LLM judge %s failed %d times in a row (%s); the offline %s judge "
                    "decides for %g s, then the LLM is tried again",
                    self.primary.name,
                    self._failures,
                    reason,
                    self.fallback.name,
                    self._recheck_after_s,
                )
            self._up, self._checked_at = False, self._clock()
            self._failures, self._probing = 0, False
            return True

    def _pick(self, call: Callable[[Judge], T]) -> T:
        falls_back = self._fail_after is not None and not self.primary_up()
        return call(self.fallback if falls_back else self.primary)

    def decide(self, items: Sequence[SaveItem]) -> list[Decision]:
        if self._fail_after is None and not self.primary_up():
            reason = f"LLM judge {self.primary.name} is unavailable; skipped for the next cycle"
            return [Decision(Action.SKIP, reasoning=reason, transient=True) for _ in items]
        if not self.primary_up():
            return self.fallback.decide(items)
        if self._rules_first is None:
            return self._ask_primary(items)
        decisions = self.fallback.decide(items)
        ask = [n for n, d in enumerate(decisions) if not self._settled(d)]
        if ask:
            for n, decision in zip(ask, self._ask_primary([items[n] for n in ask]), strict=True):
                decisions[n] = decision
        return decisions

    def _settled(self, decision: Decision) -> bool:
        """A restatement or supersede the rules are sure of: the LLM could only agree."""
        bar = self._rules_first
        settled = decision.action in (Action.UPDATE, Action.REPLACE, Action.DELETE)
        return bar is not None and settled and decision.confidence >= bar

    def classify(self, pairs: Sequence[PairInput]) -> list[PairVerdict]:
        return self._pick(lambda judge: judge.classify(pairs))

    def merge_text(self, memories: Sequence[MemoryRecord]) -> TextResult:
        return self._pick(lambda judge: judge.merge_text(memories))

    def compress(self, memories: Sequence[MemoryRecord]) -> TextResult:
        return self._pick(lambda judge: judge.compress(memories))
