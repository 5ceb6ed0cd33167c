"""A long message split into the facts that state a value (engine.conversation.value_facts)."""

from __future__ import annotations

from memfold.engine.conversation.value_facts import value_facts

MESSAGE = (
    "I'm trying to plan out my timeline and I have a deadline of April 1, 2024, for the "
    "first sprint. The project is estimated to take 3 sprints of 2 weeks each. How can I "
    "make sure I meet this deadline?\n```js\nconst sprints = 3;\n```"
)


def test_each_statement_with_a_value_is_one_fact_and_questions_are_dropped() -> None:
    assert value_facts(MESSAGE, 2, 30) == [
        "I'm trying to plan out my timeline and I have a deadline of April 1, 2024, for "
        "the first sprint",
        "The project is estimated to take 3 sprints of 2 weeks each",
    ]


def test_a_question_to_the_assistant_is_cut_off_and_it_keeps_what_it_names() -> None:
    text = (
        "I'm kinda worried about missing the Zoom meeting with Professor Danielle, so can "
        "you remind me that it's rescheduled to March 22 at 4:30 PM?"
    )
    assert value_facts(text, 2, 30) == [
        "I'm kinda worried about missing the Zoom meeting with Professor Danielle, "
        "it's rescheduled to March 22 at 4:30 PM"
    ]
    asked = "I have a call with my landlord on May 2 at 3 PM, what should I prepare for it?"
    assert value_facts(asked, 2, 30) == ["I have a call with my landlord on May 2 at 3 PM"]


def test_a_statement_too_long_for_one_fact_is_cut_at_the_speakers_next_clause() -> None:
    text = (
        "I'm trying to implement a secure authentication system for my banking application "
        "with careful session handling and strict password rules and audit logging, "
        "considering the recent growth of commits merged into the main branch, which has "
        "now reached 165, and I want to ensure that my authentication features follow the "
        "best practices for security and user experience"
    )
    assert value_facts(text, 2, 30) == [
        "the recent growth of commits merged into the main branch, which has now reached 165"
    ]
    # Nothing without a value, nothing past the limits.
    assert value_facts("I love hiking in the mountains.", 2, 30) == []
    assert value_facts(MESSAGE, 2, 5) == []
