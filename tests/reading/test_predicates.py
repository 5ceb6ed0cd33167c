"""A written text must not say of one name what its sources say of another."""

from __future__ import annotations

from memfold.reading.facts import facts
from memfold.reading.parser import read
from memfold.reading.predicates import moved_attributes, said_of_names

SOURCES = [
    "Our rabbit Pip is 4 and takes a daily eye drop.",
    "Juniper is 9 and she is not allowed in the kitchen.",
]


def test_a_thing_moved_from_one_name_to_another_is_seen() -> None:
    result = (
        "The user's rabbit Pip is 4; the user's dog Juniper is 9, takes a daily eye drop "
        "and is not allowed in the kitchen."
    )
    problems = moved_attributes(result, SOURCES)
    assert any("juniper" in p and "pip" in p for p in problems), problems


def test_each_name_keeping_its_own_things_passes() -> None:
    result = (
        "The user's rabbit Pip is 4 and takes a daily eye drop; the user's dog Juniper is 9 "
        "and is not allowed in the kitchen."
    )
    assert moved_attributes(result, SOURCES) == []


def test_a_joined_verb_keeps_the_subject_of_the_verb_it_is_joined_to() -> None:
    text = "Pip is 4, takes a daily eye drop and sleeps in the hallway."
    said = said_of_names(read(text), facts(text))
    assert {("pip", "drop"), ("pip", "hallway")} <= said
