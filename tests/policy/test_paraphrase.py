"""Paraphrase alignment: restatements fold, one-slot differences never do.

Pairs here are written for these tests (not taken from any evaluation set).
"""

from __future__ import annotations

import pytest

from memfold.policy.wording.paraphrase import concept_of, paraphrase, read, turned_around
from memfold.policy.wording.spelling import canonical_text


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("Tom works at Acme as a data engineer.", "Tom is a data engineer at Acme."),
        ("Acme hired Nora in 2019.", "Nora was hired by Acme in 2019."),
        ("The user earns $120k a year.", "The user's annual salary is $120,000."),
        ("The user is fond of green tea.", "The user likes green tea."),
        ("Priya's dog is called Rusty.", "Priya has a dog named Rusty."),
        ("The dentist visit is at 4pm.", "The dentist visit is at 16:00."),
        ("Wen's badge expires on 3 Sept.", "Wen's badge expires on September 3."),
        ("The user goes climbing every Tuesday.", "The user goes climbing on Tuesdays."),
        ("Marco doesn't like spicy food.", "Marco dislikes spicy food."),
        ("The build server is exposed on port 8080.", "The build server listens on port 8080."),
        ("Ana is a member of the infrastructure team.", "Ana is on the infra team."),
        ("The user was born in Quito.", "Quito is the user's birthplace."),
    ],
)
def test_restatements_align(older: str, newer: str) -> None:
    assert paraphrase(older, newer), (older, newer)


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        # one slot differs: relative, owner, environment, attribute, value, year
        ("Nora's sister lives in Oslo.", "Nora's brother lives in Oslo."),
        ("Li grew up in Hanoi.", "Li's wife grew up in Hanoi."),
        ("The staging cache holds 2 GB.", "The production cache holds 2 GB."),
        ("The user's manager is based in Lima.", "The user's skip-level manager is based in Lima."),
        ("The team meets on Mondays.", "The team meets on Fridays."),
        ("In 2020 the user visited Rome.", "In 2021 the user visited Rome."),
        ("The user's phone bill is 40 euros.", "The user's water bill is 40 euros."),
        # who does what to whom
        ("Sofia mentors Daniel.", "Daniel mentors Sofia."),
        ("Acme hired Nora.", "Nora hired Acme."),
        ("Nora's manager is Ian.", "Ian's manager is Nora."),
        ("Acme acquired Bolt.", "Acme was acquired by Bolt."),
        # direction
        ("The user's train to Porto leaves at 9am.", "The user's train from Porto leaves at 9am."),
        ("The user prefers tea over coffee.", "The user prefers coffee over tea."),
        # polarity, questions, too little to go on
        ("The user eats fish.", "The user does not eat fish."),
        ("Does the user eat fish?", "The user eats fish."),
        ("Coffee.", "Coffee."),
    ],
)
def test_one_slot_differences_never_align(older: str, newer: str) -> None:
    assert not paraphrase(older, newer), (older, newer)


def test_canonical_spelling_of_numbers_times_and_money() -> None:
    assert "85000" in canonical_text("$85k")
    assert "t23:59" in canonical_text("11:59 pm")
    assert "t10:00" in canonical_text("10 in the morning")
    assert "600" in canonical_text("six hundred dollars")
    assert "peryear" in canonical_text("per year")


def test_concepts_map_synonyms_and_skip_empty_words() -> None:
    assert concept_of("salary") == concept_of("earns")
    assert concept_of("is") == ""
    assert concept_of("2022") == "2022"  # numbers are never stemmed
    assert concept_of("third") == "3"
    assert read("Ravi flies to Lima.").concepts == read("Ravi's flight to Lima.").concepts


def test_turned_around_needs_a_direction_word() -> None:
    assert turned_around("video calls over phone calls", "phone calls over video calls")
    assert not turned_around("Ann and Bo cook", "Bo and Ann cook")


def test_who_manages_whom_in_one_form() -> None:
    assert paraphrase("Omar's manager is Lena Fox.", "Omar is managed by Lena Fox.")
    assert paraphrase("Omar's manager is Lena Fox.", "Omar reports to Lena Fox.")
    assert not paraphrase("Omar's manager is Lena Fox.", "Lena Fox reports to Omar.")


def test_clock_times_and_cadences_are_not_stemmed() -> None:
    assert paraphrase("Retro is at 3pm every weekday.", "Daily retro at 15:00, Monday to Friday.")
    assert not paraphrase("Retro is at 3pm every weekday.", "Retro is at 3:30pm every weekday.")
