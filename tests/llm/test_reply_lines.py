"""The judge's one-line-per-item reply: read back into decisions, with the action's token
probability as the confidence, area and importance from the same line."""

from __future__ import annotations

import math
from collections.abc import Callable

import pytest

from memfold.config import LLMSettings
from memfold.errors import LLMReplyInvalid
from memfold.judge.base import SaveItem
from memfold.judge.llm import LLMJudge
from memfold.judge.prompts import load_prompt
from memfold.judge.reply_lines import ACTION_SPAN, read_decision_lines
from memfold.llm.logprobs import TokenLogprob, span_probability
from memfold.model import Action, Area, Candidate, Category, MemoryRecord, Scope
from memfold.testing.fake_llm import FakeLLMServer
from memfold.testing.fake_replies import Reply, logprob_tokens

MakeSettings = Callable[..., LLMSettings]
SCOPE = Scope(user_id="u1")


def _item(new: str, *olds: str) -> SaveItem:
    cands = [
        Candidate(MemoryRecord(id=f"old{k}", scope=SCOPE, text=t), 0.8) for k, t in enumerate(olds)
    ]
    return SaveItem(MemoryRecord(id="new", scope=SCOPE, text=new), cands)


def test_a_line_reads_as_a_decision_row() -> None:
    reply = "1 REPLACE 1 semantic main 6"
    (row,) = read_decision_lines(reply)["decisions"]
    assert row["item"] == 1 and row["action"] == "REPLACE" and row["targets"] == [1]
    assert (row["category"], row["area"], row["importance"]) == ("semantic", "main", 0.6)
    start, end = row[ACTION_SPAN]
    assert reply[start:end] == "REPLACE"


def test_several_lines_targets_reasons_and_texts() -> None:
    reply = (
        "1 same latte, each adds a detail: MERGE 1,3 semantic main 3 | Ravi drinks an oat"
        " milk latte at 7.\n2 KEEP_SEPARATE - episodic main 4\n3 add - procedural"
        " instruments 8\n"
    )
    rows = read_decision_lines(reply)["decisions"]
    assert [r["item"] for r in rows] == [1, 2, 3]
    assert rows[0]["targets"] == [1, 3]
    assert rows[0]["reasoning"] == "same latte, each adds a detail"
    assert rows[0]["text"] == "Ravi drinks an oat milk latte at 7."
    assert rows[1]["targets"] == [] and "text" not in rows[1]
    assert rows[2]["action"] == "ADD"  # any case
    assert [reply[slice(*r[ACTION_SPAN])].upper() for r in rows] == [
        "MERGE",
        "KEEP_SEPARATE",
        "ADD",
    ]


def test_a_json_reply_is_still_read() -> None:
    rows = read_decision_lines('{"decisions":[{"item":1,"action":"ADD"}]}')["decisions"]
    assert rows == [{"item": 1, "action": "ADD"}]
    assert read_decision_lines('[{"item":2,"action":"SKIP"}]')["decisions"][0]["item"] == 2


@pytest.mark.parametrize("reply", ["", "I think these are the same.", "1 MAYBE 2", "{not json"])
def test_a_reply_with_no_decision_line_is_invalid(reply: str) -> None:
    with pytest.raises(LLMReplyInvalid):
        read_decision_lines(reply)


def test_span_probability_multiplies_the_overlapping_tokens() -> None:
    tokens = [
        TokenLogprob("1", 0.0),
        TokenLogprob(" KEEP", math.log(0.5)),
        TokenLogprob("_SEPARATE", math.log(0.9)),
        TokenLogprob(" -", 0.0),
    ]
    reply = "1 KEEP_SEPARATE -"
    assert span_probability(tokens, reply, (2, 15)) == pytest.approx(0.45)
    assert span_probability(tokens, reply + " x", (2, 15)) is None  # tokens do not spell it
    assert span_probability(tokens, reply, (4, 4)) is None


def test_the_packaged_consolidation_prompt_asks_for_lines() -> None:
    prompt = load_prompt("consolidation")
    assert prompt.reply == "lines"
    for role, content in prompt.examples:
        if role == "assistant":  # every worked answer reads as the format it teaches
            rows = read_decision_lines(content)["decisions"]
            assert rows and all(
                ACTION_SPAN in r and "area" in r and "importance" in r for r in rows
            )


def test_the_judge_reads_a_line_reply_with_its_action_probability(
    server: FakeLLMServer, make_settings: MakeSettings
) -> None:
    text = "1 REPLACE 2 semantic instruments 7\n2 ADD - episodic main 3"
    server.set_script([Reply(text, logprobs=logprob_tokens(text, {"REPLACE": 0.8, "ADD": 0.4}))])
    items = [
        _item(
            "Run migrations before deploys.",
            "The API runs on 8080.",
            "Always migrate before deploying.",
        ),
        _item("Sam hiked in the Alps.", "Sam lives in Lyon."),
    ]
    with LLMJudge(make_settings()) as judge:
        first, second = judge.decide(items)
    assert first.action is Action.REPLACE and first.target_ids == ["old1"]
    assert first.confidence == pytest.approx(0.8)
    assert (first.area, first.importance, first.category) == (
        Area.INSTRUMENTS,
        0.7,
        Category.SEMANTIC,
    )
    assert second.action is Action.ADD and second.confidence == pytest.approx(0.4)
    body = server.chat_requests[0]
    assert "response_format" not in body  # the prompt defines the reply
    assert body["stream"] is True and body["logprobs"] is True
    assert first.prompt_version == f"consolidation@{load_prompt('consolidation').version}"


def test_a_line_for_an_item_not_asked_leaves_that_item_skipped(
    server: FakeLLMServer, make_settings: MakeSettings
) -> None:
    server.set_script(["2 ADD - semantic main 5"])
    with LLMJudge(make_settings()) as judge:
        first, second = judge.decide([_item("a b", "c d"), _item("e f", "g h")])
    assert first.action is Action.SKIP and "no decision for item 1" in first.reasoning
    assert second.action is Action.ADD


def test_the_action_probability_is_read_on_the_roles_anchors(
    server: FakeLLMServer, make_settings: MakeSettings
) -> None:
    text = "1 same flat, other words: REPLACE 1 semantic main 5"
    server.set_script([Reply(text, logprobs=logprob_tokens(text, {"REPLACE": 0.3}))])
    settings = make_settings(confidence_anchors=[(0.1, 0.5), (0.5, 0.8), (0.9, 0.95)])
    with LLMJudge(settings) as judge:
        (decision,) = judge.decide([_item("Noor rents a flat.", "Noor lives in a rented flat.")])
    assert decision.action is Action.REPLACE and decision.reasoning == "same flat, other words"
    assert decision.confidence == pytest.approx(0.65)  # 0.3 read between 0.1 and 0.5
