"""Each text is read once per process; ``forget`` starts over with the model loaded."""

from __future__ import annotations

from memfold.reading import facts as reading_facts
from memfold.reading import parser
from memfold.reading.parser import read


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
