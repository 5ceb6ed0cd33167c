"""Reading a new value for a known statement (pairs written for these tests)."""

from __future__ import annotations

import pytest

from memfold.policy.evidence import supersede_evidence
from memfold.policy.values.value_update import UpdateLimits, value_update


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("The queue timeout is set to 30 seconds.", "The queue timeout was raised to 90 seconds."),
        ("Ola's manager is Mark Evans.", "Ola now reports to Rita Kovacs."),
        ("The docs site is hosted on Netlify.", "The docs site was migrated to Cloudflare Pages."),
        ("The offsite is planned for June 4.", "The offsite was pushed back to June 18."),
        ("In 2021 the gym fee was $30 a month.", "In 2023 the gym fee is $38 a month."),
        (
            "Jae is a junior designer on the app team.",
            "Jae was promoted to senior designer on the app team.",
        ),
    ],
)
def test_new_values_are_read(older: str, newer: str) -> None:
    reason = value_update(older, newer)
    assert reason, (older, newer)
    assert supersede_evidence(newer, older, 0.6).found


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        # no sign of change: two facts, or a contradiction for review
        ("The queue timeout is 30 seconds.", "The queue timeout is 90 seconds."),
        # only the year changed: another event
        ("In 2021 the user ran a half marathon.", "In 2023 the user ran a half marathon."),
        # another subject: relative, environment, owner
        ("Ola's sister lives in Turku.", "Ola's brother now lives in Oulu."),
        ("The staging API runs on port 80.", "The production API was moved to port 8080."),
        ("Ian's car is a Volvo.", "Mia's car is now a Saab."),
        # a change cue about something else entirely
        ("The user likes jazz.", "The office moved to Leeds."),
        # a value added beside the old one
        ("The user likes jazz.", "The user now also likes opera."),
        ("Lea plays the cello.", "Lea now plays the violin too."),
        # nothing of the old statement is gone
        ("The user speaks Greek.", "The user now speaks Greek and Turkish."),
        # negation is the contradiction rule's business
        ("The user drinks coffee.", "The user no longer drinks coffee."),
    ],
)
def test_not_an_update(older: str, newer: str) -> None:
    assert not value_update(older, newer), (older, newer)


def test_limits_bound_how_much_may_change() -> None:
    older, newer = "The cache size is 2 GB on the main node.", "The cache size was raised to 4 GB."
    assert value_update(older, newer)
    assert not value_update(older, newer, UpdateLimits(max_gone=1))
