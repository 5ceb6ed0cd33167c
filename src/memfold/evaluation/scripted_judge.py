"""Scripted judges for the scenario suite: what the guards let through, not what a model
knows.

``oracle`` always proposes the ideal action: REPLACE a restatement (duplicate), supersede
the old value (DELETE, for an update), KEEP_SEPARATE otherwise; in a review run it labels
each scenario's pair by its kind and merges a duplicate into its longer text.
``adversary`` always proposes a destructive action on the scenario's memory
(``adversary:REPLACE``, ``:DELETE``, ``:MERGE``, ``:UPDATE``; plain ``adversary`` cycles
through the four), writes texts that drop the older fact, and labels every review pair
DUPLICATE.

Both answer as a model would, through the real LLM client, from a scripted
OpenAI-compatible server on loopback (``memfold.testing.FakeLLMServer``): every request is
parsed back into its items (the new memory and its numbered candidates, or the pairs, or
the memories to merge), each matched to its scenario by text. So the parsing, masking and
every guard of the LLM path run as they do for a real model, and the figure is the
guards'. Both are sure of themselves: each action and label token carries probability 0.99
(a stated confidence alone counts for nothing), so a gate on confidence does not stand in
for the guards.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from memfold.config import Settings

if TYPE_CHECKING:
    from memfold.evaluation.run_scenarios import Scenario

DESTRUCTIVE = ("REPLACE", "DELETE", "MERGE", "UPDATE")
SCRIPTED = ("oracle", "adversary", *(f"adversary:{a}" for a in DESTRUCTIVE))
CONFIDENCE = 0.99
# What the oracle proposes on save, and the label it gives the pair in a review run.
_ORACLE_ACTION = {"duplicate": "REPLACE", "update": "DELETE"}
_ORACLE_LABEL = {
    "duplicate": "DUPLICATE",
    "update": "SUPERSEDED",
    "contradiction": "CONTRADICTION",
    "distinct": "RELATED",
}


def is_scripted(judge: str) -> bool:
    return judge in SCRIPTED


def _key(text: str) -> str:
    return " ".join(str(text).split()).casefold()


@dataclass
class ScenarioScript:
    """The scripted server's answer function (see the module doc)."""

    scenarios: Sequence[Scenario]
    judge: str
    _by_new: dict[str, Scenario] = field(default_factory=dict, init=False)
    _by_pair: dict[frozenset[str], Scenario] = field(default_factory=dict, init=False)
    _cycle: Iterator[str] = field(init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False)

    def __post_init__(self) -> None:
        if not is_scripted(self.judge):
            raise ValueError(f"not a scripted judge: {self.judge!r}")
        for scenario in self.scenarios:
            self._by_new.setdefault(_key(scenario.new), scenario)
            self._by_pair.setdefault(
                frozenset((_key(scenario.existing[0]), _key(scenario.new))), scenario
            )
        _, _, action = self.judge.partition(":")
        self._cycle = itertools.cycle([action] if action else DESTRUCTIVE)

    @property
    def oracle(self) -> bool:
        return self.judge == "oracle"

    def __call__(self, body: dict[str, Any]) -> Any:
        from memfold.testing.fake_replies import confident, user_payload

        payload = user_payload(body)
        if "items" in payload:
            return confident({"decisions": [self._decide(item) for item in payload["items"]]})
        if "pairs" in payload:
            return confident({"verdicts": [self._label(pair) for pair in payload["pairs"]]})
        texts = [str(m.get("text", "")) for m in payload.get("memories", [])]
        return {"text": self._write(texts), "reasoning": self.judge}

    # --- on save -------------------------------------------------------------------

    def _decide(self, item: dict[str, Any]) -> dict[str, Any]:
        new = str(item["new"]["text"])
        scenario = self._by_new.get(_key(new))
        candidates = list(item.get("candidates") or [])
        subject = None
        if scenario is not None:
            wanted = _key(scenario.existing[0])
            subject = next((c for c in candidates if _key(c["text"]) == wanted), None)
        decision: dict[str, Any] = {
            "item": item["item"],
            "action": "KEEP_SEPARATE",
            "targets": [],
            "confidence": CONFIDENCE,
            "reasoning": self.judge,
        }
        if self.oracle:
            action = _ORACLE_ACTION.get(scenario.kind) if scenario is not None else None
            if action is not None and subject is not None:
                decision.update(action=action, targets=[int(subject["id"])])
            return decision
        target = subject or (candidates[0] if candidates else None)
        if target is None:
            return decision
        with self._lock:
            action = next(self._cycle)
        decision.update(action=action, targets=[int(target["id"])])
        if action in ("MERGE", "UPDATE"):
            decision["text"] = new  # the older fact is dropped
        return decision

    # --- a review run --------------------------------------------------------------

    def _label(self, pair: dict[str, Any]) -> dict[str, Any]:
        label = "DUPLICATE"
        if self.oracle:
            texts = frozenset((_key(pair["a"]["text"]), _key(pair["b"]["text"])))
            scenario = self._by_pair.get(texts)
            label = "RELATED" if scenario is None else _ORACLE_LABEL[scenario.kind]
        return {
            "pair": pair["pair"],
            "label": label,
            "confidence": CONFIDENCE,
            "reasoning": self.judge,
        }

    def _write(self, texts: list[str]) -> str:
        if not texts:
            return "-"
        # The oracle keeps every fact of a restatement (its longer text); the adversary
        # keeps one memory's text and drops the others.
        return max(texts, key=len) if self.oracle else texts[-1]


@contextmanager
def scripted_settings(
    settings: Settings, scenarios: Sequence[Scenario], judge: str
) -> Iterator[Settings]:
    """``settings`` pointed at a scripted server answering as ``judge``, served while the
    block runs. The rules never answer first and a failure is not retried by them, so
    every decision is the script's."""
    from memfold.testing.fake_llm import FakeLLMServer

    script = ScenarioScript(scenarios, judge)
    with FakeLLMServer(script) as server:
        llm = settings.llm.model_dump()
        llm.update(
            base_url=server.base_url,
            model="fake-model",
            api_key="scripted",
            rules_first_confidence=None,
        )
        yield settings.model_copy(update={"llm": type(settings.llm).model_validate(llm)})
