"""Each text is read once per process; ``forget`` starts over with the model loaded."""

from __future__ import annotations

import gc
from dataclasses import dataclass

from memfold.reading import facts as reading_facts
from memfold.reading import parser
from memfold.reading.model import Reading
from memfold.reading.parser import read


@dataclass
class _Stored:
    """A stored reading, made when asked (as ``reading.stored.StoredWords``)."""

    text: str
    made: Reading | None
    asked: int = 0

    def reading(self) -> Reading | None:
        self.asked += 1
        return self.made


def test_a_text_is_read_once_until_forgotten() -> None:
    text = "Noor rents a one-bedroom flat near the harbour."
    first = parser.read(text)
    assert parser.read(text) is first
    before = reading_facts.facts(text)
    reading_facts.forget()
    again = parser.read(text)
    assert again is not first and again == first
    assert reading_facts.facts(text) is not before
    assert reading_facts.facts(text) == before


def test_read_many_returns_readings_in_the_order_asked() -> None:
    parser.load()
    texts = ["Leo has two cats.", "Ana moved to Porto.", "Leo has two cats."]
    readings = parser.read_many(texts)
    assert [r.text for r in readings] == texts
    assert readings[0] is readings[2]


def test_a_finite_verb_read_as_a_compound_is_made_the_root_again() -> None:
    words = read("The user dislikes morning meetings.").words
    verb = next(i for i, w in enumerate(words) if w.low == "dislikes")
    assert words[verb].dep == "ROOT"
    assert {(w.low, w.dep) for w in words if w.head == verb and w.low != "dislikes"} >= {
        ("user", "nsubj"),
        ("meetings", "dobj"),
    }
    # A sentence the model read right is left as it was.
    plain = read("The user likes spicy food.").words
    assert [w.dep for w in plain] == ["det", "nsubj", "ROOT", "amod", "dobj", "punct"]


def test_a_stored_reading_is_made_only_when_read() -> None:
    text = "Ines keeps her bike in the hallway."
    real = parser.read(text)
    parser.forget()
    held = _Stored(text, real)
    parser.remember([held])
    parser.read_ahead([text, "Ines owns a red bike."])  # the other text is parsed now
    assert held.asked == 0 and parser.known("Ines owns a red bike.")
    assert parser.read(text) is real and parser.read(text) is real
    assert held.asked == 1


def test_a_damaged_stored_reading_is_parsed_again() -> None:
    text = "Omar moved to Leeds in 2021."
    parser.forget()
    held = _Stored(text, None)
    parser.remember([held])
    again = parser.read(text)
    assert held.asked == 1 and again.text == text and again.words
    assert [w.low for w in again.words][:3] == ["omar", "moved", "to"]


def test_the_model_is_set_aside_from_full_collections() -> None:
    parser.load()
    # The model's objects live as long as the process: the collector's full passes
    # do not walk them (about 10 % of a large drain otherwise).
    assert gc.get_freeze_count() > 10_000
