"""The readings of memories' texts, for both backends (``memfold.engine.readings``):
one row per memory, its reading's key (``memfold.reading.stored.key``: which text,
model and reading code) and the words as JSON. A row is a cache: it may be missing or
stale (the memory's text changed), and the reader then reads the text again. Erased
with its memory."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from memfold.store.sql.tables import SQLTables

StoredReading = tuple[str, str]  # (key, words as JSON)


class ReadingTables(SQLTables):
    """``readings``: put and get by memory id."""

    def put_readings(self, rows: Sequence[tuple[str, str, str]]) -> None:
        """Store (memory id, key, words) rows, replacing a memory's earlier one."""
        self._write_many(
            "INSERT INTO readings (memory_id, reading_key, words) VALUES (?, ?, ?) "
            "ON CONFLICT (memory_id) DO UPDATE SET reading_key = excluded.reading_key, "
            "words = excluded.words",
            rows,
        )

    def get_readings(self, ids: Iterable[str]) -> dict[str, StoredReading]:
        """The stored (key, words) of each of ``ids`` that has one."""
        out: dict[str, StoredReading] = {}
        for chunk in self._dialect.chunks(list(dict.fromkeys(ids))):
            condition, params = self._dialect.any_of("memory_id", chunk)
            for memory_id, reading_key, words in self._rows(
                f"SELECT memory_id, reading_key, words FROM readings WHERE {condition}", params
            ):
                out[memory_id] = (reading_key, words)
        return out
