"""What the strict reading (the offline judge's) and the guards' readings refuse that
wording alone would let through: a hedge, a place gone to or come from, a question, a
clause more, another tense, a lost negation, another subject's name; and what a change
cue is (texts written for these tests)."""

from __future__ import annotations

import pytest

from memfold.reading.cues import change_cues
from memfold.reading.difference import same_fact, supersede_conflicts
from memfold.reading.facts import facts
from memfold.reading.relation import Limits, Relation, relate
from memfold.reading.restatement import new_value_only, restatement_differences
from memfold.reading.supersede import supersede_evidence

STRICT = Limits(max_additions=2, swap_max=2, min_overlap=0.5, max_reworded=2)


def test_a_hedged_statement_is_not_the_statement() -> None:
    found = same_fact("Mia may move to Oslo in spring.", "Mia is moving to Oslo in spring.")
    assert any(d.kind == "certainty" for d in found), found
    assert not same_fact("Mia might move to Oslo.", "Mia might move to Oslo in spring.", "newer")


def test_a_place_gone_to_is_not_a_place_come_from() -> None:
    older, newer = "Grandpa was taken to the hospital.", "Grandpa was released from the hospital."
    assert any("hospital" in d.detail for d in supersede_conflicts(older, newer))
    assert relate(older, newer, STRICT).relation is Relation.OTHER
    assert not supersede_conflicts("Ana flew to Lisbon.", "Ana flew into Lisbon.")


def test_a_question_in_quotes_is_still_a_question() -> None:
    reading = relate("The user has a cat.", '"Does the user have a cat?"', STRICT)
    assert reading.relation is Relation.OTHER


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        # a clause of its own, not a detail of the older's
        (
            "The user rents a flat in Leeds.",
            "The user rents a flat in Leeds and the landlord wants to sell it.",
        ),
        # one verb, another tense
        ("The book club meets at Nadia's place.", "The book club met at Nadia's place."),
        # the older's negation told in other words
        ("Jun is not allowed to drive at night.", "Jun avoids driving at night."),
        # a verb told by a verb about other things
        ("Tomas said the rollout is paused.", "The rollout is paused, the logs show."),
    ],
)
def test_the_strict_reading_leaves_what_it_cannot_tell(older: str, newer: str) -> None:
    assert relate(older, newer, STRICT).relation not in (Relation.SAME, Relation.SAYS_MORE)


def test_the_strict_reading_still_folds_a_verb_told_another_way() -> None:
    reading = relate("The user uses Rust.", "The user prefers Rust for systems work.", STRICT)
    assert reading.relation is Relation.SAYS_MORE
    more = relate("The user likes coffee.", "The user likes coffee but not tea.", STRICT)
    assert more.relation is Relation.SAYS_MORE


def test_a_subject_named_otherwise_is_another_thing() -> None:
    older, newer = "The Nasdaq index fell 23 points.", "The S&P 500 index gave up 12 points."
    assert any("nasdaq" in d.detail for d in supersede_conflicts(older, newer))
    assert not supersede_conflicts("Sam lives in Lyon.", "Sam moved to Berlin.")


@pytest.mark.parametrize(
    ("older", "newer", "only"),
    [
        ("The user's rent is $1,200.", "The user's rent is now $1,350.", True),
        ("The thermostat is set to 20.", "The thermostat was raised to 22.", True),
        (
            "The grocery order is delivered on Saturdays.",
            "The grocery delivery now comes on Thursdays.",
            True,
        ),
        ("The staging database cluster has 6 nodes.", "The team now rents 9 nodes.", False),
    ],
)
def test_a_new_value_in_the_same_words(older: str, newer: str, only: bool) -> None:
    assert new_value_only(older, newer, 2) is only


@pytest.mark.parametrize(
    ("text", "cues"),
    [
        ("After the renewal the rent went up to $1,520.", {"go up"}),
        ("The club moved its sessions to alternate Sundays.", {"move"}),
        ("Shares rose, extending Monday's two percent rally to hit a record.", set()),
        ("The deadline was extended by two weeks.", {"extend"}),
    ],
)
def test_a_value_changing_verb_needs_its_value(text: str, cues: set[str]) -> None:
    assert change_cues(facts(text)) == cues


def test_a_cue_the_older_already_says_is_no_change() -> None:
    older = "The delegation was departing on Wednesday and arriving in Oslo on Friday."
    newer = "The delegation arrives in Oslo on Friday and leaves on Sunday."
    assert not supersede_evidence(older, newer, 0.5, 2).found


def test_an_antonym_is_read_only_where_it_names_no_thing() -> None:
    assert same_fact("The captain was gone.", "The captain came back.")
    found = same_fact("The user hurt their back.", "The user's headache is gone.")
    assert not any(d.kind == "polarity" for d in found)


def test_a_first_name_the_model_reads_as_an_adverb_is_a_subject() -> None:
    assert facts("Raj hosts the book club this month.").names == {"raj"}
    assert "now" not in facts("Now works at Stripe.").names


def test_a_name_under_a_negation_in_one_text_only_is_a_polarity_difference() -> None:
    older, newer = (
        "Mateo is a Real Madrid fan.",
        "Mateo supports Sevilla and can't stand Real Madrid.",
    )
    assert any(d.kind == "polarity" for d in same_fact(older, newer)), same_fact(older, newer)
    assert not any(
        d.kind == "polarity"
        for d in same_fact("Lena does not work at Google.", "Lena never worked at Google.")
    )


def test_a_question_is_no_restatement_for_the_guards_either() -> None:
    # the guards' own (loose) reading: a question states no fact
    assert restatement_differences(
        "Is the clinic open on Sundays?", "The clinic is open on Sundays.", 2, 2
    )
    assert not restatement_differences(
        "The clinic is open on Sundays.", "On Sundays the clinic is open.", 2, 2
    )


def test_a_light_verb_with_a_particle_says_its_own_fact() -> None:
    # "getting out of" is no "getting"; "takes off" is no "takes"
    assert "getout" in facts("Milo is getting out of the taxi.").content
    assert "takeoff" in facts("Ines takes off her coat at the door.").content
    found = restatement_differences(
        "Milo is riding in the taxi.", "Milo is getting out of the taxi.", 2, 2
    )
    assert found, "a verb told in place of a phrasal one"
    # a light verb whose preposition takes its own object stays light
    assert facts("Sam goes to the gym on Mondays.").content == {"gym"}


def test_a_state_the_older_places_in_the_past_is_not_superseded() -> None:
    older = "Rafa previously worked as a barista at Kaffa."
    assert supersede_conflicts(older, "Rafa currently works as a roaster at Kaffa.")
    # the newer placing the older's state in the past tells the change
    assert not supersede_conflicts(
        "Rafa works at Kaffa.", "Rafa previously worked at Kaffa and now works at Lune."
    )
    assert "work" in facts(older).ended


def test_next_to_places_nothing_in_time() -> None:
    assert not facts("The printer stands next to the window.").modifiers
    assert facts("The next audit is in May.").modifiers == {("next", "audit")}


def test_the_strict_reading_takes_a_rewording_told_about_the_same_things() -> None:
    # as many words or fewer, each lost verb told by a verb (a light one too) about the
    # same subject or object: a rewording
    for older, newer in [
        ("Omar earns £52k a year.", "Omar's annual salary is £52,000."),
        ("Lea's uncle served in the Gulf War.", "Lea's uncle is a Gulf War veteran."),
    ]:
        reading = relate(older, newer, STRICT)
        assert reading.relation in (Relation.SAME, Relation.SAYS_MORE), reading.detail
    # a light verb tells no verb of its own ("likes" is no "goes")
    reading = relate("Noa likes sailing on the lake.", "Noa goes sailing on the lake.", STRICT)
    assert reading.relation not in (Relation.SAME, Relation.SAYS_MORE)
    # a verb about a thing the newer makes nobody's subject or object is not told
    older = "The council, saying residents asked for it, is reviewing the parking rules."
    newer = "The council has begun a formal review of the residents' parking rules."
    assert relate(older, newer, STRICT).relation not in (Relation.SAME, Relation.SAYS_MORE)


def test_the_same_people_told_from_the_other_side_are_one_fact() -> None:
    # each text's subject is named in the other: "X is the user's doctor" / "the user
    # sees X"; who does what to whom is still read ("trade places", roles)
    older = "Dr. Bauer is the user's dermatologist at Linden Clinic."
    newer = "The user sees Dr. Bauer at Linden Clinic for dermatology."
    assert not supersede_conflicts(older, newer)
    assert not restatement_differences(older, newer, 2, 2)
    assert supersede_conflicts("Lena teaches the user piano.", "The user teaches Lena piano.")
    assert restatement_differences("Ana is Bo's manager.", "Bo manages Ana.", 2, 2)
    # a person the other text never names is another subject
    assert supersede_conflicts(
        "Dr. Bauer is the user's dermatologist.", "The user sees a dermatologist."
    )
