"""Whether one statement is a value fact: it states a value (``memfold.reading.values``:
a date or time, a count, an amount, a percentage, a version; a year or an ordinal alone
is none) and says what the value is of in at least ``min_words`` content words, within
``max_words`` (nouns, verbs, adjectives, adverbs, names and numbers of its parse). The
rule extractor (``extract.rules``) cuts a message's clauses from the parse and asks this
of each clause about something else than the user ("The project is estimated to take 3
sprints of 2 weeks each"), so that one changed value can supersede that fact alone.
Pure: no I/O."""

from __future__ import annotations

from memfold.reading.facts import Facts, facts_of
from memfold.reading.model import Reading
from memfold.reading.parser import read

_NOT_A_VALUE = frozenset(("year", "ordinal"))
_COUNTED = frozenset(("NOUN", "VERB", "ADJ", "ADV", "PROPN", "NUM"))


def _content_count(reading: Reading) -> int:
    return sum(w.pos in _COUNTED for w in reading.words)


def _states_value(f: Facts, min_words: int) -> bool:
    """A value, and at least ``min_words`` content words besides it saying what it is of."""
    return any(v.kind not in _NOT_A_VALUE for v in f.values) and len(f.content) >= min_words


def states_value(text: str, min_words: int, max_words: int) -> bool:
    """Whether ``text`` (one statement) is a value fact: a value, at least ``min_words``
    content words besides it saying what it is of, at most ``max_words`` in all."""
    reading = read(text)
    return _content_count(reading) <= max_words and _states_value(facts_of(reading), min_words)
