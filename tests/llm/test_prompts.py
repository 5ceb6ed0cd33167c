"""The packaged prompts: worked examples of every action and label, parsed as chat turns."""

from __future__ import annotations

import json

import pytest

from memfold.errors import ConfigError
from memfold.judge.llm_prompts import differs
from memfold.judge.prompts import load_prompt, parse_prompt
from memfold.judge.reply_lines import read_decision_lines
from memfold.llm.schemas import ClassificationReply, ConsolidationReply


def answers(name: str) -> list[dict[str, object]]:
    prompt = load_prompt(name)
    return [json.loads(c) for role, c in prompt.examples if role == "assistant"]


def test_every_action_has_a_worked_example_that_validates() -> None:
    prompt = load_prompt("consolidation")
    replies = [read_decision_lines(c) for role, c in prompt.examples if role == "assistant"]
    rows = [d for r in replies for d in ConsolidationReply.model_validate(r).decisions]
    assert {d.action for d in rows} == {
        "ADD", "KEEP_SEPARATE", "UPDATE", "MERGE", "REPLACE", "DELETE", "SKIP",
    }  # fmt: skip
    # Every area is taught, and only MERGE and UPDATE write a text.
    assert {r["area"] for reply in replies for r in reply["decisions"]} == {
        "main", "fragments", "solutions", "instruments",
    }  # fmt: skip
    assert all((d.text is not None) == (d.action in ("MERGE", "UPDATE")) for d in rows)


def test_every_label_has_a_worked_example_that_validates() -> None:
    rows = [
        v for a in answers("classification") for v in ClassificationReply.model_validate(a).verdicts
    ]
    assert {v.label for v in rows} == {"DUPLICATE", "RELATED", "CONTRADICTION", "SUPERSEDED"}


def test_example_turns_are_parsed_in_order() -> None:
    prompt = parse_prompt("p", "version: 3\n---\nSystem.\n=== user\nQ1\n=== assistant\nA1\n")
    assert prompt.text == "System.\n" and prompt.examples == (("user", "Q1"), ("assistant", "A1"))
    assert [m["role"] for m in prompt.messages("Q2")] == ["system", "user", "assistant", "user"]
    with pytest.raises(ConfigError):
        parse_prompt("p", "version: 3\n---\nSystem.\n=== assistant\nA1\n=== user\nQ1\n")


def test_differs_names_the_words_only_one_side_has() -> None:
    assert differs("Kwame's son is allergic", "Kwame's daughter is allergic") == (
        "(differs: son / daughter)"
    )
    assert differs("Tom is at Acme", "at Acme Tom is") == "(same words)"
    assert differs("Kai no longer plays", "Kai plays") == "(differs: no longer / -)"
