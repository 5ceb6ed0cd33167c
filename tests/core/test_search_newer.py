"""Newer-first ordering of a search page: a newer memory stating another value for what
an older one states ("3 interviews", then "5 interviews") moves above it without a cue
word, on a real SQLite store with an embedder whose vectors are set by hand (the
geometry is the point: the two memories are on one topic, cosine ~0.63, between the
update and the plain bars)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

from memfold import Memory, Settings
from memfold.embed.base import normalize_rows
from memfold.engine.search_newer import newer_first_order, value_changed

QUERY = "How many interviews have I secured?"
OLDER = "I secured 3 interviews for producer roles"
# each newer text: cosine ~0.63 with OLDER, less similar to the query than OLDER is
NEWER = {
    "changed": "I secured 5 interviews for producer roles",
    "same value": "I secured 3 interviews and I am proud of it",
    "no value": "I secured interviews for producer roles",
}
T0 = datetime(2026, 1, 1, tzinfo=UTC)


class TableEmbedder:
    model_id = "table-3"
    dim = 3

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        rows = [
            [1.0, 0.0, 0.0] if t == QUERY else [1.0, 0.3, 0.0] if t == OLDER else [0.6, 0.2, 0.77]
            for t in texts
        ]
        return normalize_rows(np.array(rows, dtype=np.float32))


def first_texts(db_path: Path, **search: object) -> dict[str, str]:
    """Per case, the text ranked first when the newer memory came a day after OLDER."""
    settings = Settings.model_validate({"search": search})
    with Memory(db_path, embedder=TableEmbedder(), consolidate="off", settings=settings) as mem:
        for case, newer in NEWER.items():
            mem.add(OLDER, user_id=case, created_at=T0)
            mem.add(newer, user_id=case, created_at=T0 + timedelta(days=1))
        return {
            case: mem.search(QUERY, user_id=case, k=2, mode="vector")[0].memory.text
            for case in NEWER
        }


def test_a_changed_value_moves_the_newer_memory_above_the_older(db_path: Path) -> None:
    first = first_texts(db_path)
    assert first["changed"] == NEWER["changed"]
    # nothing says a value changed: the older (closer to the query) stays first
    assert first["same value"] == OLDER
    assert first["no value"] == OLDER


def test_value_change_off_keeps_similarity_order(tmp_path: Path) -> None:
    first = first_texts(tmp_path / "off.db", newer_first_value_change=False)
    assert set(first.values()) == {OLDER}


def test_value_changed_needs_numbers_on_both_sides() -> None:
    assert value_changed({"3"}, {"5"})
    assert value_changed({"3", "2024"}, {"5", "2024"})
    assert not value_changed({"3"}, {"3"})
    assert not value_changed(set(), {"5"})  # the older states no value
    assert not value_changed({"3"}, set())


def test_order_uses_the_bar_of_each_pair() -> None:
    sims = np.array([[1.0, 0.6, 0.6], [0.6, 1.0, 0.6], [0.6, 0.6, 1.0]])
    created = [T0, T0 + timedelta(days=1), T0 + timedelta(days=2)]
    high = np.full((3, 3), 0.8)
    assert newer_first_order(sims, created, high) == [0, 1, 2]
    low = high.copy()
    low[0, 2] = 0.5  # only the newest against the oldest
    assert newer_first_order(sims, created, low) == [2, 0, 1]
    # an older memory never moves up
    assert newer_first_order(sims, created[::-1], np.full((3, 3), 0.0)) == [0, 1, 2]
