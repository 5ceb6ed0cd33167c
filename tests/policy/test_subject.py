"""Whose fact a text states: the owner restated without its "'s" is the same owner."""

from __future__ import annotations

import pytest

from memfold.policy.subject import subject_difference


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (
            "Hamid's sabbatical runs from January to June 2025.",
            "Hamid will be on sabbatical for the first half of 2025.",
        ),
        (
            "The user goes to the gym on Mondays, Wednesdays and Fridays.",
            "Monday, Wednesday and Friday are the user's gym days.",
        ),
        ("Ken has a red car.", "Ken's car is red."),
    ],
)
def test_an_owner_and_the_thing_owned_restated_are_one_subject(a: str, b: str) -> None:
    assert subject_difference(a, b) is None
    assert subject_difference(b, a) is None


@pytest.mark.parametrize(
    ("a", "b", "why"),
    [
        ("Sam uses Jira.", "Sam's team uses Jira.", "possessive"),  # the team, not Sam
        ("Priya works as a nurse in Leeds.", "Priya's sister works as a nurse.", "relation"),
        ("The app's version is 2.1.", "The tool's version is 2.1.", "possessive"),
        ("Ken's car is red.", "Ken's wife's car is red.", "relation"),
        # The owner restated, the thing owned not: another thing may be meant.
        ("The team works from the fifth floor.", "The team's office is on the fifth floor.", ""),
    ],
)
def test_another_owner_or_thing_owned_stays_a_difference(a: str, b: str, why: str) -> None:
    found = subject_difference(a, b)
    assert found is not None and why in found
