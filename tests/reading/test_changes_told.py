"""Changes told by a verb of rising or falling, a fronted "since", a completed pursuit,
a relation acting for someone, or a new value alone; and values told in figures or words
("2024-05-07", "four and a quarter percent", "Monday through Friday")."""

from __future__ import annotations

import pytest

from memfold.engine.update_channel import update_match
from memfold.reading.cues import change_cues
from memfold.reading.difference import fold_conflicts, supersede_conflicts
from memfold.reading.facts import facts
from memfold.reading.relation import Limits, Relation, relate
from memfold.reading.restatement import restatement_differences
from memfold.reading.supersede import supersede_evidence

STRICT = Limits(max_additions=2, swap_max=2, min_overlap=0.5, max_reworded=2)


def _supersedes(older: str, newer: str) -> bool:
    return not supersede_conflicts(older, newer) and supersede_evidence(older, newer, 0.5, 2).found


@pytest.mark.parametrize(
    ("text", "cues"),
    [
        ("The team moved CI off Jenkins and onto GitHub Actions.", {"move"}),
        ("The gym fee went down to $40.", {"go down"}),
        # a level someone's thing reached, not a market's move of so many points
        ("After the March review, the user's annual salary rose to $84,000.", {"rise"}),
        ("Lucas is down to 84 kg after months of training.", {"be down"}),
        ("The Dow rose 18.25 points, or 0.19 percent, to 9,586.71.", set()),
        ("Death toll rises to 39 in Italy coach crash.", set()),
        ("Several children went down to the water's edge to play.", set()),
        # a completing verb needs what it completes
        ("Malik passed the JLPT N3 exam.", {"pass"}),
        ("The user's grandmother passed away many years ago.", set()),
        ("Fatima got engaged to Karim in May.", {"get engage"}),
        # a verb denied tells no event
        ("The user is single and has never been married.", set()),
        ("The user did not move to Berlin.", set()),
        ("Bo does not eat meat anymore.", {"anymore"}),
        ("Going forward, invoices go to billing@acme.io.", {"going forward"}),
    ],
)
def test_change_cues(text: str, cues: set[str]) -> None:
    assert change_cues(facts(text)) == cues


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        # a relation changes the value for the one it is a relation of
        (
            "The user takes 10 mg of lisinopril daily.",
            "The user's doctor increased the lisinopril dose to 20 mg daily.",
        ),
        (
            "Nikolai takes 10 mg of his blood pressure medication daily.",
            "Nikolai's doctor increased his blood pressure medication to 20 mg daily.",
        ),
        (
            "The user takes 20 mg of atorvastatin daily.",
            "The user's doctor increased their atorvastatin dose to 40 mg daily.",
        ),
        # a state begun on another thing than the older's
        (
            "Jasmine takes the 38 bus to her office.",
            "Jasmine has started taking the light rail to her office instead of the 38 bus.",
        ),
        # a new value alone, the attribute left to it
        ("The user weighs 82 kg.", "The user now weighs 76 kg."),
        (
            "The production database runs PostgreSQL 13.",
            "The production database was upgraded to PostgreSQL 16.",
        ),
        # a pursuit completed, a state a life event ends
        ("The user is studying for the CPA exam.", "The user passed the CPA exam."),
        ("Fatima is single.", "Fatima got engaged to Karim in May."),
        (
            "The user's home office is in the spare bedroom.",
            "The user moved their home office into the garage.",
        ),
        ("The user's salary is $78,000 per year.", "The user's annual salary rose to $84,000."),
        (
            "Invoices go to accounts@acme.io.",
            "Going forward, invoices go to billing@acme.io.",
        ),
        # a participle clause set before its clause tells when that one holds
        (
            "The user's rent is $1,800 per month.",
            "Starting in March, the user's rent is $1,950 per month.",
        ),
    ],
)
def test_a_change_supersedes(older: str, newer: str) -> None:
    assert _supersedes(older, newer)


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        # another exam, another thing done, another fact of the same person
        (
            "The user is studying for the AWS Solutions Architect exam.",
            "The user passed the AWS Cloud Practitioner exam.",
        ),
        (
            "Zainab ran the Chicago Marathon in 3 hours 42 minutes.",
            "Zainab finished the Chicago Marathon in 4:15.",
        ),
        (
            "Tom has a CPA license from Illinois.",
            "Tom currently works at KPMG as a tax consultant.",
        ),
        ("The user's wedding was held in Napa Valley.", "The user got married in Charleston."),
        # the same level told twice
        (
            "The user's rent increased to $1,950 in March.",
            "The user's rent rose to $1,950 in March.",
        ),
        # a marriage denied, a plan: no value held
        ("The user is married to Jordan.", "The user is single and has never been married."),
        ("The user plans to cut spending to $500 a month.", "The user now spends $700 a month."),
    ],
)
def test_no_change_of_the_older_fact(older: str, newer: str) -> None:
    assert not _supersedes(older, newer)


def test_the_update_channel_finds_a_new_value_without_its_attribute() -> None:
    assert update_match(
        "The user's phone is an iPhone 12.", "The user upgraded to an iPhone 15 Pro.", 0.5
    )
    assert not update_match(
        "The frontend is a Next.js app.", "The frontend now deploys to Vercel.", 0.5
    )


def test_the_strict_reading_takes_a_slot_told_again_with_a_new_value() -> None:
    older = "The user's default shell is bash."
    assert (
        relate(older, "The user changed their default shell to zsh.", STRICT).relation
        is Relation.CHANGED
    )


def _values(text: str) -> set[tuple[str, str]]:
    return {(v.kind, v.key) for v in facts(text).values}


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("The appointment is on 2024-05-07.", {("year", "2024"), ("date", "05-07")}),
        ("The rate is four and a quarter percent.", {("percent", "4.25")}),
        ("The rate is 4.25%.", {("percent", "4.25")}),
        ("The standup is every weekday.", {("weekday", "mon-fri")}),
        ("Monday through Friday the standup is at 9.", {("weekday", "mon-fri"), ("number", "9")}),
        ("The build ran on Monday.", {("weekday", "mon")}),
    ],
)
def test_values_in_figures_and_words(text: str, found: set[tuple[str, str]]) -> None:
    assert _values(text) == found


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("Lena was born on March 4, 2019.", "Lena was born 2019-03-04."),
        (
            "The staging database runs PostgreSQL 15.",
            "PostgreSQL version 15 is what powers the staging database.",
        ),
        (
            "The user's dentist appointment is on May 7 at 8:30.",
            "The user is seeing the dentist on May 7 at 8:30.",
        ),
    ],
)
def test_restatements_in_other_figures_and_words(older: str, newer: str) -> None:
    assert not restatement_differences(older, newer, 2, 2)
    assert not restatement_differences(newer, older, 2, 2)


def test_a_name_in_the_older_place_of_a_verb_told_elsewhere_is_no_restatement() -> None:
    older = "Gabriel grew up in São Paulo."
    assert fold_conflicts(older, "Gabriel grew up in Recife and first visited São Paulo at 25.")
    assert not fold_conflicts(older, "Gabriel grew up in São Paulo, Brazil's largest city.")


@pytest.mark.parametrize(
    ("older", "newer", "supersedes"),
    [
        # the latest of the very thing the older names, the older dated by a month
        (
            "Ines's resting heart rate was 64 at the March checkup.",
            "Ines's latest resting heart rate, from the May checkup, is 58.",
            True,
        ),
        # the older's time before now, the newer's now
        (
            "The van's odometer showed 80,000 km last spring.",
            "The van's odometer shows 91,500 km this month.",
            True,
        ),
        # a "latest" dated a year before the older's is no later
        (
            "Ines's resting heart rate was 64 at the 2026 checkup.",
            "Ines's latest resting heart rate, from the 2024 checkup, is 58.",
            False,
        ),
        # "latest" of another thing than the older's
        (
            "Ines's resting heart rate was 64 at the March checkup.",
            "Per the latest guidance, Ines's resting heart rate was 58 at the May checkup.",
            False,
        ),
    ],
)
def test_a_dated_older_is_superseded_only_by_its_own_latest(
    older: str, newer: str, supersedes: bool
) -> None:
    assert _supersedes(older, newer) is supersedes


def test_a_noun_told_with_other_modifiers_is_a_new_value_of_it() -> None:
    # "the data platform team" / "the security team": the team is what changes
    older = "Keanu is on the mobile payments team."
    newer = "Keanu transferred to the fraud team in April."
    assert _supersedes(older, newer)
    assert update_match(older, newer, 0.5)
    # another thing told with another modifier is still another thing
    assert not _supersedes(
        "Keanu's work phone is a Pixel 8.", "Keanu's personal phone is now an iPhone 15."
    )
