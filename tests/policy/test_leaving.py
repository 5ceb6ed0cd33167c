"""A newer memory that names the old value it left ("left Deloitte", "from Admiral to
Direct Line") updates the older one; words left that name nothing ("left office") or a
change told twice do not (pairs written for these tests)."""

from __future__ import annotations

import pytest

from memfold.policy.evidence import supersede_evidence
from memfold.policy.values.leaving import left_concepts
from memfold.policy.values.value_update import value_update


@pytest.mark.parametrize(
    ("text", "left"),
    [
        ("Aisha left Deloitte and now works at PwC.", {"deloitt"}),
        ("The user switched insurance from Admiral to Direct Line.", {"admiral"}),
        ("Elif sold her Fiat 500 and bought a Renault Zoe.", {"fiat", "500"}),
        ("Kwame now reports to Dmitri instead of Laura Fischer.", {"laura", "fischer"}),
        ("The team no longer uses Jenkins; CI moved to GitLab.", {"use", "jenkin"}),
        ("The rotation changed from weekly to biweekly.", {"perweek"}),
        # nothing named, nothing left
        ("By the time Reagan left office in 1989, the Navy had 600 ships.", set()),
        ("The investigation was closed without charges.", set()),
        ("Hannah's flight leaves from Terminal 1.", set()),
        ("The user's gym is closed on Sundays.", set()),
        ("The user prefers tea rather than coffee.", set()),
    ],
)
def test_left_concepts(text: str, left: set[str]) -> None:
    assert left_concepts(text) == left


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        (
            "Aisha works at Deloitte as a tax consultant.",
            "Aisha left Deloitte and now works at PwC as a tax consultant.",
        ),
        (
            "The user's car insurance is with Admiral.",
            "The user switched car insurance from Admiral to Direct Line.",
        ),
        ("Elif drives a Fiat 500.", "Elif sold her Fiat 500 and bought a Renault Zoe."),
        (
            "Kwame's manager is Laura Fischer.",
            "Kwame now reports to Dmitri Volkov instead of Laura Fischer.",
        ),
        (
            "The Meridian team uses Jenkins for CI.",
            "The Meridian team no longer uses Jenkins; they moved CI to GitLab CI.",
        ),
        (
            "The on-call rotation for the data team is weekly.",
            "The data team changed its on-call rotation from weekly to biweekly.",
        ),
        ("The user lives in Manchester.", "The user moved to Edinburgh last month."),
        (
            "Lucía's address is Calle Serrano 18, Madrid.",
            "Lucía's new address is Avenida Goya 7, Madrid.",
        ),
        (
            "The user's rent is 1,400 dollars a month.",
            "As of the August renewal, the user's rent is 1,520 dollars a month.",
        ),
        ("The staging cluster has 2 replicas.", "The staging cluster was scaled to 4 replicas."),
        (
            "The phone contract costs 25 pounds a month.",
            "The phone contract went up to 29 pounds a month.",
        ),
        ("The service runs on Node.js 16.", "The service was upgraded to Node.js 20."),
        # a change after an earlier one
        ("The rate limit was raised to 100 requests.", "The rate limit was cut to 50 requests."),
        # an owner named in a compound on one side is the same owner
        (
            "The Ember service's log retention is 14 days.",
            "Ember's log retention was extended to 30 days.",
        ),
    ],
)
def test_named_old_values_and_new_cues_are_updates(older: str, newer: str) -> None:
    assert value_update(older, newer), (older, newer)
    assert supersede_evidence(newer, older, 0.6).found


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        # another owner left the value
        ("Ana's brother works at Google.", "Ana left Google and now works at Meta."),
        # a change told twice, in two verbs
        ("The index increased to 58.9 from 55.9.", "The index rose to 58.9 from 55.9 in July."),
        # the value changed to is the one already known
        (
            "The population was 6,080,485 in 2000.",
            "The population grew by 30.4 percent to 6,080,485.",
        ),
        # a retraction with nothing named is the contradiction rule's business
        ("The user drinks coffee.", "The user no longer drinks coffee."),
        # a preference, not a change
        ("The user likes tea.", "The user prefers tea rather than coffee."),
        # a state said of the subject, not a value left
        ("The user's gym is open on Sundays.", "The user's gym is closed on Sundays."),
    ],
)
def test_other_readings_are_no_updates(older: str, newer: str) -> None:
    assert not value_update(older, newer), (older, newer)
