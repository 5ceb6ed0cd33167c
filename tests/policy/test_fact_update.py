"""A new value for one fact (policy.values.fact_update) and the values a text states
(policy.values.slots). Texts in the shape of chat messages, written for these tests."""

from __future__ import annotations

import pytest

from memfold.config import ConsolidationSettings
from memfold.policy.evidence import supersede_evidence
from memfold.policy.values.fact_update import FactLimits, fact_update, has_value_cue
from memfold.policy.values.slots import read_slots, set_before

DEADLINE = "I have a deadline of April 1, 2024, for the first sprint of my portfolio website"


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        (
            DEADLINE,
            "I'm trying to update my timeline to reflect the new sprint deadline of April 5, 2024",
        ),
        (
            "I have a Zoom call with the creative director on April 21 at 3 PM",
            "I'm worried that moving the Zoom call with the creative director to April 22 "
            "at 11 AM might clash",
        ),
        (
            "I'm building the project gallery with 8 cards using modal popups",
            "I've added two new projects, so now I have a total of 10 cards",
        ),
        (
            "I'm kinda worried about meeting my April 20 deadline for the draft submission",
            "I'm kinda worried that I won't meet the new April 25 deadline",
        ),
    ],
)
def test_a_changed_value_of_one_fact_is_a_new_value(older: str, newer: str) -> None:
    assert fact_update(older, newer)
    # The guards accept it as supersede evidence; the other way round it is none.
    assert supersede_evidence(newer, older, 0.6).found
    assert not fact_update(newer, older)


WORD_GOAL = "I'm struggling with my writing goals, like targeting 1,200 words per week for my essay"


@pytest.mark.parametrize(
    "newer",
    [
        "I just found out my weekly essay word count was adjusted to 1,350 words",
        "I'm behind on my essay, and my weekly word target was revised to 1,000 words",
    ],
)
def test_a_goal_given_a_new_value_by_a_verb_that_sets_one(newer: str) -> None:
    # "adjusted to" / "revised to" set a value: of a goal as well as of a state.
    assert fact_update(WORD_GOAL, newer)
    assert supersede_evidence(newer, WORD_GOAL, 0.6).found
    assert not fact_update(newer, WORD_GOAL)


ACCURACY = "My accuracy on conditional probability problems improved from 60% to 85% over 2 weeks"


def test_a_change_and_how_long_it_took_state_one_value() -> None:
    older = f"{ACCURACY}, after completing 8 problems"
    newer = "I've now increased my practice to 12 conditional probability problems"
    was, now, took, count = read_slots(older)
    assert was.was and took.span and not (now.span or count.span)
    assert fact_update(older, newer)
    assert supersede_evidence(newer, older, 0.6).found
    assert not fact_update(newer, older)


def test_a_text_of_many_facts_is_never_superseded_for_one_value() -> None:
    message = (
        "I'm trying to manage my repository, and I've already tagged release v1.0.0 on "
        "April 20, which has been pushed with 150 commits and 12 branches merged"
    )
    newer = "the recent growth of commits merged into the main branch, which has now reached 165"
    assert not fact_update(message, newer)
    # One fact with the same value is superseded.
    assert fact_update("My repository has 150 commits merged into the main branch", newer)
    # The limit comes from the settings object.
    assert not fact_update(
        "My repository has 150 commits merged into the main branch",
        newer,
        FactLimits.from_settings(ConsolidationSettings(fact_update_max_older_words=4)),
    )


@pytest.mark.parametrize(
    ("older", "newer", "why"),
    [
        (
            "I'm trying to achieve 100% test coverage on my API integration module",
            "the test coverage for my API integration module has recently improved to 78%",
            "a goal is not a progress figure",
        ),
        (
            WORD_GOAL,
            "my weekly essay word count has improved to 1,350 words",
            "progress toward a goal is no new goal",
        ),
        (
            "I'm trying to achieve 100% test coverage on my payment module",
            "the test coverage of my payment module was updated to 78% after the new suite",
            "'updated to' reports a state as often as it sets a goal",
        ),
        (WORD_GOAL, "I'm still targeting 1,350 words per week for my essay", "a goal, no cue"),
        (
            WORD_GOAL,
            "the page limit for my essay was adjusted to 12 pages",
            "a goal of words is not a limit of pages",
        ),
        (
            "I wrote 1,200 words this week for my essay",
            "my weekly essay goal was adjusted to 1,350 words",
            "a state is not the goal its noun phrase names",
        ),
        (
            ACCURACY,
            "I've now extended my probability practice to 3 weeks",
            "how long a change took is no value of its own",
        ),
        (
            "I practiced 8 probability problems over 2 weeks",
            "I've now increased my practice to 12 probability problems",
            "a duration with no change is a value of its own",
        ),
        (
            f"{ACCURACY}, after completing 8 problems with 3 tutors",
            "I've now increased my practice to 12 conditional probability problems",
            "three states are more than one fact",
        ),
        (
            "My repository has 150 commits and 12 branches merged",
            "the commits merged into the main branch have now reached 165",
            "two counts of different nouns, one changed: the other would be hidden",
        ),
        (
            "I scored 4/5 on the 5 coin toss problems in probability",
            "I've increased my practice to 12 conditional probability problems",
            "another counted noun",
        ),
        (
            "I extended my study sessions to 4 hours of probability practice",
            "I've increased my probability practice sessions to 12 problems",
            "another unit",
        ),
        (
            "I've tested the response time, and it's around 150ms",
            "the dashboard API response time has recently improved to 250ms",
            "a more specific subject",
        ),
        (
            "I secured 3 interviews for executive producer roles in May",
            "I secured 5 interviews for executive producer roles in May",
            "no change cue",
        ),
        (
            "To get to 100% I'd need to solve around 5 more problems",
            "I've increased my practice sessions to 12 problems",
            "a difference, not a state",
        ),
        (
            DEADLINE,
            "The sprint deadline is not April 5, 2024, it is still April 1, 2024",
            "negated",
        ),
        (DEADLINE, "Is the new sprint deadline April 5, 2024?", "a question"),
        (DEADLINE, "My sister's new sprint deadline is April 5, 2024", "another person"),
        (
            "Excluding the tax charge, the firm earned 13 cents a share in May",
            "Excluding the accounting change, the firm's earnings amounted to 15 cents a share",
            "'change' as a noun is no change verb",
        ),
        (
            "Analysts say yearly sales of the drug will top $200 million",
            "Analysts say yearly sales of the drug could reach $260 million",
            "'could reach' is no value reached",
        ),
        (
            "The chip maker's sales jumped 7 percent to $402 million",
            "Second-quarter sales grew 7 percent, to $645 million from $600 million",
            "million is a magnitude, not what is counted",
        ),
    ],
)
def test_no_new_value_is_read(older: str, newer: str, why: str) -> None:
    assert not fact_update(older, newer), why


def test_a_malformed_thousands_number_is_no_value() -> None:
    # BEAM's "->-> 1,21" annotation is an index, not the new target.
    assert [s.value for s in read_slots("meet this new target? ->-> 1,21")] == []
    assert [s.value for s in read_slots("1,200 words and 12,345 more")] == ["1200", "12345"]
    assert not fact_update(
        "I'm targeting 1,200 words per week ->-> 1,7",
        "so how can I meet this new target? ->-> 1,21",
    )


def test_values_know_their_kind_noun_and_cue() -> None:
    (when,) = read_slots("the Zoom call with the creative director on April 21 at 3 PM")
    assert (when.kind, when.value) == ("when", "apr 21 3 pm")
    assert {"director", "creativ"} <= when.before
    count, version = read_slots("the project gallery with 8 cards using Bootstrap 5.3.0")
    assert (count.kind, count.value) == ("number", "8") and "card" in count.after
    assert version.kind == "version"
    assert read_slots("it improved from 60% to 85%")[0].was
    assert has_value_cue("the new April 25 deadline")
    assert has_value_cue("it was rescheduled to March 22 at 4:30 PM")
    assert not has_value_cue("my April 20 deadline")
    (goal,) = read_slots("my weekly word goal was adjusted to 1,350 words")
    assert goal.goal and goal.after == {"word"}
    assert set_before(["it", "was", "adjusted", "to", "1,350", "words"], 4, 8)
    assert not set_before(["it", "has", "improved", "to", "1,350", "words"], 4, 8)
