"""The action's probability from one /v1/completions token after a plain line reply
(``llm.<role>.logprob_template``): what is sent, what is read, and the fallback when the
server has no such endpoint."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from memfold.config import LLMSettings
from memfold.judge.base import PairInput, SaveItem
from memfold.judge.llm import LLMJudge
from memfold.llm.logprobs import TokenLogprob
from memfold.llm.prefix_score import render_chatml, value_probability
from memfold.model import Action, Candidate, MemoryRecord, PairLabel, Scope
from memfold.testing.fake_llm import FakeLLMServer
from memfold.testing.fake_replies import confident

MakeSettings = Callable[..., LLMSettings]
LINE = "1 same fact, other words: REPLACE 1 semantic main 5"
SCOPE = Scope(user_id="u1")


def _items() -> list[SaveItem]:
    old = MemoryRecord(id="old0", scope=SCOPE, text="Leo works at Finch Labs as a developer.")
    new = MemoryRecord(id="new0", scope=SCOPE, text="Leo is a developer at Finch Labs.")
    return [SaveItem(new=new, candidates=[Candidate(old, 0.95)])]


@pytest.fixture
def judge(make_settings: MakeSettings) -> Iterator[LLMJudge]:
    j = LLMJudge(make_settings(logprob_template="chatml"), batch_size=8, classify_batch=8)
    yield j
    j.close()


def _completions(server: FakeLLMServer) -> list[dict[str, Any]]:
    return [r.body for r in server.requests if r.path == "/v1/completions"]


def test_chatml_ends_where_the_action_begins() -> None:
    msgs = [{"role": "system", "content": "Be tidy."}, {"role": "user", "content": "Item 1"}]
    prompt = render_chatml(msgs, "1 same fact: ")
    assert prompt == (
        "<|im_start|>system\nBe tidy.<|im_end|>\n<|im_start|>user\nItem 1<|im_end|>\n"
        "<|im_start|>assistant\n1 same fact:"
    )


def test_value_probability_only_for_the_value_that_follows() -> None:
    start = LINE.index("REPLACE")
    assert value_probability(TokenLogprob(" REPLACE", math.log(0.8)), LINE, start) == (
        pytest.approx(0.8)
    )
    assert value_probability(TokenLogprob(" REP", math.log(0.7)), LINE, start) == (
        pytest.approx(0.7)
    )
    assert value_probability(TokenLogprob(" DELETE", math.log(0.9)), LINE, start) is None
    assert value_probability(TokenLogprob(" ", math.log(0.9)), LINE, start) is None
    assert value_probability(None, LINE, start) is None


def test_a_plain_line_scored_by_one_completion_token(
    server: FakeLLMServer, judge: LLMJudge
) -> None:
    server.set_script([LINE])
    server.next_token = (" REPLACE", 0.83)
    (decision,) = judge.decide(_items())
    assert decision.action is Action.REPLACE
    assert decision.confidence == pytest.approx(0.83)
    (chat,) = server.chat_requests
    assert "logprobs" not in chat and "stream" not in chat  # the line came plain
    (completion,) = _completions(server)
    assert completion["prompt"].startswith("<|im_start|>system\n")
    assert completion["prompt"].endswith("<|im_start|>assistant\n1 same fact, other words:")
    assert chat["messages"][-1]["content"] in completion["prompt"]
    assert (completion["max_tokens"], completion["logprobs"], completion["stream"]) == (1, 1, True)
    tasks = [c["task"] for c in judge.client.usage_sink.calls]  # type: ignore[attr-defined]
    assert tasks == ["consolidation", "consolidation"]  # the scoring call is counted


def test_a_token_that_is_not_the_action_gives_no_confidence(
    server: FakeLLMServer, judge: LLMJudge
) -> None:
    server.set_script([LINE])
    server.next_token = (" DELETE", 0.95)
    (decision,) = judge.decide(_items())
    assert decision.action is Action.REPLACE and decision.confidence == 0.0


def test_without_the_endpoint_scored_replies_are_streamed_again(
    server: FakeLLMServer, judge: LLMJudge
) -> None:
    server.set_script([LINE, LINE])  # next_token unset: /v1/completions answers 404
    (first,) = judge.decide(_items())
    assert first.confidence == 0.0 and len(_completions(server)) == 1
    assert not judge.client.scores_by_completion("consolidation")
    judge.decide(_items())
    second = server.chat_requests[1]
    assert second["logprobs"] is True and second["stream"] is True
    assert len(_completions(server)) == 1  # not asked again


def test_review_labels_are_still_scored_on_a_streamed_reply(
    server: FakeLLMServer, judge: LLMJudge
) -> None:
    # A JSON verdict says nowhere where its label sits: the template is for line replies.
    verdict_row = {"pair": 1, "label": "DUPLICATE", "confidence": 0.95, "reasoning": "same"}
    reply = {"verdicts": [verdict_row]}
    server.set_script([confident(reply)])
    a = MemoryRecord(id="a", scope=SCOPE, text="fact one")
    b = MemoryRecord(id="b", scope=SCOPE, text="fact one!")
    (verdict,) = judge.classify([PairInput(a, b, 0.9)])
    assert verdict.label is PairLabel.DUPLICATE and verdict.confidence == pytest.approx(0.95)
    (chat,) = server.chat_requests
    assert chat["logprobs"] is True and chat["stream"] is True
    assert _completions(server) == []


def test_the_scoring_request_counts_against_the_rate_limit(
    server: FakeLLMServer, make_settings: MakeSettings
) -> None:
    settings = make_settings(logprob_template="chatml", requests_per_minute=1)
    judge = LLMJudge(settings, batch_size=8, classify_batch=8)
    try:
        server.set_script([LINE])
        server.next_token = (" REPLACE", 0.83)
        (decision,) = judge.decide(_items())
    finally:
        judge.close()
    assert decision.action is Action.REPLACE and decision.confidence == 0.0
    assert _completions(server) == []  # the minute's one request went to the line
