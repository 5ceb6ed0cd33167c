"""The action's probability from one /v1/completions token after a plain line reply
(``llm.<role>.logprob_template``): the checks a chat template passes first, what is
sent, what is read, and the fallback when the server has no such endpoint."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from memfold.config import LLMSettings
from memfold.judge.base import PairInput, SaveItem
from memfold.judge.llm import LLMJudge
from memfold.llm.logprobs import TokenLogprob, token_at
from memfold.llm.prefix_score import render, render_chatml, value_probability
from memfold.llm.template_check import TemplateCheck, agrees
from memfold.model import Action, Candidate, Decision, MemoryRecord, PairLabel, Scope
from memfold.testing.fake_llm import FakeLLMServer
from memfold.testing.fake_replies import Reply, confident, logprob_tokens

MakeSettings = Callable[..., LLMSettings]
LINE = "1 same fact, other words: REPLACE 1 semantic main 5"
SCOPE = Scope(user_id="u1")


def _items() -> list[SaveItem]:
    old = MemoryRecord(id="old0", scope=SCOPE, text="Leo works at Finch Labs as a developer.")
    new = MemoryRecord(id="new0", scope=SCOPE, text="Leo is a developer at Finch Labs.")
    return [SaveItem(new=new, candidates=[Candidate(old, 0.95)])]


@pytest.fixture
def judge(make_settings: MakeSettings) -> Iterator[LLMJudge]:
    """A judge that trusts ChatML after one agreeing check."""
    j = LLMJudge(
        make_settings(logprob_template="chatml", template_checks=1), batch_size=8, classify_batch=8
    )
    yield j
    j.close()


def _streamed(line: str = LINE, p: float = 0.83) -> Reply:
    """The line streamed with its action token at ``p``."""
    return Reply(content=line, logprobs=logprob_tokens(line, {" REPLACE": p}))


def _one_decision(server: FakeLLMServer, settings: LLMSettings) -> tuple[Decision, LLMJudge]:
    """One streamed line (its action at 0.83) decided by a judge on ``settings``, a
    completion token ready at the same 0.83; the judge is closed when it returns."""
    judge = LLMJudge(settings, batch_size=8, classify_batch=8)
    try:
        server.set_script([_streamed(p=0.83)])
        server.next_token = (" REPLACE", 0.83)
        (decision,) = judge.decide(_items())
    finally:
        judge.close()
    return decision, judge


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


def test_a_plain_line_scored_by_one_completion_token_once_checked(
    server: FakeLLMServer, judge: LLMJudge
) -> None:
    server.set_script([_streamed(p=0.83), LINE])
    server.next_token = (" REPLACE", 0.828)
    (checked,) = judge.decide(_items())  # streamed, and its action scored again to compare
    assert checked.confidence == pytest.approx(0.83)  # the streamed probability counts
    assert judge.client.scores_by_completion("consolidation")
    server.next_token = (" REPLACE", 0.6)
    (decision,) = judge.decide(_items())
    assert decision.action is Action.REPLACE
    assert decision.confidence == pytest.approx(0.6)
    first, chat = server.chat_requests
    assert first["logprobs"] is True and first["stream"] is True
    assert "logprobs" not in chat and "stream" not in chat  # the line came plain
    check, completion = _completions(server)
    assert check["prompt"] == completion["prompt"]
    assert completion["prompt"].startswith("<|im_start|>system\n")
    assert completion["prompt"].endswith("<|im_start|>assistant\n1 same fact, other words:")
    assert chat["messages"][-1]["content"] in completion["prompt"]
    assert (completion["max_tokens"], completion["logprobs"], completion["stream"]) == (1, 1, True)
    tasks = [c["task"] for c in judge.client.usage_sink.calls]  # type: ignore[attr-defined]
    assert tasks == ["consolidation", "consolidation.score"] * 2  # scoring counted apart


def test_auto_adopts_a_template_after_its_checks_agree_in_a_row(
    server: FakeLLMServer, make_settings: MakeSettings
) -> None:
    judge = LLMJudge(make_settings(), batch_size=8, classify_batch=8)  # "auto", 3 checks
    try:
        server.set_script([_streamed(), _streamed(), _streamed(), LINE])
        server.next_token = (" REPLACE", 0.828)  # within 0.005 of the streamed 0.83
        for _ in range(3):
            assert judge.client.template_under_check("consolidation") == "chatml"
            judge.decide(_items())
        assert judge.client.scores_by_completion("consolidation")
        (decision,) = judge.decide(_items())
    finally:
        judge.close()
    assert decision.confidence == pytest.approx(0.828)
    assert [("stream" in c) for c in server.chat_requests] == [True, True, True, False]
    assert len(_completions(server)) == 4


def test_a_template_that_disagrees_is_dropped_for_the_next(
    server: FakeLLMServer, make_settings: MakeSettings
) -> None:
    judge = LLMJudge(make_settings(template_checks=1), batch_size=8, classify_batch=8)
    try:
        server.set_script([_streamed(p=0.83)] * 4)
        server.next_token = (" REPLACE", 0.82)  # the same token, 0.01 off (a wrong template)
        seen = []
        for _ in range(4):
            seen.append(judge.client.template_under_check("consolidation"))
            (decision,) = judge.decide(_items())
            assert decision.confidence == pytest.approx(0.83)  # the streamed one, always
    finally:
        judge.close()
    assert seen == ["chatml", "llama3", "gemma", None]
    prompts = [c["prompt"] for c in _completions(server)]
    assert len(prompts) == 3  # none left to try: nothing more is asked
    assert prompts[0].startswith("<|im_start|>system")
    assert prompts[1].startswith("<|start_header_id|>system<|end_header_id|>\n\n")
    assert prompts[2].startswith("<start_of_turn>user\n")
    assert all("stream" in c for c in server.chat_requests)
    assert not judge.client.scores_by_completion("consolidation")


def test_another_token_than_the_streamed_one_disagrees(
    server: FakeLLMServer, make_settings: MakeSettings
) -> None:
    judge = LLMJudge(
        make_settings(logprob_template="chatml", template_checks=1), batch_size=8, classify_batch=8
    )
    try:
        server.set_script([_streamed(p=0.83)] * 2)
        server.next_token = (" MERGE", 0.83)
        judge.decide(_items())
        judge.decide(_items())
    finally:
        judge.close()
    assert judge.client.template_under_check("consolidation") is None
    assert not judge.client.scores_by_completion("consolidation")
    assert len(_completions(server)) == 1  # a named template is the only one tried


def test_without_a_template_nothing_is_asked_of_completions(
    server: FakeLLMServer, make_settings: MakeSettings
) -> None:
    decision, _ = _one_decision(server, make_settings(logprob_template="off"))
    assert decision.confidence == pytest.approx(0.83)
    assert _completions(server) == []


def test_a_token_that_is_not_the_action_gives_no_confidence(
    server: FakeLLMServer, judge: LLMJudge
) -> None:
    server.set_script([_streamed(p=0.95), LINE])
    server.next_token = (" REPLACE", 0.95)
    judge.decide(_items())  # the check passes
    server.next_token = (" DELETE", 0.95)
    (decision,) = judge.decide(_items())
    assert decision.action is Action.REPLACE and decision.confidence == 0.0


def test_without_the_endpoint_scored_replies_are_streamed_again(
    server: FakeLLMServer, judge: LLMJudge
) -> None:
    server.set_script([_streamed(p=0.83), _streamed(p=0.83)])  # next_token unset: 404
    (first,) = judge.decide(_items())
    assert first.confidence == pytest.approx(0.83) and len(_completions(server)) == 1
    assert not judge.client.scores_by_completion("consolidation")
    assert judge.client.template_under_check("consolidation") is None
    (second,) = judge.decide(_items())
    assert second.confidence == pytest.approx(0.83)
    assert server.chat_requests[1]["stream"] is True
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
    settings = make_settings(logprob_template="chatml", template_checks=1, requests_per_minute=1)
    decision, judge = _one_decision(server, settings)
    assert decision.action is Action.REPLACE and decision.confidence == pytest.approx(0.83)
    assert _completions(server) == []  # the minute's one request went to the line
    assert judge.client.template_under_check("consolidation") == "chatml"  # still to check


def test_llama3_and_gemma_renderings() -> None:
    msgs = [{"role": "system", "content": "Be tidy."}, {"role": "user", "content": "Item 1"}]
    assert render("llama3", msgs, "1 ok: ") == (
        "<|start_header_id|>system<|end_header_id|>\n\nBe tidy.<|eot_id|>"
        "<|start_header_id|>user<|end_header_id|>\n\nItem 1<|eot_id|>"
        "<|start_header_id|>assistant<|end_header_id|>\n\n1 ok:"
    )
    assert render("gemma", msgs, "1 ok: ") == (
        "<start_of_turn>user\nBe tidy.\n\nItem 1<end_of_turn>\n<start_of_turn>model\n1 ok:"
    )
    with pytest.raises(ValueError, match="unknown chat template"):
        render("vicuna", msgs, "")


def test_a_check_adopts_after_agreements_in_a_row_and_moves_on_after_one_miss() -> None:
    check = TemplateCheck(["a", "b"])
    check.record(True, needed=2)
    check.record(False, needed=2)  # a dropped after one pass: b starts from zero
    assert (check.under_check, check.passes, check.tried) == ("b", 0, ["a"])
    check.record(True, needed=2)
    assert check.adopted is None
    check.record(True, needed=2)
    assert check.adopted == "b" and check.under_check is None and not check.given_up
    check.record(False, needed=2)  # an adopted template stays adopted
    assert check.adopted == "b"
    lost = TemplateCheck(["a"])
    lost.record(False, needed=1)
    assert lost.given_up and lost.under_check is None


def test_agreement_needs_the_same_token_at_about_the_same_probability() -> None:
    streamed = TokenLogprob(" MERGE", math.log(0.70))
    assert agrees(streamed, TokenLogprob(" MERGE", math.log(0.74)), 0.05)
    assert not agrees(streamed, TokenLogprob(" MERGE", math.log(0.76)), 0.05)
    assert not agrees(streamed, TokenLogprob(" MER", math.log(0.70)), 0.05)
    assert not agrees(streamed, None, 0.05)


def test_the_streamed_token_where_the_action_begins() -> None:
    start = LINE.index("REPLACE")
    tokens = tuple(TokenLogprob(t, lp) for t, lp in logprob_tokens(LINE, {" REPLACE": 0.8}))
    assert token_at(tokens, LINE, start) == TokenLogprob(" REPLACE", math.log(0.8))
    glued = tuple(TokenLogprob(t, lp) for t, lp in logprob_tokens(LINE, {": REPLACE": 0.8}))
    assert token_at(glued, LINE, start) is None  # it also holds the colon
    assert token_at(tokens[:-1], LINE, start) is None  # does not spell the reply
