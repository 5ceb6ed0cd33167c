"""Issue 10, fourth round: spellings, units, clock words, "the N of X", acronyms and
filler words put in one spelling; the vetoes added with them (an owner's relative as the
subject, a name's compound, a concept said fewer times). Pairs written for these tests,
not taken from any evaluation set."""

from __future__ import annotations

import pytest

from memfold.config import ConsolidationSettings
from memfold.judge.rules import thresholds_from_settings
from memfold.judge.rules_compare import Relation, compare
from memfold.policy.wording.concepts import concept_of
from memfold.policy.wording.elaboration import elaboration, qualifies_owned_or_role
from memfold.policy.wording.paraphrase import paraphrase
from memfold.policy.wording.spelling import american_spelling, canonical_text


@pytest.mark.parametrize(
    ("british", "american"),
    [
        ("favourite", "favorite"),
        ("colours", "colors"),
        ("kilometres", "kilometers"),
        ("organised", "organized"),
        ("travelling", "traveling"),
        ("centre", "center"),
        # words that only look alike stay as they are
        ("hour", "hour"),
        ("realistic", "realistic"),
        ("four", "four"),
    ],
)
def test_british_spellings_read_as_american(british: str, american: str) -> None:
    assert american_spelling(british) == american


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("runs five kilometres", "runs 5 km"),
        ("a 5-km run", "a 5 km run"),
        ("weighs 72 kilograms", "weighs 72 kg"),
        ('a 14" laptop with 32GB RAM', "a 14 inch laptop with 32 gb ram"),
        ("a 14-inch laptop with 32 gigabytes of RAM", "a 14 inch laptop with 32 gb of ram"),
        ("about 25 mins", "about 25 minute"),
        ("after three in the afternoon", "after t15:00"),
        ("lunch at noon", "lunch at t12:00"),
        ("sprints last two weeks", "sprints last 14 day"),
        # a spaced "m" is a metre, an unspaced one a million
        ("The user is 1.83 m tall.", "the user is 1.83 m tall."),
        ("5m users", "5000000 users"),
        ("The sister of Arjun lives here.", "arjun's sister lives here."),
        ("The manager of the user is Bo.", "the user's manager is bo."),
        ("Sam moved to Berlin.", "sam lives in berlin."),
        # a name "of" a name, and a move that is no change of home, are left alone
        ("the University of Toronto", "the university of toronto"),
        ("The standup moved to 10:15.", "the standup moved to t10:15."),
    ],
)
def test_canonical_text_spells_units_times_and_owners_one_way(text: str, canonical: str) -> None:
    assert canonical_text(text) == canonical


def test_a_second_is_not_the_ordinal_two() -> None:
    assert "2" not in {concept_of(w) for w in canonical_text("times out after 30 seconds").split()}


def test_plane_is_looked_up_by_its_spelling_not_its_stem() -> None:
    assert concept_of("plans") != concept_of("planes")
    assert concept_of("planes") == concept_of("airplane")


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        (
            "The user's favourite film is Spirited Away.",
            "Spirited Away is the user's favorite movie.",
        ),
        ("The user runs 5 km every Saturday.", "Every Saturday the user runs five kilometres."),
        ("Arjun's sister lives in NYC.", "The sister of Arjun lives in New York City."),
        (
            "The user can't attend meetings on Fridays.",
            "The user is unable to attend meetings on Fridays.",
        ),
        (
            "Noor doesn't drink coffee after 3 pm.",
            "Noor does not drink coffee after three in the afternoon.",
        ),
        (
            "Ingrid works for Spotify as an engineer.",
            "Ingrid is employed by Spotify as an engineer.",
        ),
        ("Leila speaks fluent Farsi and French.", "Leila is fluent in French and Farsi."),
        (
            "The staging database is reset every Sunday night.",
            "Every Sunday night, the staging database gets reset.",
        ),
        ("The max upload size is 10 MB.", "The maximum upload size is 10 megabytes."),
        (
            "Haruto's piano lessons are on Wednesday afternoons.",
            "Haruto has piano lessons every Wednesday afternoon.",
        ),
    ],
)
def test_restatements_in_other_spellings_fold(older: str, newer: str) -> None:
    assert paraphrase(older, newer), (older, newer)


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        # who owes whom: the owner's relative is the subject of one, the object of the other
        ("Kofi owes his cousin 300 cedis.", "Kofi's cousin owes him 300 cedis."),
        ("Ana's sister lives in Rome.", "Ana lives in Rome with her sister."),
        # units and times keep their values
        ("The user runs 5 km every Saturday.", "The user runs 10 km every Saturday."),
        ("The standup is at 3 pm.", "The standup is at three in the morning."),
        # British spelling changes no value
        ("The user's favourite colour is blue.", "The user's favorite color is green."),
    ],
)
def test_other_facts_in_one_spelling_stay_apart(older: str, newer: str) -> None:
    assert not paraphrase(older, newer), (older, newer)


def test_an_owner_that_has_the_thing_says_what_its_possessive_says() -> None:
    assert paraphrase("Zanele's cat is named Mango.", "Zanele has a cat named Mango.")
    assert paraphrase("The user earns $85k a year.", "The user's annual salary is $85,000.")


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        # a word after a name names a part of the named thing
        ("The Pebble repo uses Rust.", "The Pebble docs repo uses Rust."),
        # a word before an owner says which owner
        ("The repo's default branch is main.", "The docs repo's default branch is main."),
        # one "prod" swapped for "networking", another left in the bucket's name
        (
            "The Terraform state for production lives in the tf-state-prod bucket.",
            "The Terraform state for networking lives in the tf-state-prod bucket.",
        ),
    ],
)
def test_a_word_that_says_which_thing_is_never_a_little_more(older: str, newer: str) -> None:
    assert elaboration(older, newer) is None


def test_a_manner_adverb_is_still_a_little_more() -> None:
    more = elaboration("A man is eating.", "A man is hungrily eating.")
    assert more is not None and more.newer_is_longer


def test_a_word_inserted_before_an_owner_is_another_owner_for_the_rule_judge() -> None:
    limits = thresholds_from_settings(ConsolidationSettings())
    older, newer = (
        "The Pebble repo's default branch is main.",
        "The Pebble docs repo's default branch is main.",
    )
    assert compare(older, newer, limits).relation is Relation.OTHER
    assert qualifies_owned_or_role(older, newer)
