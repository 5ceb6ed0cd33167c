"""Issue 10: general words, rewordings and "a little more" fold; one slot never does.

Pairs here are written for these tests (not taken from any evaluation set).
"""

from __future__ import annotations

import pytest

from memfold.config import ConsolidationSettings
from memfold.judge.rules import thresholds_from_settings
from memfold.judge.rules_compare import Relation, compare
from memfold.policy.wording.elaboration import elaboration
from memfold.policy.wording.paraphrase import paraphrase

_LIMITS = thresholds_from_settings(ConsolidationSettings())


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        # a general word for a specific one
        ("A man is washing a car.", "A person is washing a car."),
        ("The woman is reading a novel.", "Someone is reading a novel."),
        ("A puppy is chewing a shoe.", "A dog is chewing a shoe."),
        # rewordings
        ("A cook is slicing carrots.", "A cook is chopping carrots."),
        ("A lady is riding a bicycle.", "A woman is riding a bike."),
        # voice with words between the participle and "by", and "being" + participle
        ("The fence is being painted white by a girl.", "A girl is painting the fence white."),
        ("Bread is being spread with jam by a boy.", "A boy is spreading jam on bread."),
    ],
)
def test_general_words_and_rewordings_align(older: str, newer: str) -> None:
    assert paraphrase(older, newer), (older, newer)


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("A woman is washing a car.", "A man is washing a car."),  # neither is the other's kind
        ("The user's brother lives in Oslo.", "The user's sister lives in Oslo."),
        ("His son plays chess.", "His kid plays chess."),  # a relative with an owner stays
        ("The lamp is on.", "The lamp is off."),
        ("A man is chasing a dog.", "A man is being chased by a dog."),  # voice turns roles
        ("A dog is chasing a man.", "A person is chasing a dog."),
    ],
)
def test_one_slot_never_aligns(older: str, newer: str) -> None:
    assert not paraphrase(older, newer), (older, newer)
    assert elaboration(older, newer) is None, (older, newer)


@pytest.mark.parametrize(
    ("older", "newer", "newer_is_longer"),
    [
        ("A man is eating soup.", "A man is hungrily eating soup.", True),
        ("Two young women are dancing.", "Two women are dancing.", False),
        ("A boy is playing a guitar.", "A boy is playing an electric guitar.", True),
        ("The dog is running through the tall grass.", "The dog is running through grass.", False),
    ],
)
def test_a_little_more_folds(older: str, newer: str, newer_is_longer: bool) -> None:
    more = elaboration(older, newer)
    assert more is not None, (older, newer)
    assert more.newer_is_longer is newer_is_longer


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("The user's manager is Sofia.", "The user's skip-level manager is Sofia."),
        ("The user's car is red.", "The user's new car is red."),
        ("Tom is an engineer at Acme.", "Tom is a senior engineer at Acme."),
        ("Deploys go to the server at night.", "Deploys go to the staging server at night."),
        ("Deploys go to the staging server.", "Deploys go to the production server."),
        ("The user has a gun at home.", "The user has a toy gun at home."),
        ("Mia plays tennis.", "Mia plays tennis daily."),  # a frequency is a slot
        ("A man is dancing.", "A man is dancing with Maria."),  # a name is never "more"
        ("The user bought tickets.", "The user bought 3 tickets."),  # nor a number
        ("A man is not eating soup.", "A man is hungrily eating soup."),  # negation
    ],
)
def test_a_modifier_that_names_which_thing_stays_apart(older: str, newer: str) -> None:
    assert elaboration(older, newer) is None, (older, newer)
    assert compare(older, newer, _LIMITS).relation is not Relation.ELABORATES
