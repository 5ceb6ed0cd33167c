"""LLMJudge round trips against the scripted server: batching, SKIP on faults, secrets."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from memfold.config import LLMSettings, RoleSettings
from memfold.errors import ConfigError
from memfold.judge.base import PairInput, SaveItem
from memfold.judge.llm import LLMJudge, split_tokens
from memfold.judge.prompts import load_prompt
from memfold.model import Action, Area, Candidate, MemoryRecord, PairLabel, Scope
from memfold.testing.fake_llm import FakeLLMServer
from memfold.testing.fake_replies import Fault, Reply, confident, user_payload

MakeSettings = Callable[..., LLMSettings]
SCOPE = Scope(user_id="u1")


def mem(id_: str, text: str) -> MemoryRecord:
    return MemoryRecord(id=id_, scope=SCOPE, text=text)


def save_items(n: int) -> list[SaveItem]:
    return [
        SaveItem(
            new=mem(f"new{i}", f"User fact number {i} in detail"),
            candidates=[Candidate(mem(f"old{i}", f"User fact number {i}"), 0.93)],
        )
        for i in range(n)
    ]


def merge_all(body: dict[str, Any]) -> Reply:
    """Responder: MERGE every item with its candidates, text = new + candidate texts."""
    decisions = []
    for item in user_payload(body)["items"]:
        texts = [item["new"]["text"], *(c["text"] for c in item["candidates"])]
        decisions.append(
            {
                "item": item["item"],
                "action": "MERGE",
                "target_ids": [c["id"] for c in item["candidates"]],
                "text": " | ".join(texts),
                "area": "solutions",
                "importance": 0.7,
                "confidence": 0.9,
                "reasoning": f"same as {item['candidates'][0]['id']}",
            }
        )
    return confident({"decisions": decisions})


def echo_memories(body: dict[str, Any]) -> dict[str, Any]:
    texts = [m["text"] for m in user_payload(body)["memories"]]
    return {"text": "\n".join(texts), "reasoning": "kept everything"}


@pytest.fixture
def judge(make_settings: MakeSettings) -> Any:
    j = LLMJudge(make_settings(timeout_s=0.8), batch_size=8, classify_batch=8)
    yield j
    j.close()


def test_eight_items_one_request(server: FakeLLMServer, judge: LLMJudge) -> None:
    server.set_script(merge_all)
    decisions = judge.decide(save_items(8))
    assert server.request_count() == 1
    body = server.chat_requests[0]
    prompt = load_prompt("consolidation")
    # System prompt, then the worked examples, then the one message that varies.
    assert len(body["messages"]) == 2 + len(prompt.examples)
    assert [d.action for d in decisions] == [Action.MERGE] * 8
    first = decisions[0]
    # The reply named candidate 1 of item 1; the judge maps it back to its id.
    assert first.target_ids == ["old0"]
    assert first.text == "User fact number 0 in detail | User fact number 0"
    assert first.area is Area.SOLUTIONS
    assert (first.importance, first.confidence) == (0.7, 0.9)
    assert first.reasoning == "same as 1"
    assert first.judge == "llm" and first.model == "fake-model"
    assert first.prompt_version == f"consolidation@{prompt.version}"
    candidate = user_payload(body)["items"][0]["candidates"][0]
    assert candidate == {"id": "1", "text": "User fact number 0"}
    # The memories go last, as numbered lines with the words that differ; no ids.
    last = body["messages"][-1]["content"]
    assert last.startswith("Item 1\nNEW: User fact number 0 in detail\n1: User fact number 0 ")
    assert "(differs: detail / -)" in last and "old0" not in last
    # 160 reply tokens an item, capped at the role's max_completion_tokens (1024).
    assert body["max_tokens"] == body["max_completion_tokens"] == 1024


def test_prompt_prefix_is_identical_across_calls(server: FakeLLMServer, judge: LLMJudge) -> None:
    server.set_script(merge_all)
    judge.decide(save_items(1))
    judge.decide(save_items(3))
    first, second = (b["messages"] for b in server.chat_requests)
    assert first[:-1] == second[:-1]  # a server can cache everything before the memories
    assert first[-1] != second[-1]
    assert json.dumps(first[:-1]) == json.dumps(second[:-1])


def test_tokens_are_split_across_the_batch(server: FakeLLMServer, judge: LLMJudge) -> None:
    server.set_script(merge_all)
    decisions = judge.decide(save_items(3))
    sink_rows = judge.client.usage_sink.calls  # type: ignore[attr-defined]
    assert sum(d.prompt_tokens for d in decisions) == sink_rows[0]["prompt_tokens"]
    assert sum(d.completion_tokens for d in decisions) == sink_rows[0]["completion_tokens"]
    assert split_tokens(10, 3) == [4, 3, 3]


def test_batches_of_batch_size(server: FakeLLMServer, judge: LLMJudge) -> None:
    server.set_script(merge_all)
    decisions = judge.decide(save_items(10))
    assert server.request_count() == 2
    assert len(decisions) == 10
    assert [d.target_ids[0] for d in decisions] == [f"old{i}" for i in range(10)]
    assert judge.decide([]) == []


def test_missing_or_bad_decision_is_a_skip_for_that_item(
    server: FakeLLMServer, judge: LLMJudge
) -> None:
    server.set_script(
        [
            {
                "decisions": [
                    {"item": 2, "action": "ADD", "confidence": 0.8},
                    {"item": 3, "action": "FROBNICATE", "confidence": 0.8},
                ]
            }
        ]
    )
    decisions = judge.decide(save_items(3))
    assert [d.action for d in decisions] == [Action.SKIP, Action.ADD, Action.SKIP]
    assert "no decision for item 1" in decisions[0].reasoning
    assert "item 3" in decisions[2].reasoning
    assert not decisions[0].transient and not decisions[2].transient


@pytest.mark.parametrize(
    ("fault", "transient"),
    [
        (Fault.DELAY, True),
        (Fault.RATE_LIMIT, True),
        (Fault.SERVER_ERROR, True),
        (Fault.DROP, True),
        (Fault.MALFORMED, False),
        (Fault.TRUNCATED, False),
        (Fault.WRONG_SCHEMA, False),
    ],
)
def test_every_fault_becomes_skip(
    server: FakeLLMServer, make_settings: MakeSettings, fault: Fault, transient: bool
) -> None:
    server.fail_next(fault, times=10)
    with LLMJudge(make_settings(timeout_s=0.8, max_retries=1)) as judge:
        decisions = judge.decide(save_items(2))
        verdicts = judge.classify([PairInput(mem("a", "x"), mem("b", "y"), 0.9)])
        merged = judge.merge_text([mem("a", "x"), mem("b", "y")])
        compressed = judge.compress([mem("a", "x")])
    assert [d.action for d in decisions] == [Action.SKIP, Action.SKIP]
    assert all(d.transient is transient for d in decisions)
    label = load_prompt("consolidation").label
    assert all(d.reasoning and d.prompt_version == label for d in decisions)
    assert verdicts[0].label is None and verdicts[0].reasoning
    assert merged.text is None and merged.extra["transient"] == str(transient).lower()
    assert compressed.text is None and compressed.reasoning


def test_budget_exhausted_is_a_transient_skip_without_a_request(
    server: FakeLLMServer, make_settings: MakeSettings
) -> None:
    with LLMJudge(make_settings(daily_token_budget=0)) as judge:
        decisions = judge.decide(save_items(1))
    assert decisions[0].action is Action.SKIP and decisions[0].transient
    assert "BudgetExhausted" in decisions[0].reasoning
    assert server.request_count() == 0


def test_classify_labels_and_invalid_verdicts(server: FakeLLMServer, judge: LLMJudge) -> None:
    verdicts_reply = {
        "verdicts": [
            {"pair": 1, "label": "DUPLICATE", "confidence": 0.95, "reasoning": "same"},
            {"pair": 2, "label": "SUPERSEDED", "confidence": 0.8, "reasoning": "newer"},
            {"pair": 3, "label": "CONTRADICTION", "reasoning": "no confidence"},
            {"pair": 4, "label": "UNRELATED", "confidence": 0.9},
            {"pair": 5, "label": "RELATED", "confidence": 0.6, "reasoning": "topic"},
        ]
    }
    server.set_script([confident(verdicts_reply)])
    pairs = [
        PairInput(mem(f"a{i}", f"fact {i}"), mem(f"b{i}", f"fact {i}!"), 0.9) for i in range(6)
    ]
    verdicts = judge.classify(pairs)
    assert server.request_count() == 1
    assert [v.label for v in verdicts] == [
        PairLabel.DUPLICATE, PairLabel.SUPERSEDED, PairLabel.CONTRADICTION, None,
        PairLabel.RELATED, None,
    ]  # fmt: skip
    assert verdicts[0].confidence == pytest.approx(0.95) and verdicts[0].reasoning == "same"
    assert verdicts[2].confidence == pytest.approx(1.0)  # its label token at p = 1
    # The same reply without log-probabilities: the stated numbers count for nothing.
    server.set_script([verdicts_reply])
    again = judge.classify(pairs)
    assert [v.confidence for v in again if v.label is not None] == [0.0] * 4
    assert "stated confidence 0.95 not counted" in (again[0].reasoning or "")
    prompt = load_prompt("classification")
    assert all(v.prompt_version == prompt.label for v in verdicts)
    body = server.chat_requests[0]
    assert user_payload(body)["pairs"][0] == {
        "pair": 1, "a": {"text": "fact 0"}, "b": {"text": "fact 0!"},
    }  # fmt: skip
    assert body["max_tokens"] == 6 * 160
    shown = " ".join(c for role, c in prompt.examples if role == "assistant")
    for label in ("DUPLICATE", "RELATED", "CONTRADICTION", "SUPERSEDED"):
        assert f'"label":"{label}"' in shown  # a worked example of every label


def test_merge_text_and_compress_round_trip(server: FakeLLMServer, judge: LLMJudge) -> None:
    server.set_script(echo_memories)
    memories = [mem("a", "User lives in Berlin"), mem("b", "User moved to Berlin in 2024")]
    merged = judge.merge_text(memories)
    assert merged.text == "User lives in Berlin\nUser moved to Berlin in 2024"
    assert merged.prompt_version == "merge@1" and merged.prompt_tokens > 0
    summary = judge.compress(memories)
    assert summary.text == merged.text and summary.prompt_version == "compress@3"
    assert judge.merge_text([]).text is None


def test_secrets_never_leave_and_come_back(
    server: FakeLLMServer, judge: LLMJudge, secret_corpus: list[dict[str, str]]
) -> None:
    server.set_script(echo_memories)
    memories = [mem(f"m{i}", row["text"]) for i, row in enumerate(secret_corpus)]
    merged = judge.merge_text(memories)
    compressed = judge.compress(memories[:10])
    server.set_script(merge_all)
    items = [
        SaveItem(new=memories[i], candidates=[Candidate(memories[i + 1], 0.95)])
        for i in range(0, len(memories) - 1, 2)
    ]
    decisions = judge.decide(items)
    assert merged.text is not None and compressed.text is not None
    for row in secret_corpus:
        assert row["secret"] in merged.text, row["kind"]
    for row in secret_corpus[:10]:
        assert row["secret"] in compressed.text
    for item, decision in zip(items, decisions, strict=True):
        assert decision.action is Action.MERGE, decision.reasoning
        assert decision.text == f"{item.new.text} | {item.candidates[0].memory.text}"
    bodies = [r.raw for r in server.requests]
    contents = [m["content"] for b in server.chat_requests for m in b["messages"]]
    decoded = [json.dumps(user_payload(b), ensure_ascii=False) for b in server.chat_requests]
    for row in secret_corpus:
        for text in (*bodies, *contents, *decoded):
            assert row["secret"] not in text, row["kind"]


def test_configuration_errors_at_construction() -> None:
    with pytest.raises(ConfigError):
        LLMJudge(LLMSettings())
    with pytest.raises(ConfigError):
        LLMJudge(LLMSettings(base_url="http://127.0.0.1:9/v1"))
    # A role with its own endpoint and model is enough.
    LLMJudge(LLMSettings(utility=RoleSettings(base_url="http://127.0.0.1:9/v1", model="m"))).close()


def test_unavailable_endpoint(caplog: pytest.LogCaptureFixture) -> None:
    import logging
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    settings = LLMSettings(
        base_url=f"http://127.0.0.1:{port}/v1",
        model="m",
        utility=RoleSettings(timeout_s=1, max_retries=0),
    )
    with caplog.at_level(logging.WARNING), LLMJudge(settings) as judge:
        assert judge.available() is False
        for _ in range(3):
            decision = judge.decide(save_items(1))[0]
            assert decision.action is Action.SKIP and decision.transient
    assert len([r for r in caplog.records if "unavailable" in r.getMessage()]) == 1


async def test_async_variants(server: FakeLLMServer, judge: LLMJudge) -> None:
    server.set_script(merge_all)
    decisions = await judge.adecide(save_items(2))
    assert [d.action for d in decisions] == [Action.MERGE, Action.MERGE]
    assert await judge.aavailable() is True


def test_merge_that_keeps_the_new_text_is_a_replace(server: FakeLLMServer, judge: LLMJudge) -> None:
    def merge_into_new(body: dict[str, Any]) -> dict[str, Any]:
        items = user_payload(body)["items"]
        texts = [
            item["new"]["text"].upper() + "." if n == 0 else "Merged words"
            for n, item in enumerate(items)
        ]
        return {
            "decisions": [
                {
                    "item": item["item"],
                    "action": "MERGE",
                    "targets": [1],
                    "text": text,
                    "confidence": 0.9,
                    "reasoning": "same fact",
                }
                for item, text in zip(items, texts, strict=True)
            ]
        }

    server.set_script(merge_into_new)
    first, second = judge.decide(save_items(2))
    # The new text again (up to case and a full stop): the old one is replaced by it.
    assert first.action is Action.REPLACE and first.text is None
    assert first.target_ids == ["old0"]
    # A real merge keeps its own text.
    assert second.action is Action.MERGE and second.text == "Merged words"
