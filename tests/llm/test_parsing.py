"""Tolerant parsing of replies, strict validation."""

from __future__ import annotations

import pytest

from memfold.errors import LLMReplyInvalid
from memfold.llm.parsing import extract_json, parse_reply
from memfold.llm.schemas import ClassificationEnvelope, TextReply


@pytest.mark.parametrize(
    "raw",
    [
        '{"text": "a", "reasoning": "b"}',
        '```json\n{"text": "a", "reasoning": "b"}\n```',
        '```\n{"text": "a", "reasoning": "b"}\n```',
        'Sure! Here is the result:\n{"text": "a", "reasoning": "b"}\nHope this helps.',
        'Result: ```json {"text": "a", "reasoning": "b"} ``` done',
    ],
)
def test_json_is_found_in_fences_and_prose(raw: str) -> None:
    reply = parse_reply(raw, TextReply)
    assert (reply.text, reply.reasoning) == ("a", "b")


def test_bare_list_is_wrapped_for_single_list_schema() -> None:
    reply = parse_reply('[{"pair": 1, "label": "RELATED"}]', ClassificationEnvelope)
    assert reply.verdicts == [{"pair": 1, "label": "RELATED"}]


@pytest.mark.parametrize(
    "raw", ["", "no json here", '{"text": ', '{"answer": 42}', '{"text": ""}', "[1, 2]"]
)
def test_invalid_replies_raise(raw: str) -> None:
    with pytest.raises(LLMReplyInvalid):
        parse_reply(raw, TextReply)


def test_extract_prefers_first_object() -> None:
    assert extract_json('x {"a": 1} y {"b": 2}') == {"a": 1}
