"""The offline extractor's memories are single facts in the user's third person (issue 30,
item 4): a sentence is cut into clauses at the parse's coordination, the first person is
rewritten with verbs that agree, and what cannot be rewritten is left out."""

from __future__ import annotations

import re

import pytest

from memfold.config import Settings
from memfold.engine.conversation.extract.clauses import clauses
from memfold.engine.conversation.extract.person import third_singular
from memfold.engine.conversation.extract.rules import extract_by_rules
from memfold.model import Area
from memfold.policy.extract_check import check_extract
from memfold.policy.result_check import ResultLimits
from memfold.reading.model import Word
from memfold.reading.parser import read

WORDS = (Settings().conversation.value_fact_min_words, Settings().conversation.value_fact_max_words)
_PERSONS = re.compile(r"\b(?:I|me|my|mine|myself|we|us|our|you|your)\b", re.IGNORECASE)


def facts(message: str) -> list[str]:
    """The main memories the rules take from one user message."""
    return [e.text for e in extract_by_rules([("user", message)], WORDS) if e.area is Area.MAIN]


# --- clauses -----------------------------------------------------------------------------


def test_a_sentence_is_cut_where_two_clauses_have_their_own_subjects() -> None:
    assert facts("I'm vegetarian and my sister Ana lives in Porto.") == [
        "User is vegetarian",
        "User's sister Ana lives in Porto",
    ]
    assert facts("I work as a nurse in Leeds and I love hiking.") == [
        "User works as a nurse in Leeds",
        "User loves hiking",
    ]


def test_a_comma_splice_and_a_dash_cut_too() -> None:
    assert facts("I'm a nurse, I work nights.") == ["User is a nurse", "User works nights"]
    assert facts(
        "I'm keen on counseling or working in mental health - I'd love to support those "
        "with similar issues."
    ) == [
        "User is keen on counseling or working in mental health",
        "User would love to support those with similar issues",
    ]


def test_a_verb_with_its_own_complements_takes_the_shared_subject() -> None:
    assert facts("I sold my car last year and bought a bike in May.") == [
        "User sold User's car last year",
        "User bought a bike in May",
    ]
    # "there" names no place once cut from "Porto": the two stay one statement.
    assert facts("I moved to Porto in 2020 and started a bakery there.") == [
        "User moved to Porto in 2020 and started a bakery there"
    ]


def test_verbs_sharing_their_complement_or_auxiliary_stay_one_clause() -> None:
    assert facts("I work and live in Leeds.") == ["User works and lives in Leeds"]
    assert facts("I've been looking at flats and picturing the garden.") == [
        "User has been looking at flats and picturing the garden"
    ]


def test_the_parse_gives_each_clause_its_head_and_subject() -> None:
    reading = read("I'm vegetarian and my sister Ana lives in Porto.")
    found = clauses(reading)
    heads = [reading.words[c.head].text for c in found]
    subjects = [reading.words[c.subject].text for c in found if c.subject is not None]
    assert (heads, subjects) == (["'m", "lives"], ["I", "sister"])
    assert not set(found[0].words) & set(found[1].words)
    assert "and" not in [reading.words[k].text for c in found for k in c.words]


# --- person and agreement ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("message", "fact"),
    [
        ("I love hiking in the Alps.", "User loves hiking in the Alps"),
        ("I try to swim every morning.", "User tries to swim every morning"),
        ("I watch old films on Sundays.", "User watches old films on Sundays"),
        ("I was a teacher for ten years.", "User was a teacher for ten years"),
        ("I've been running for years.", "User has been running for years"),
        ("I don't eat meat.", "User doesn't eat meat"),
        ("I'll move to Berlin next year.", "User will move to Berlin next year"),
        ("I'd been waiting for a visa for months.", "User had been waiting for a visa for months"),
        ("I am allergic to cats.", "User is allergic to cats"),
        ("My brother lives in Oslo.", "User's brother lives in Oslo"),
        ("A friend of mine runs a bakery in Lyon.", "A friend of User's runs a bakery in Lyon"),
        ("Dancing brings me joy.", "Dancing brings User joy"),
        ("I taught myself the guitar.", "User taught themselves the guitar"),
    ],
)
def test_the_first_person_becomes_user_and_the_verb_agrees(message: str, fact: str) -> None:
    assert facts(message) == [fact]


def test_a_present_verb_takes_its_third_person_ending() -> None:
    def verb(text: str) -> Word:
        return Word(text, text, "VERB", "VBP", "ROOT", 0, 0)

    forms = [third_singular(verb(v)) for v in ("love", "fix", "go", "try", "play", "have")]
    assert forms == ["loves", "fixes", "goes", "tries", "plays", "has"]
    assert third_singular(Word("are", "be", "AUX", "VBP", "ROOT", 0, 0)) is None


def test_someone_elses_fact_keeps_their_own_pronoun() -> None:
    assert facts("My sister Ana loves her job.") == ["User's sister Ana loves her job"]


def test_a_pronoun_is_read_with_the_clause_it_stands_for_a_noun_of() -> None:
    assert facts("I'm tracking my study hours, and I've already spent 3 hours on them.") == [
        "User is tracking User's study hours, and User has already spent 3 hours on them"
    ]
    # Only a clause of the same person: two people's facts are never joined.
    assert facts("I don't like coffee but my sister Ana loves it.") == ["User doesn't like coffee"]


# --- left out ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "message",
    [
        "Do you like hiking?",  # a question
        "I love it.",  # "it" stands for nothing the memory says
        "I had a blast there last month.",  # "there": where?
        "I haven't had one in ages.",  # "one" of what?
        "User loves that.",  # a demonstrative alone
        "We moved to Lisbon last year.",  # "we": who else?
        "You should try the new cafe.",  # the addressee
        "I wanna start a dance studio.",  # no form of "wanna" agrees with "User"
        "Check out this photo I took!",  # a command before the subject
        "Since I was 17.",  # a subordinate clause standing alone
        "I'm not sure about it.",  # nothing lasting
        "You can make your studio work, I'm sure.",  # "I'm sure" says nothing alone
        "I study law and my brother studies medicine.",  # a misread coordination
        "Thanks, Caroline!",  # no statement
    ],
)
def test_what_cannot_be_one_fact_in_the_third_person_is_left_out(message: str) -> None:
    assert facts(message) == []


def test_only_the_clauses_that_can_be_rewritten_are_kept() -> None:
    assert facts("Your idea is great and I love cooking.") == ["User loves cooking"]
    assert facts(
        "I have a call with my landlord on May 2 at 3 PM, what should I prepare for it?"
    ) == ["User has a call with User's landlord on May 2 at 3 PM"]
    assert facts("Yeah, Caroline, I finally adopted a dog from the shelter.") == [
        "User finally adopted a dog from the shelter"
    ]


MESSAGES = [
    "Hey Mel! I went to a support group yesterday and it was so powerful.",
    "I'm putting together an art show next month and I'm gonna show my paintings.",
    "My dream is to create a safe and loving home for these kids.",
    "I've known these friends for 4 years, since I moved from my home country.",
    "I'm working on my business and some new dance routines - rehearsing hard for a show.",
    "Last Friday I went to a council meeting for adoption. It was inspiring!",
    "I don't like coffee but my sister Ana loves it.",
]


def test_every_memory_is_third_person_and_passes_the_extract_check() -> None:
    limits = ResultLimits.from_settings(Settings())
    found = [(m, f) for m in MESSAGES for f in facts(m)]
    assert len(found) >= len(MESSAGES)
    for message, fact in found:
        assert not _PERSONS.search(fact), fact
        assert check_extract(fact, [message], limits) == [], fact
        assert check_extract(fact, [f"Jon: {message}"], limits, ["Jon"]) == [], fact
