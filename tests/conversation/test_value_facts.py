"""Whether one statement is a value fact (engine.conversation.value_facts.states_value)."""

from __future__ import annotations

from memfold.engine.conversation.value_facts import states_value


def test_a_value_said_of_something_is_a_value_fact() -> None:
    assert states_value("The project is estimated to take 3 sprints of 2 weeks each", 2, 30)
    assert states_value("The Zoom meeting is rescheduled to March 22 at 4:30 PM", 2, 30)
    assert states_value("The commits merged into the main branch have now reached 165", 2, 30)


def test_no_value_a_bare_year_or_too_few_or_too_many_words_is_none() -> None:
    assert not states_value("I love hiking in the mountains", 2, 30)
    assert not states_value("The trip was in 2019", 2, 30)  # a year alone names no value
    assert not states_value("It is 5", 2, 30)  # says nothing of what the value is of
    long = "The project is estimated to take 3 sprints of 2 weeks each"
    assert not states_value(long, 2, 5)
