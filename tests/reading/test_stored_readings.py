"""A memory's reading is stored when it is saved for consolidation, and consolidation
loads it instead of parsing the text again; a missing, stale or damaged one is read
again and stored."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from memfold.embed.local import LocalEmbedder
from memfold.engine import readings
from memfold.engine.worker import drain
from memfold.memory import Memory
from memfold.model import MemoryRecord
from memfold.reading import facts as reading_facts
from memfold.reading import parser, stored


def _records(mem: Memory) -> list[MemoryRecord]:
    ids = [m.id for m in mem.list(user_id="u")]
    return list(mem.ctx.store.get_memories(ids).values())


def _no_parse(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Make any parse fail, and note it (a drain would catch the error)."""
    parsed: list[str] = []

    def refuse(*_: Any) -> Any:
        parsed.append("parsed")
        raise AssertionError("a text was parsed")

    monkeypatch.setattr(parser, "_load", refuse)
    return parsed


def test_round_trip_gives_the_parse_back() -> None:
    reading = parser.read("Ayşe's sister-in-law moved to Porto in May 2024.")
    again = stored.decode(reading.text, stored.encode(reading))
    assert again == reading
    assert stored.decode(reading.text, "[[1, 2]]") is None
    assert stored.decode(reading.text, "not json") is None
    assert stored.key("Ana moved.") != stored.key("Ana moved")


def test_a_queued_save_is_read_once_and_a_drain_loads_its_reading(
    db_path: Path, embedder: LocalEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Memory(db_path, embedder=embedder, consolidate="queue") as mem:
        mem.add("Noor rents a flat near the harbour.", user_id="u")
        mem.add("Noor's flat by the harbour is rented.", user_id="u")
        records = _records(mem)
        rows = mem.ctx.store.get_readings(r.id for r in records)
        assert {i: k for i, (k, _) in rows.items()} == {r.id: stored.key(r.text) for r in records}
        reading_facts.forget()  # a worker that has just started
        parsed = _no_parse(monkeypatch)
        assert drain(mem.ctx, mem.judge) == 2
        assert parsed == [] and all(parser.known(r.text) for r in records)
        assert [e.action for e in mem.log(10) if e.path == "on_save"]  # both were judged


def test_a_missing_stale_or_damaged_reading_is_read_again_and_stored(
    db_path: Path, embedder: LocalEmbedder
) -> None:
    texts = ["Leo has two cats.", "Ana moved to Porto.", "Mia works at Stripe."]
    with Memory(db_path, embedder=embedder, consolidate="off") as mem:
        mem.add_many([{"text": t, "user_id": "u"} for t in texts])
        records = sorted(_records(mem), key=lambda r: r.text)
        store = mem.ctx.store
        assert store.get_readings(r.id for r in records) == {}  # bulk, unjudged: not read
        store.put_readings(
            [(records[0].id, "stale", "[]"), (records[1].id, stored.key(records[1].text), "{")]
        )
        reading_facts.forget()
        readings.prime(mem.ctx, records)
        rows = store.get_readings(r.id for r in records)
        for record in records:
            key, words = rows[record.id]
            assert key == stored.key(record.text)
            assert stored.decode(record.text, words) == parser.read(record.text)


def test_a_stored_reading_is_what_the_guards_read(
    db_path: Path, embedder: LocalEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reading found in the store is used as it is: one planted under the right key
    changes what the facts say (so the drain really reads the stored rows)."""
    with Memory(db_path, embedder=embedder, consolidate="queue") as mem:
        mem.add("Ana moved to Porto.", user_id="u")
        (record,) = _records(mem)
        planted = parser.read("Ana moved to Lisbon.")
        fake = stored.encode(planted).replace("Lisbon", "Faro")
        mem.ctx.store.put_readings([(record.id, stored.key(record.text), fake)])
        reading_facts.forget()
        parsed = _no_parse(monkeypatch)
        readings.prime(mem.ctx, [record])
        assert parsed == []
        assert "Faro" in {w.text for w in parser.read(record.text).words}


@pytest.mark.parametrize(
    "text",
    [
        "Ayşe's sister-in-law moved to Porto in May 2024.",
        "The user no longer pays $1,200 a month for the flat near the harbour.",
        "Sofia mentors Daniel, who used to work at Stripe, every other Tuesday at 7pm.",
    ],
)
def test_the_facts_come_back_as_derived(text: str) -> None:
    reading = parser.read(text)
    payload = stored.encode(reading)
    assert stored.decode_facts(text, payload) == reading_facts.facts_of(reading)
    # Facts of another text, or a payload without them, are not used.
    assert stored.decode_facts(text + " ", payload) is None
    assert stored.decode_facts(text, '{"words": []}') is None
    assert stored.decode_facts(text, '{"facts": [1, 2]}') is None


def test_primed_facts_are_loaded_not_derived(
    db_path: Path, embedder: LocalEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Memory(db_path, embedder=embedder, consolidate="queue") as mem:
        mem.add("Ana moved to Porto in March.", user_id="u")
        (record,) = _records(mem)
        reading_facts.forget()
        _no_parse(monkeypatch)
        derived: list[str] = []
        monkeypatch.setattr(reading_facts, "facts_of", lambda r: derived.append(r.text))
        readings.prime(mem.ctx, [record])
        found = reading_facts.facts(record.text)
        assert derived == []
        assert found.text == record.text and "porto" in found.names


def test_a_code_change_changes_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    before = stored.key("Ana moved.")
    stored._stamp.cache_clear()
    monkeypatch.setattr(stored, "_code_hash", lambda: "other code")
    assert stored.key("Ana moved.") != before
    monkeypatch.undo()
    stored._stamp.cache_clear()
    assert stored.key("Ana moved.") == before
