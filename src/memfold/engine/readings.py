"""Each memory's reading kept with it, so that its text is parsed once in its life.

A save that will be consolidated reads its text when it is stored (``for_new``: the
rows go into the store in the save's own transaction). Consolidation (a drain's
on-save pass, a review run, a lifecycle tick) first ``prime``s the memories it will
judge: the readings stored with them are loaded into the parser's cache (their facts
into ``memfold.reading.facts``), and a memory
without a valid one (bulk-loaded with consolidation off, stored by an older version,
rewritten since) is read now and its reading stored, once. The guards then find every
text read (``memfold.reading.parser``).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence

from memfold.engine.context import Context
from memfold.model import MemoryRecord
from memfold.reading import facts, parser, stored

log = logging.getLogger(__name__)

ReadingRow = tuple[str, str, str]  # (memory id, reading key, words as JSON)


def for_new(records: Sequence[MemoryRecord]) -> list[ReadingRow]:
    """The readings of new memories' texts, read now in one batch, as rows to store."""
    readings = parser.read_many(r.text for r in records)
    return [
        (r.id, stored.key(r.text), stored.encode(reading, facts.facts(r.text)))
        for r, reading in zip(records, readings, strict=True)
    ]


def prime(ctx: Context, records: Iterable[MemoryRecord]) -> None:
    """Every one of ``records`` read, most from their stored readings (module doc)."""
    todo = {r.id: r.text for r in records if not parser.known(r.text)}
    if not todo:
        return
    found = []
    derived = []
    missing: dict[str, str] = {}
    for memory_id, (key, payload) in _stored(ctx, todo).items():
        text = todo[memory_id]
        reading, loaded = stored.load(text, payload) if key == stored.key(text) else (None, None)
        if reading is None:
            missing[memory_id] = text
            continue
        found.append(reading)
        if loaded is not None:
            derived.append(loaded)
    parser.remember(found)
    facts.remember(derived)
    missing.update((i, t) for i, t in todo.items() if i not in missing and not parser.known(t))
    if not missing:
        return
    readings = parser.read_many(missing.values())
    rows = [
        (memory_id, stored.key(text), stored.encode(reading, facts.facts(text)))
        for (memory_id, text), reading in zip(missing.items(), readings, strict=True)
    ]
    try:
        ctx.store.put_readings(rows)
    except Exception:  # a cache: the judgment goes on, the text is read again next time
        log.warning("could not store %d readings", len(rows), exc_info=True)


def _stored(ctx: Context, todo: dict[str, str]) -> dict[str, tuple[str, str]]:
    try:
        return ctx.store.get_readings(todo)
    except Exception:  # a cache: read the texts instead
        log.warning("could not load stored readings", exc_info=True)
        return {}
