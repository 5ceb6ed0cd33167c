"""On-save consolidation through the real LLM client and a scripted server on loopback."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memfold import Memory, Settings, Status
from memfold.embed.local import LocalEmbedder
from memfold.judge.fallback import FallbackJudge
from memfold.judge.prompts import load_prompt
from memfold.testing.fake_llm import FakeLLMServer
from memfold.testing.fake_replies import Fault, Reply, user_payload


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as srv:
        yield srv


def _settings(
    server: FakeLLMServer, rules_first: float | None = None, **consolidation: Any
) -> Settings:
    """Settings for the scripted server. Most tests send every judged save to the LLM
    (rules_first None) so an exact restatement reaches it."""
    return Settings(
        llm={
            "base_url": server.base_url,
            "model": "fake-model",
            "api_key": "k",
            "utility": {"timeout_s": 1.0, "max_retries": 1},
            "rules_first_confidence": rules_first,
        },
        consolidation=consolidation,
    )


def _decide_all(action: str) -> Any:
    """A responder answering every item of a consolidation request with ``action``."""

    def respond(body: dict[str, Any]) -> dict[str, Any]:
        payload = user_payload(body)
        decisions = []
        for item in payload["items"]:
            cands = item["candidates"]
            decisions.append(
                {
                    "item": item["item"],
                    "action": action,
                    "target_ids": [cands[0]["id"]] if action != "ADD" else [],
                    "text": cands[0]["text"] if action in ("UPDATE", "MERGE") else None,
                    "area": "main",
                    "importance": 0.5,
                    "confidence": 0.95,
                    "reasoning": f"scripted {action}",
                }
            )
        return {"decisions": decisions}

    return respond


def test_no_call_below_threshold_and_one_call_for_a_duplicate(
    server: FakeLLMServer, db_path: Path, embedder: LocalEmbedder
) -> None:
    server.set_script(_decide_all("UPDATE"))
    with Memory(db_path, settings=_settings(server), embedder=embedder, consolidate="sync") as mem:
        assert isinstance(mem.judge, FallbackJudge)
        mem.add("Sam prefers Rust for systems work", user_id="s")
        mem.add("The payments service p95 latency budget is 250 ms", user_id="s")
        assert server.request_count("/chat/completions") == 0  # nothing >= 0.70 yet
        r = mem.add("Sam prefers Rust for systems work.", user_id="s")
        assert server.request_count("/chat/completions") == 1
        assert r.decision is not None and r.decision.action.value == "UPDATE"
        assert mem.get(r.memory.id).status is Status.SUPERSEDED
        entry = mem.log(1)[0]
        assert entry.judge == "llm" and entry.model == "fake-model"
        assert entry.prompt_version == load_prompt("consolidation").label
        body = server.chat_requests[-1]
        assert entry.prompt_tokens > 0 and entry.completion_tokens > 0
        usage = mem.usage()
        assert sum(row["calls"] for row in usage) == 1
        assert usage[0]["task"] == "consolidation" and usage[0]["outcome"] == "ok"
        assert json.dumps(body).count("Sam prefers Rust") >= 2


def test_restatements_the_rules_settle_cost_no_call(
    server: FakeLLMServer, db_path: Path, embedder: LocalEmbedder
) -> None:
    server.set_script(_decide_all("KEEP_SEPARATE"))
    settings = _settings(server, rules_first=0.9)
    with Memory(db_path, settings=settings, embedder=embedder, consolidate="sync") as mem:
        a = mem.add("Sam prefers Rust for systems work", user_id="s").memory
        r = mem.add("Sam prefers Rust for systems work.", user_id="s")
        assert server.request_count("/chat/completions") == 0
        assert r.decision is not None and r.decision.judge == "rules"
        assert mem.get(r.memory.id).superseded_by == a.id
        r2 = mem.add("Sam prefers Rust for systems work and Go for services", user_id="s")
        assert r2.decision is not None
        # Containment is settled by the rules as well; an unrelated-but-close one is not.
        mem.add("Sam likes Rust for systems programming", user_id="s")
        assert server.request_count("/chat/completions") == 1
        # A restatement in other words and a new value the rules read: no call either.
        mem.add("Sam's build cache is set to 20 GB.", user_id="s2")
        moved = mem.add("Sam's build cache was raised to 40 GB.", user_id="s2")
        assert moved.decision is not None and moved.decision.judge == "rules"
        assert moved.decision.action.value == "DELETE"
        mem.add("Lea is a member of the infrastructure team.", user_id="s3")
        same = mem.add("Lea is on the infrastructure team.", user_id="s3")
        assert same.decision is not None and same.decision.action.value == "REPLACE"
        assert server.request_count("/chat/completions") == 1


@pytest.mark.parametrize(
    "fault",
    [
        Fault.DELAY,
        Fault.RATE_LIMIT,
        Fault.SERVER_ERROR,
        Fault.MALFORMED,
        Fault.TRUNCATED,
        Fault.WRONG_SCHEMA,
        Fault.DROP,
    ],
)
def test_every_fault_is_a_skip_and_nothing_is_lost(
    server: FakeLLMServer, db_path: Path, embedder: LocalEmbedder, fault: Fault
) -> None:
    server.set_script(_decide_all("MERGE"))
    with Memory(db_path, settings=_settings(server), embedder=embedder, consolidate="sync") as mem:
        a = mem.add("Sam prefers Rust for systems work", user_id="s").memory
        server.fail_next(fault, times=10, delay_s=5.0)
        r = mem.add("Sam prefers Rust for systems work.", user_id="s")
        assert r.decision is not None and r.decision.action.value == "SKIP"
        assert {m.id for m in mem.list(user_id="s")} == {a.id, r.memory.id}
        # Timeouts, 429s, 5xx and dropped connections leave the job for a later run;
        # a reply that came back but does not validate is logged as a final SKIP.
        if fault in (Fault.DELAY, Fault.RATE_LIMIT, Fault.SERVER_ERROR, Fault.DROP):
            assert r.decision.transient
        assert mem.store.count_jobs("pending") == (1 if r.decision.transient else 0)
        assert r.decision.reasoning


def test_batched_background_decisions(
    server: FakeLLMServer, db_path: Path, embedder: LocalEmbedder
) -> None:
    server.set_script(_decide_all("KEEP_SEPARATE"))
    settings = _settings(server, batch_size=8)
    with Memory(db_path, settings=settings, embedder=embedder, consolidate="off") as setup:
        setup.add("Sam likes hiking in the Alps", user_id="s")
    with Memory(db_path, settings=settings, embedder=embedder, consolidate="background") as mem:
        mem._worker.stop()  # type: ignore[union-attr]  # let jobs pile up, then drain at once
        mem._worker = None
        for i in range(8):
            mem.add(f"Sam likes hiking in the Alps with friend number {i}", user_id="s")
        assert mem.flush() == 8
        assert server.request_count("/chat/completions") == 1
        assert len([e for e in mem.log(100) if e.action == "KEEP_SEPARATE"]) == 8


def test_unreachable_endpoint_falls_back_to_rules_logged_once(
    db_path: Path, embedder: LocalEmbedder, caplog: pytest.LogCaptureFixture
) -> None:
    settings = Settings(
        llm={
            "base_url": "http://127.0.0.1:9/v1",
            "model": "m",
            "utility": {"timeout_s": 0.5, "probe_timeout_s": 0.5, "max_retries": 0},
        }
    )
    caplog.set_level(logging.WARNING)
    with Memory(db_path, settings=settings, embedder=embedder, consolidate="sync") as mem:
        mem.add("Sam prefers Rust for systems work", user_id="s")
        r1 = mem.add("Sam prefers Rust for systems work", user_id="s")
        mem.add("Sam likes coffee", user_id="s")
        r2 = mem.add("Sam likes coffee", user_id="s")
        assert r1.decision is not None and r1.decision.judge == "rules"
        assert mem.get(r1.memory.id).status is Status.SUPERSEDED
        assert mem.get(r2.memory.id).status is Status.SUPERSEDED
    warnings = [r.name for r in caplog.records if "unavailable" in r.getMessage()]
    # Once from the fallback ("rules take over"), once from the client; never per call.
    assert sorted(warnings) == ["memfold.judge.fallback", "memfold.llm"]


def test_missing_model_fails_at_configuration(db_path: Path, embedder: LocalEmbedder) -> None:
    from memfold import ConfigError

    settings = Settings(llm={"base_url": "http://127.0.0.1:9/v1"})
    with pytest.raises(ConfigError, match="no model"):
        Memory(db_path, settings=settings, embedder=embedder)


def test_replies_with_a_placeholder_never_sent_are_rejected(
    server: FakeLLMServer, db_path: Path, embedder: LocalEmbedder
) -> None:
    secret = "sk-proj-" + "Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF"

    def respond(body: dict[str, Any]) -> Reply:
        text = json.dumps(body)
        assert secret not in text
        item = user_payload(body)["items"][0]
        cand = item["candidates"][0]
        return Reply(
            content={
                "decisions": [
                    {
                        "item": 1,
                        "action": "UPDATE",
                        "target_ids": [cand["id"]],
                        "text": cand["text"] + " and [[SECRET_9]]",
                        "area": "main",
                        "importance": 0.5,
                        "confidence": 0.9,
                        "reasoning": "x",
                    }
                ]
            }
        )

    server.set_script(respond)
    with Memory(db_path, settings=_settings(server), embedder=embedder, consolidate="sync") as mem:
        mem.add(f"The deploy key for staging is {secret}", user_id="s")
        r = mem.add(f"The deploy key for staging is {secret}.", user_id="s")
        assert r.decision is not None and r.decision.action.value == "SKIP"
        assert all(secret in m.text for m in mem.list(user_id="s"))


def test_usage_command_reports_calls(
    server: FakeLLMServer,
    db_path: Path,
    embedder: LocalEmbedder,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from memfold.cli import main

    server.set_script(_decide_all("KEEP_SEPARATE"))
    with Memory(db_path, settings=_settings(server), embedder=embedder, consolidate="sync") as mem:
        mem.add("Sam likes hiking in the Alps", user_id="s")
        mem.add("Sam likes hiking in the Alps in summer", user_id="s")
    monkeypatch.setenv("MEMFOLD_LLM_BASE_URL", server.base_url)
    monkeypatch.setenv("MEMFOLD_LLM_MODEL", "fake-model")
    with pytest.raises(SystemExit) as info:
        main(["usage", "-p", str(db_path), "--json"])
    assert info.value.code == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["task"], r["calls"], r["outcome"]) for r in rows] == [("consolidation", 1, "ok")]
    assert rows[0]["prompt_tokens"] > 0 and rows[0]["completion_tokens"] > 0
