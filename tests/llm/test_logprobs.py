"""Confidence from token log-probabilities, request parameters a server refuses, and the
numbered-line wire format of the judge."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest

from memfold.config import LLMSettings
from memfold.judge.base import PairInput, SaveItem
from memfold.judge.llm import LLMJudge
from memfold.llm.logprobs import TokenLogprob, value_probabilities
from memfold.model import Action, Candidate, MemoryRecord, PairLabel, Scope
from memfold.testing.fake_llm import FakeLLMServer
from memfold.testing.fake_replies import Reply, logprob_tokens, user_payload

MakeSettings = Callable[..., LLMSettings]
SCOPE = Scope(user_id="u1")


def mem(id_: str, text: str) -> MemoryRecord:
    return MemoryRecord(id=id_, scope=SCOPE, text=text)


def item(new: str = "Sam moved to Berlin", *olds: str) -> SaveItem:
    texts = olds or ("Sam lives in Lyon", "Sam works at Acme")
    return SaveItem(
        mem("new", new), [Candidate(mem(f"old{k}", t), 0.8) for k, t in enumerate(texts)]
    )


def delete_reply(confidence: float = 0.9) -> str:
    return (
        '{"decisions":[{"item":1,"reasoning":"new city","action":"DELETE",'
        f'"targets":[1],"confidence":{confidence}}}]}}'
    )


def test_value_probabilities_multiply_the_tokens_of_each_value() -> None:
    tokens = [
        TokenLogprob('{"action":"', 0.0),
        TokenLogprob("DE", math.log(0.5)),
        TokenLogprob("LETE", math.log(0.8)),
        TokenLogprob('"},{"action":"', 0.0),
        TokenLogprob("ADD", math.log(0.25)),
        TokenLogprob('"}', 0.0),
    ]
    got = value_probabilities(tokens, "action", ["DELETE", "ADD"])
    assert got == pytest.approx([0.4, 0.25])
    # A value that is not what was parsed, or is missing, gives no probability.
    assert value_probabilities(tokens, "action", ["MERGE", "ADD", "SKIP"])[::2] == [None, None]


def test_confidence_is_the_action_probability_not_the_stated_number(
    server: FakeLLMServer, make_settings: MakeSettings
) -> None:
    text = delete_reply(0.95)
    server.set_script([Reply(content=text, logprobs=logprob_tokens(text, {"DELETE": 0.62}))])
    with LLMJudge(make_settings()) as judge:
        (decision,) = judge.decide([item()])
    assert decision.action is Action.DELETE and decision.target_ids == ["old0"]
    assert decision.confidence == pytest.approx(0.62)
    body = server.chat_requests[0]
    assert body["logprobs"] is True and body["top_logprobs"] == 1


def test_a_stated_confidence_counts_for_nothing_without_logprobs(
    server: FakeLLMServer, make_settings: MakeSettings
) -> None:
    server.set_script([delete_reply(0.85)])  # a reply without logprobs
    with LLMJudge(make_settings()) as judge:
        (decision,) = judge.decide([item()])
    assert decision.action is Action.DELETE and decision.confidence == 0.0
    assert "stated confidence 0.85 not counted" in decision.reasoning


def test_logprobs_off_are_not_asked_for(server: FakeLLMServer, make_settings: MakeSettings) -> None:
    text = delete_reply(0.85)
    server.set_script([Reply(content=text, logprobs=logprob_tokens(text, {"DELETE": 0.3}))])
    with LLMJudge(make_settings(logprobs=False)) as judge:
        (decision,) = judge.decide([item()])
    body = server.chat_requests[0]
    assert "logprobs" not in body and "stream" not in body
    assert decision.confidence == 0.0  # the server sent tokens it was not asked for: unread


def test_label_probability_for_each_pair(
    server: FakeLLMServer, make_settings: MakeSettings
) -> None:
    text = (
        '{"verdicts":[{"pair":1,"reasoning":"same","label":"DUPLICATE","confidence":0.9},'
        '{"pair":2,"reasoning":"other","label":"RELATED","confidence":0.9}]}'
    )
    probs = {"DUPLICATE": 0.7, "RELATED": 0.4}
    server.set_script([Reply(content=text, logprobs=logprob_tokens(text, probs))])
    pairs = [PairInput(mem("a", "x is 1"), mem("b", "x equals 1"), 0.9)] * 2
    with LLMJudge(make_settings()) as judge:
        verdicts = judge.classify(pairs)
    assert [v.label for v in verdicts] == [PairLabel.DUPLICATE, PairLabel.RELATED]
    assert [v.confidence for v in verdicts] == pytest.approx([0.7, 0.4])


@pytest.mark.parametrize("param", ["logprobs", "max_tokens"])
def test_a_refused_parameter_is_dropped_and_remembered(
    make_settings: MakeSettings, param: str
) -> None:
    with FakeLLMServer([delete_reply(), delete_reply()], refuse_params=(param,)) as server:
        settings = make_settings().model_copy(update={"base_url": server.base_url})
        with LLMJudge(settings) as judge:
            first = judge.decide([item()])
            second = judge.decide([item()])
            assert judge.client.refused_params() == {param}
        assert [d.action for d in first + second] == [Action.DELETE, Action.DELETE]
        # One refused request, then every request without the parameter.
        sent = [param in body for body in server.chat_requests]
        assert sent == [True, False, False]
        assert all("max_completion_tokens" in body for body in server.chat_requests)


def test_targets_by_number_or_id_and_unknown_numbers_skip(
    server: FakeLLMServer, make_settings: MakeSettings
) -> None:
    server.set_script(
        [
            '{"decisions":[{"item":1,"action":"MERGE","targets":[2,"1"],"text":"t"},'
            '{"item":2,"action":"DELETE","target_ids":["old1"],"confidence":0.9},'
            '{"item":3,"action":"DELETE","targets":[3],"confidence":0.9}]}'
        ]
    )
    with LLMJudge(make_settings()) as judge:
        decisions = judge.decide([item(), item(), item()])
    assert decisions[0].target_ids == ["old1", "old0"]
    assert decisions[1].target_ids == ["old1"]
    assert (
        decisions[2].action is Action.SKIP and "not one of the 2 listed" in decisions[2].reasoning
    )


def test_multiline_memories_keep_their_line_breaks(
    server: FakeLLMServer, make_settings: MakeSettings
) -> None:
    def echo(body: dict[str, Any]) -> dict[str, Any]:
        got = user_payload(body)["items"][0]
        return {
            "decisions": [
                {"item": 1, "action": "UPDATE", "targets": [1], "text": got["new"]["text"]}
            ]
        }

    server.set_script(echo)
    with LLMJudge(make_settings()) as judge:
        (decision,) = judge.decide([item("run:\n  make test\n  make lint", "run: make test")])
    assert decision.text == "run:\n  make test\n  make lint"
    shown = server.chat_requests[0]["messages"][-1]["content"]
    assert shown.splitlines()[1] == 'NEW: "run:\\n  make test\\n  make lint"'
