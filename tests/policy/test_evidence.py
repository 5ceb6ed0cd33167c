"""Evidence a fold or a supersede needs: the same fact, and a visible change."""

from __future__ import annotations

import pytest

from memfold.policy.evidence import combine_problems, supersede_evidence
from memfold.policy.subject import subject_difference

OVERLAP = 0.6


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Ken's car is a red Mazda", "Ken's wife's car is a red Mazda"),
        ("Paul visited Rome in 2019", "Paul visited Rome in 2023"),
        ("Deploys to staging need approval", "Deploys to production need approval"),
        ("Ivy's brother lives in Oslo", "Ivy's sister lives in Oslo"),
    ],
)
def test_different_subjects_are_never_folded_or_superseded(a: str, b: str) -> None:
    assert subject_difference(a, b)
    assert combine_problems([a, b])
    cued = b.replace(" in ", " now in ", 1) if " in " in b else f"{b} now"
    assert not supersede_evidence(cued, a, OVERLAP).found


def test_same_fact_told_twice_may_be_folded() -> None:
    assert combine_problems(["Alice lives in Lyon", "Alice lives in Lyon since 2019"]) == []
    sam = ["Sam lives in Berlin since 2026", "Sam lives in Berlin near the Spree"]
    assert combine_problems(sam) == []


def test_swapped_values_and_denials_are_not_one_fact() -> None:
    assert any("another value" in p for p in combine_problems(["Bob has 2 cats", "Bob has 3 cats"]))
    denied = combine_problems(["Bob eats meat", "Bob does not eat meat"])
    assert any("denies" in p for p in denied)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("The monthly cloud budget for the data team is $12,000.",
         "The monthly cloud budget for the ML team is $12,000."),
        ("Priya leads the mobile squad.", "Priya leads the Android squad."),
    ],
)  # fmt: skip
def test_a_word_swapped_for_a_name_in_the_same_place_is_not_one_fact(a: str, b: str) -> None:
    # A name for a name is swapped_values' business; a word for a name is a swap too.
    assert any("another word in the same place" in p for p in combine_problems([a, b]))


def test_a_number_where_the_other_has_a_word_is_a_detail_each_adds() -> None:
    kim = [
        "Kim waters the office plants every Monday morning before the weekly standup.",
        "Kim waters the office plants every Monday morning at nine before the standup.",
    ]
    assert combine_problems(kim) == []


def test_a_negation_without_a_cue_is_a_contradiction() -> None:
    verdict = supersede_evidence(
        "Gabriela is not allergic to cats", "Gabriela is allergic to cats", OVERLAP
    )
    assert not verdict.found and verdict.contradiction


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("The user drinks coffee", "The user no longer drinks coffee"),
        ("The metrics service listens on port 9090", "The metrics service was moved to port 9100"),
        ("The user's spin class is on Tuesdays", "The user's spin class is now on Thursdays"),
        ("Alice prefers coffee in the morning", "Alice now prefers tea in the morning"),
    ],
)
def test_a_change_or_retraction_cue_about_the_same_statement_is_evidence(
    older: str, newer: str
) -> None:
    assert supersede_evidence(newer, older, OVERLAP).found


def test_a_cue_about_something_else_or_no_cue_is_not_evidence() -> None:
    assert not supersede_evidence(
        "Alice moved to Berlin", "Alice enjoys the museums of Lyon", OVERLAP
    ).found
    plain = supersede_evidence("Marta was born in Granada", "Marta was born in Seville", OVERLAP)
    assert not plain.found and not plain.contradiction


@pytest.mark.parametrize(
    ("a", "b", "reason"),
    [
        (
            "Fatima uses Neovim on her work laptop.",
            "Fatima uses Neovim on her personal laptop.",
            "work -> personal",
        ),
        (
            "Sipho studied at the University of Cape Town.",
            "Sipho taught at the University of Cape Town.",
            "studi -> taught",
        ),
        (
            "Nadia's team is hiring two data engineers.",
            "Nadia's team is hiring two data scientists.",
            "engineer -> scientist",
        ),
        (
            "The user prefers video calls over phone calls.",
            "The user prefers phone calls over video calls.",
            "turned around",
        ),
    ],
)
def test_one_slot_told_two_ways_is_not_one_fact(a: str, b: str, reason: str) -> None:
    assert reason in " | ".join(combine_problems([a, b]))


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Tom works at Acme as a data engineer", "Tom is a data engineer at Acme"),
        ("At Acme, Tom is a data engineer", "Tom is a data engineer at Acme"),
        ("Tom lives in Berlin", "Tom lives in Berlin near the Spree"),
    ],
)
def test_reordered_or_enriched_wording_may_still_be_folded(a: str, b: str) -> None:
    assert combine_problems([a, b]) == []
