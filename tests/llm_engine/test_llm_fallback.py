"""An LLM that goes down mid-session, and a worker process fed bad replies (scripted server)."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from memfold import Memory, Settings
from memfold.embed.local import LocalEmbedder
from memfold.judge.fallback import FallbackJudge
from memfold.judge.llm import LLMJudge
from memfold.judge.rules import RuleJudge
from memfold.model import Action, AddResult
from memfold.store.sqlite import SQLiteStore
from memfold.testing.fake_llm import FakeLLMServer
from memfold.testing.fake_replies import Fault, user_payload

CHAT = "/chat/completions"


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as srv:
        yield srv


def _keep_separate(body: dict[str, Any]) -> dict[str, Any]:
    items = user_payload(body)["items"]
    return {
        "decisions": [
            {
                "item": it["item"],
                "action": "KEEP_SEPARATE",
                "target_ids": [],
                "text": None,
                "area": "main",
                "importance": 0.5,
                "confidence": 0.9,
                "reasoning": "scripted",
            }
            for it in items
        ]
    }


def _settings(server: FakeLLMServer, *, backoff_s: float, **llm: Any) -> Settings:
    """Every judged save to the scripted server, one try a call; ``backoff_s`` between
    a save's tries."""
    return Settings(
        llm={
            "base_url": server.base_url,
            "model": "fake-model",
            "api_key": "k",
            "utility": {"timeout_s": 2.0, "max_retries": 0},
            "rules_first_confidence": None,
            **llm,
        },
        consolidation={"backoff_s": backoff_s, "backoff_max_s": backoff_s},
    )


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_an_llm_that_goes_down_mid_session_hands_over_to_the_rules(
    server: FakeLLMServer,
    db_path: Path,
    embedder: LocalEmbedder,
    caplog: pytest.LogCaptureFixture,
) -> None:
    server.set_script(_keep_separate)
    settings = _settings(server, backoff_s=3600.0)
    clock = Clock()
    judge = FallbackJudge(
        LLMJudge(settings.llm),
        RuleJudge(settings.consolidation),
        recheck_after_s=60.0,
        fail_after=2,
        clock=clock,
    )
    caplog.set_level(logging.INFO, logger="memfold.judge.fallback")
    with Memory(
        db_path, settings=settings, embedder=embedder, judge=judge, consolidate="sync"
    ) as mem:

        def restated(text: str) -> AddResult:
            mem.add(text, user_id="s")
            return mem.add(text, user_id="s")

        def decided_by(r: AddResult) -> str:
            assert r.decision is not None
            return r.decision.judge

        assert decided_by(restated("Sam prefers Rust for systems work")) == "llm"
        assert server.request_count(CHAT) == 1
        server.fail_next(Fault.SERVER_ERROR, times=3)
        first = restated("The payments service p95 latency budget is 250 ms")
        assert first.decision is not None and first.decision.transient  # 1st failure
        # The 2nd failure in a row hands over: the rules decide this very save.
        second = restated("Alice keeps three cats in her flat in Lyon")
        assert decided_by(second) == "rules" and second.decision is not None
        assert second.decision.action is not Action.SKIP
        assert server.request_count(CHAT) == 3
        # During the cooldown the LLM is not asked at all.
        assert decided_by(restated("Bob drinks two espressos every morning")) == "rules"
        assert server.request_count(CHAT) == 3
        # After it: probed, asked once, still failing: the rules decide again at once.
        clock.now += 61.0
        assert decided_by(restated("Carol rides the early train to the office")) == "rules"
        assert server.request_count(CHAT) == 4
        # After the next cooldown the LLM answers again and decides.
        clock.now += 61.0
        assert decided_by(restated("Dan stores his bicycle in the basement")) == "llm"
        assert server.request_count(CHAT) == 5
    messages = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len([m for m in messages if "in a row" in m]) == 1  # the switch, once
    assert len([m for m in messages if "decides again" in m]) == 1


def test_with_no_fallback_a_save_the_llm_cannot_judge_waits_for_the_next_cycle(
    server: FakeLLMServer, db_path: Path, embedder: LocalEmbedder
) -> None:
    """Seed 000: "silently skipped, picked up by the next successful consolidation
    cycle" (``llm.fallback_after_failures = None``): the rules never decide for it."""
    server.set_script(_keep_separate)
    settings = _settings(server, backoff_s=0.01, fallback_after_failures=None)
    server.fail_next(Fault.SERVER_ERROR, times=5)
    with Memory(db_path, settings=settings, embedder=embedder, consolidate="sync") as mem:
        decided = []
        for text in ("Ivo keeps bees on his roof", "Ivo sells the honey at the Sunday market"):
            mem.add(text, user_id="s")
            decided.append(mem.add(text, user_id="s"))
        for result in decided:  # skipped, never the rules' decision
            assert result.decision is not None and result.decision.transient
            assert result.decision.action is Action.SKIP and result.decision.judge != "rules"
        assert mem.stats()["jobs_waiting"] + mem.stats().get("jobs_pending", 0) >= 1
        for _ in range(50):  # the next cycles, once the LLM answers again
            time.sleep(0.02)
            mem.flush()
            if not mem.stats()["jobs_waiting"]:
                break
        logged = [row for row in mem.store.list_log() if row.action == "KEEP_SEPARATE"]
        assert logged and all(row.judge == "llm" for row in logged)
        assert not [row for row in mem.store.list_log() if row.judge == "rules"]


def _worker_env(server: FakeLLMServer, folder: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMFOLD_")}
    env.pop("OPENAI_API_KEY", None)
    env.update(
        XDG_CONFIG_HOME=str(folder / "xdg-config"),
        MEMFOLD_LLM_BASE_URL=server.base_url,
        MEMFOLD_LLM_MODEL="fake-model",
        MEMFOLD_LLM__UTILITY__MAX_RETRIES="0",
        MEMFOLD_LLM__FALLBACK_AFTER_FAILURES="100",
        MEMFOLD_CONSOLIDATION__BACKOFF_S="0.05",
        MEMFOLD_CONSOLIDATION__WORKER_POLL_S="0.05",
    )
    return env


def _wait(condition: Callable[[], bool], proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 120
    while not condition():
        assert proc.poll() is None, "the worker exited"
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_memfold_worker_outlives_bad_replies(
    server: FakeLLMServer, db_path: Path, embedder: LocalEmbedder, tmp_path: Path
) -> None:
    server.set_script(_keep_separate)
    with Memory(db_path, embedder=embedder, consolidate="queue") as mem:
        mem.add("Sam likes hiking in the Alps", user_id="s")
        # A contradiction the rules leave to the LLM (their confidence is under 0.9).
        first = mem.add("Sam does not like hiking in the Alps", user_id="s").memory
    server.fail_next(Fault.MALFORMED)
    proc = subprocess.Popen(
        [sys.executable, "-m", "memfold.cli", "worker", "--path", str(db_path)],
        env=_worker_env(server, tmp_path),
        stdout=subprocess.DEVNULL,
    )
    store = SQLiteStore(db_path)
    try:

        def settled() -> bool:
            return store.count_jobs("pending") + store.count_jobs("running") == 0

        _wait(settled, proc)
        (skip,) = store.list_log(memory_id=first.id)
        assert skip.action == "SKIP" and "malformed" in skip.reasoning
        # Still running: a save after the bad reply is decided, through a 500 and a retry.
        server.fail_next(Fault.SERVER_ERROR)
        with Memory(db_path, embedder=embedder, consolidate="queue") as mem:
            second = mem.add("Sam goes hiking in the Alps every summer", user_id="s").memory
        _wait(lambda: settled() and bool(store.list_log(memory_id=second.id)), proc)
        (kept,) = store.list_log(memory_id=second.id)
        assert kept.action == "KEEP_SEPARATE" and kept.judge == "llm"
        assert server.request_count(CHAT) == 3
        assert proc.poll() is None
    finally:
        store.close()
        os.kill(proc.pid, signal.SIGTERM)
        proc.wait(timeout=60)
