"""The result check on bindings: a written text keeps who did what to whom, when, how
much and with which polarity, and adds nothing."""

from __future__ import annotations

import pytest

from memfold.reading.bindings import binding_problems

TRIPS = ["In January the user skied Whistler with Tom.", "In March the user skied Banff with Ana."]


def check(result: str, sources: list[str], keep_all: bool = True) -> list[str]:
    return binding_problems(result, sources, keep_all=keep_all, max_new_words=2, max_new_nouns=0)


@pytest.mark.parametrize(
    ("result", "sources", "seen"),
    [
        (
            "In January the user skied Whistler with Ana, and in March Banff with Tom.",
            TRIPS,
            "binds",
        ),
        ("Daniel mentors Sofia.", ["Sofia mentors Daniel."], "trade places"),
        (
            "The flight leaves at 12 am from gate 9.",
            ["The flight leaves at 9 am from gate 12."],
            "no source",
        ),
        ("The user is not allergic to peanuts.", ["The user is allergic to peanuts."], "negates"),
        (
            "The user is allergic to peanuts and takes insulin.",
            ["The user is allergic to peanuts."],
            "adds",
        ),
        ("Kofi's cousin owes him 300 cedis.", ["Kofi owes his cousin 300 cedis."], "subject"),
        (
            "Amara coaches Tomasz in chess.",
            ["Amara coaches Tomasz in chess at the library."],
            "drops",
        ),
        (
            "Guests have to pay for the visitor lot behind the clinic.",
            ["The visitor lot behind the clinic is free.", "Guests pay for the visitor lot."],
            "says it is ('free')",
        ),
        (
            "Dark mode is disabled on the laptop; updates are enabled on the phone.",
            ["Dark mode is enabled on the laptop.", "Updates are disabled on the phone."],
            "together",
        ),
    ],
)
def test_a_false_text_is_refused_with_what_was_seen(
    result: str, sources: list[str], seen: str
) -> None:
    problems = check(result, sources)
    assert any(seen in p for p in problems), problems


@pytest.mark.parametrize(
    ("result", "sources"),
    [
        ("In January the user skied Whistler with Tom; in March, Banff with Ana.", TRIPS),
        ("Daniel is mentored by Sofia.", ["Sofia mentors Daniel."]),
        (
            "The user's father has type 2 diabetes, takes metformin with breakfast "
            "and walks for 30 minutes after dinner.",
            [
                "The user's father has type 2 diabetes.",
                "The user's father takes metformin with breakfast.",
                "The user's father walks for 30 minutes after dinner.",
            ],
        ),
    ],
)
def test_a_faithful_text_passes(result: str, sources: list[str]) -> None:
    assert check(result, sources) == []


def test_a_name_told_by_its_initials_is_kept() -> None:
    older = "Rosa's blood pressure check is scheduled for 2:00 p.m. on April 8."
    assert check(older, [older, "Rosa has a BP check at 14:00 on 8 April."]) == []
    problems = check(older, [older, "Rosa has an MRI at 14:00 on 8 April."])
    assert "result drops the name 'mri'" in problems


def test_an_extract_may_leave_facts_out() -> None:
    turns = ["I owe my cousin 300 cedis for the bus fare, and I love chess."]
    assert check("The user owes their cousin 300 cedis.", turns, keep_all=False) == []
    assert check("The user owes their cousin 300 cedis.", turns, keep_all=True) != []


def test_an_extract_keeps_the_negations_of_the_sentence_it_restates() -> None:
    turns = ["I'm not sure how to start. My project deadline is April 1, 2024."]
    assert check("The user's project deadline is April 1, 2024.", turns, keep_all=False) == []
    negated = ["I am not allergic to peanuts. I carry an EpiPen for bee stings."]
    assert check("The user carries an EpiPen for bee stings.", negated, keep_all=False) == []
    problems = check("The user is allergic to peanuts.", negated, keep_all=False)
    assert any("negation" in p for p in problems), problems
    doubt = ["I've added schema validation with Marshmallow 3.19, but I'm not sure it is right."]
    assert check("The user added schema validation with Marshmallow 3.19.", doubt, False) == []
    away = check("Sam is in Paris.", ["Sam is not in Paris."], keep_all=False)
    assert any("negation" in p for p in away), away


@pytest.mark.parametrize(
    ("result", "sources", "seen"),
    [
        (
            "Tobi chairs the board meeting this week; Mara wrote the agenda.",
            ["Mara is chairing the board meeting this week.", "Tobi wrote the agenda."],
            "the subject of 'chair'",
        ),
        (
            "The reading group is reading Emma this month; Kim chose the next novel, Dune.",
            ["The reading group is reading Dune this month.", "Kim chose the next novel, Emma."],
            "the object of 'read'",
        ),
    ],
)
def test_a_name_put_in_another_names_place_is_seen(
    result: str, sources: list[str], seen: str
) -> None:
    problems = check(result, sources, keep_all=False)
    assert any(seen in p for p in problems), problems


def test_a_pronoun_taken_for_a_person_is_no_evidence_of_a_swap() -> None:
    sources = [
        "My landlord Henrik agreed to fix the boiler.",
        "The plumber he hired, Oskar, quoted 450 euros.",
    ]
    result = "Henrik will fix the boiler; Oskar, the plumber he hired, quoted 450 euros."
    assert not [p for p in check(result, sources, keep_all=False) if "'hire'" in p]


def test_a_particle_is_no_state() -> None:
    sources = ["I owe my cousin Ama 300 cedis for the bus fare.", "I will pay it back this week."]
    result = (
        "The user owes their cousin Ama 300 cedis for the bus fare and will pay it back this week."
    )
    assert not [p for p in check(result, sources, keep_all=False) if "together" in p]
