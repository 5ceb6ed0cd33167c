"""Section 3: an adversarial judge through the real LLM client.

memfold runs in sync mode with an LLM configured against ``FakeLLMServer``; every
consolidation request is answered by the next reply kind of a shuffled cycle (see
``reliability.replies``). The stream spans several scopes, so memories of other scopes
exist. After the run (and a final ``flush()``), the independent oracle checks every
applied log row; exceptions escaping ``add()`` or ``flush()`` and texts over the limit
in the store are counted too.
"""

from __future__ import annotations

import random
import sqlite3
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reliability.common import connect, log_rows, memory_texts
from reliability.corpus import NAMES, stream
from reliability.oracle import TARGET_TWICE, Limits, Violation, bad_chars, check_rows
from reliability.replies import KINDS, Env, reply_for


@dataclass(slots=True)
class Responder:
    """The scripted server's answer function: records what each request offered."""

    db: Path
    rng: random.Random
    max_text_chars: int
    slow_s: float
    served: Counter[str] = field(default_factory=Counter)
    requests: Counter[str] = field(default_factory=Counter)
    offered: dict[str, set[str]] = field(default_factory=dict)
    last_kind: dict[str, str] = field(default_factory=dict)
    _cycle: list[str] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def _next_kind(self) -> str:
        with self._lock:
            if not self._cycle:
                self._cycle = list(KINDS)
                self.rng.shuffle(self._cycle)
            return self._cycle.pop()

    def _other_scope(self, candidate_id: str) -> str | None:
        conn = connect(self.db)
        try:
            rows = conn.execute(
                "SELECT id FROM memories WHERE user_id IS NOT (SELECT user_id FROM memories "
                "WHERE id = ?) ORDER BY rowid DESC LIMIT 20",
                (candidate_id,),
            ).fetchall()
        except sqlite3.Error:
            return None
        finally:
            conn.close()
        return str(self.rng.choice(rows)[0]) if rows else None

    def __call__(self, body: dict[str, Any]) -> Any:
        from memfold.testing.fake_replies import user_payload

        payload = user_payload(body)
        items = list(payload.get("items") or [])
        kind = self._next_kind()
        first = items[0]["candidates"][0]["id"] if items and items[0]["candidates"] else ""
        env = Env(self._other_scope(first), self.max_text_chars, self.slow_s)
        with self._lock:
            self.requests[kind] += 1
            self.served[kind] += len(items)
            for item in items:
                new_id = str(item["new"]["id"])
                self.offered.setdefault(new_id, set()).update(
                    str(c["id"]) for c in item["candidates"]
                )
                self.last_kind[new_id] = kind
        return reply_for(kind, items, env)


@dataclass(slots=True)
class AdversarialResult:
    decisions: int = 0
    requests: int = 0
    kinds: int = 0
    adds: int = 0
    seconds: float = 0.0
    escaped: int = 0
    violations: int = 0
    targets_twice: int = 0
    over_limit_stored: int = 0
    bad_chars_stored: int = 0
    applied: Counter[str] = field(default_factory=Counter)
    by_kind: dict[str, dict[str, int]] = field(default_factory=dict)
    by_reason: Counter[str] = field(default_factory=Counter)
    examples: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "decisions": self.decisions,
            "requests": self.requests,
            "kinds": self.kinds,
            "adds": self.adds,
            "seconds": self.seconds,
            "exceptions_escaped": self.escaped,
            "violations": self.violations,
            "targets_named_twice": self.targets_twice,
            "over_limit_stored": self.over_limit_stored,
            "bad_chars_stored": self.bad_chars_stored,
            "applied": dict(self.applied),
            "by_kind": self.by_kind,
            "by_reason": dict(self.by_reason),
            "examples": self.examples,
        }


def _reason_key(reason: str) -> str:
    return reason.split(" (")[0].split(" [")[0]


def llm_settings(base_url: str, timeout_s: float, **extra: Any) -> Any:
    from memfold import Settings

    return Settings(
        llm={
            "base_url": base_url,
            "model": "fake-model",
            "api_key": "k",
            "utility": {"timeout_s": timeout_s, "max_retries": 1, "retry_backoff_s": 0.0},
            "rules_first_confidence": None,
            "recheck_after_s": 0.0,
        },
        **extra,
    )


def run_adversarial(
    folder: Path, embedder: Any, *, decisions: int, seed: int, timeout_s: float = 0.4
) -> AdversarialResult:
    from memfold import Memory
    from memfold.testing.fake_llm import FakeLLMServer

    rng = random.Random(seed)
    db = folder / "adversarial.db"
    result = AdversarialResult()
    users = [f"user{n}" for n in range(8)]
    streams = {
        u: stream(random.Random(seed * 31 + n), NAMES[n % 8 : n % 8 + 2])
        for n, u in enumerate(users)
    }
    started = time.monotonic()
    with FakeLLMServer() as server:
        settings = llm_settings(server.base_url, timeout_s)
        responder = Responder(db, rng, settings.store.max_text_chars, slow_s=timeout_s * 2.5)
        server.set_script(responder)
        with Memory(db, settings=settings, embedder=embedder, consolidate="sync") as mem:
            while sum(responder.served.values()) < decisions:
                user = rng.choice(users)
                result.adds += 1
                try:
                    mem.add(next(streams[user]), user_id=user, sources=[f"s{result.adds}"])
                except Exception as exc:
                    result.escaped += 1
                    if len(result.examples) < 10:
                        result.examples.append(f"add: {type(exc).__name__}: {exc}")
            for _ in range(3):  # transient skips wait for a later run
                try:
                    mem.flush()
                except Exception as exc:
                    result.escaped += 1
                    result.examples.append(f"flush: {type(exc).__name__}: {exc}")
        limits = Limits.from_settings(settings)
    result.seconds = round(time.monotonic() - started, 2)
    result.decisions = sum(responder.served.values())
    result.requests = sum(responder.requests.values())
    result.kinds = len(responder.requests)
    rows = log_rows(db)
    found = check_rows(rows, limits, responder.offered)
    violations = [v for v in found if set(v.reasons) - {TARGET_TWICE}]
    result.violations = len(violations)
    result.targets_twice = sum(TARGET_TWICE in v.reasons for v in found)
    applied_by_kind: Counter[str] = Counter()
    for row in rows:
        if row.path == "on_save" and row.undoes is None and row.input_ids:
            result.applied[row.action] += 1
            if row.action in ("UPDATE", "MERGE", "REPLACE", "DELETE"):
                applied_by_kind[responder.last_kind.get(row.input_ids[0], "rules")] += 1
    violated_by_kind = Counter(responder.last_kind.get(v.new_id, "rules") for v in violations)
    for kind in sorted(set(responder.requests) | set(applied_by_kind)):
        result.by_kind[kind] = {
            "requests": responder.requests[kind],
            "decisions": responder.served[kind],
            "applied": applied_by_kind[kind],
            "violations": violated_by_kind[kind],
        }
    for v in found:
        for reason in v.reasons:
            result.by_reason[_reason_key(reason)] += 1
    result.examples += [_example(v, responder.last_kind) for v in violations[:8]]
    for _, text in memory_texts(db).values():
        result.over_limit_stored += len(text) > limits.max_text_chars
        result.bad_chars_stored += bool(bad_chars(text))
    return result


def _example(v: Violation, kinds: dict[str, str]) -> str:
    kind = kinds.get(v.new_id, "rules")
    return f"log #{v.row_id} {v.action} ({kind}): {'; '.join(v.reasons)[:200]}"
