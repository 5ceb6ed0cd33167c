"""A fact told by its predicate or by a noun that names its value
(``memfold.reading.predicate_nouns``), read by the relation, the offline judge and the
guards as one fact where subject and value agree, and as two where either differs."""

from __future__ import annotations

import pytest

from memfold.config import ConsolidationSettings
from memfold.judge.rules import limits_from_settings
from memfold.reading.difference import supersede_conflicts
from memfold.reading.predicate_nouns import as_shaped_by_older, nouns_for, shape
from memfold.reading.relation import Relation, relate
from memfold.reading.restatement import restatement_differences
from memfold.reading.tables import parse_entries

LIMITS = limits_from_settings(ConsolidationSettings())


@pytest.mark.parametrize(
    ("older", "newer", "shaped"),
    [
        (
            "The user was born in Accra.",
            "Accra is the user's birthplace.",
            "The user was born in Accra.",
        ),
        (
            "Beatriz was born on 4 May 1988.",
            "Beatriz's date of birth is May 4, 1988.",
            "Beatriz was born on May 4, 1988.",
        ),
        (
            "The deadline for conference abstracts is 11:59 pm on Sept 30.",
            "Conference abstracts are due by 23:59 on September 30.",
            "The deadline for conference abstracts is 23:59 on September 30.",
        ),
        (
            "The NYC office is at 200 Park Avenue.",
            "The New York City office's address is 200 Park Ave.",
            "The NYC office is at 200 Park Ave.",
        ),
        ("Olu reports to Funmi.", "Funmi is Olu's manager.", "Olu reports to Funmi."),
        # a name the small model reads as an adjective is the value all the same
        (
            "The marketing site is hosted on Vercel.",
            "The marketing site's host is Netlify.",
            "The marketing site is hosted on Netlify.",
        ),
    ],
)
def test_the_newer_is_read_in_the_older_shape_with_its_own_value(
    older: str, newer: str, shaped: str
) -> None:
    assert as_shaped_by_older(older, newer) == shaped


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("Ana was born in Lisbon.", "Ben's birthplace is Lisbon."),  # another person
        ("Ana is Ben's manager.", "Ana reports to Ben."),  # the relation the other way
        ("Ana was born in Lisbon.", "Ana's mother was born in Lisbon."),  # both predicates
        ("Ana was born in Lisbon.", "Ana's favourite city is Lisbon."),  # not the table's
        ("Ana was born in Lisbon and lives in Porto.", "Ana's birthplace is Lisbon."),
        ("Ana was born in Lisbon.", "Ana's birthplace is Lisbon, she says."),
    ],
)
def test_another_subject_noun_or_more_said_is_left_as_written(older: str, newer: str) -> None:
    assert as_shaped_by_older(older, newer) == newer


def test_one_fact_told_both_ways_relates_as_the_same() -> None:
    reading = relate("The user was born in Accra.", "Accra is the user's birthplace.", LIMITS)
    assert reading.relation is Relation.SAME and not reading.exact
    told = relate(
        "Beatriz was born on 4 May 1988.", "Beatriz's date of birth is May 4, 1988.", LIMITS
    )
    assert told.relation is Relation.SAME


def test_another_value_told_by_the_noun_stays_another_value() -> None:
    older, newer = "Ana was born in Lisbon.", "Ana's birthplace is Porto."
    shaped = as_shaped_by_older(older, newer)
    assert shaped == "Ana was born in Porto."
    assert restatement_differences(older, shaped, 2, 2)
    assert relate(older, newer, LIMITS).relation is not Relation.SAME


def test_without_the_shape_the_readings_see_another_subject() -> None:
    # What the module is for: read as written, the copula's subject is the noun.
    older, newer = (
        "The NYC office is at 200 Park Avenue.",
        "The NYC office's address is 200 Park Avenue.",
    )
    assert supersede_conflicts(older, newer)
    assert not supersede_conflicts(older, as_shaped_by_older(older, newer))


def test_a_text_of_two_clauses_has_no_shape() -> None:
    assert shape("Ana was born in Lisbon and lives in Porto.") is None
    assert shape("Is Ana's birthplace Lisbon?") is None
    found = shape("The gym membership's price is $210 a month.")
    assert found is not None and found.noun and found.keys == ("price",)


def test_the_table_names_nouns_by_predicate() -> None:
    assert "birthplace" in nouns_for("born in")
    assert "date of birth" in nouns_for("born on")
    assert not nouns_for("likes")
    assert parse_entries("x", "born in / birthplace | Accra is the user's birthplace.")
