"""Log lines say why a text was refused, never what it said."""

from __future__ import annotations

import pytest

from memfold.policy.redact import log_reason, problem_kinds


def test_problems_are_cut_where_they_start_to_quote() -> None:
    problems = [
        "result adds name 'manchester'",
        "result adds 3 content words no source has (> 2): cod, pumpernickel, word",
        'drops number "4711"',
        "result adds name 'leeds'",  # the same kind once
        "'x' is not allowed",
    ]
    assert problem_kinds(problems) == [
        "result adds name",
        "result adds 3 content words no source has (> 2)",
        "drops number",
        "refused",
    ]


@pytest.mark.parametrize(
    ("reason", "logged"),
    [
        ("no LLM configured", "no LLM configured"),
        (
            "no summary from the LLM: the user said she loves Pumpernickel",
            "no summary from the LLM",
        ),
        (
            "LLM summary refused: drops name 'ana'; adds number '3'",
            "LLM summary refused: drops name; adds number",
        ),
    ],
)
def test_a_reason_keeps_its_head_and_the_kinds_of_its_details(reason: str, logged: str) -> None:
    assert log_reason(reason) == logged
