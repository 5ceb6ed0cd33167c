"""Text helpers shared by the guards and the rule judge."""

from __future__ import annotations

from memfold.policy import text as tx


def test_numbers_dates_and_names() -> None:
    text = "On March 3, 2024 Alice paid $1,200 for two tickets to Berlin on Friday."
    assert {"3", "2024", "1200", "2"} <= tx.numbers(text)
    assert {"march", "friday"} <= tx.dates(text)
    assert {"alice", "berlin"} <= tx.proper_names(text)
    assert "on" not in tx.proper_names(text)


def test_may_as_a_verb_is_not_a_date() -> None:
    assert tx.dates("The user may move soon") == set()
    assert tx.dates("The user moves in May") == {"may"}


def test_content_words_are_stemmed_and_drop_stopwords_and_negations() -> None:
    assert tx.content_words("The user likes coffee") == tx.content_words(
        "the user doesn't like coffee"
    )
    assert "the" not in tx.content_words("The user likes coffee")


def test_negation_and_retraction() -> None:
    assert tx.negated("The user doesn't like coffee")
    assert tx.negated("The user no longer lives in Paris")
    assert tx.negated("The user used to smoke")
    assert not tx.negated("The user likes coffee")
    # Passive "is used to" is not a retraction.
    assert not tx.negated("The hammer is used to drive nails")


def test_change_cues() -> None:
    assert tx.has_change_cue("The user moved to Berlin")
    assert tx.has_change_cue("The user now works at Acme")
    assert not tx.has_change_cue("The user works at Acme")


def test_normalized_ignores_case_space_and_punctuation() -> None:
    assert tx.normalized("The user  likes COFFEE!") == tx.normalized("the user likes coffee")
