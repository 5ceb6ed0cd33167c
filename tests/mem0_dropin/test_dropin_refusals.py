"""What memfold cannot honour of mem0's arguments is a clear error that changes
nothing, never an argument quietly ignored."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from memfold.embed.local import LocalEmbedder
from memfold.errors import InvalidInput
from memfold.mem0 import Memory
from memfold.memory import Memory as MemfoldMemory


@pytest.fixture
def m(tmp_path: Path, embedder: LocalEmbedder) -> Iterator[Memory]:
    inner = MemfoldMemory(tmp_path / "mem0.db", embedder=embedder, consolidate="sync")
    with Memory(memory=inner) as opened:
        opened.add("Alex lives in Leeds", user_id="alex", infer=False)
        yield opened


def _rows(m: Memory) -> list[tuple[str, str, int]]:
    return [(r.id, r.status.value, r.version) for r in m.memory.list(user_id="alex", status=None)]


REFUSED: list[tuple[str, Callable[[Memory], Any], str]] = [
    ("no id", lambda m: m.add("I like tea"), "user_id"),
    (
        "procedural",
        lambda m: m.add("x y z", agent_id="a", memory_type="procedural_memory"),
        "memory_type",
    ),
    ("prompt", lambda m: m.add("I like tea", user_id="alex", prompt="extract"), "prompt"),
    ("timestamp", lambda m: m.add("I like tea", user_id="alex", timestamp=1700000000), "timestamp"),
    ("bad messages", lambda m: m.add(42, user_id="alex"), "messages"),
    ("search ids on top", lambda m: m.search("tea", user_id="alex"), "inside filters"),
    ("search no ids", lambda m: m.search("tea", filters={"topic": "x"}), "user_id"),
    ("rerank", lambda m: m.search("tea", filters={"user_id": "alex"}, rerank=True), "rerank"),
    ("explain", lambda m: m.search("tea", filters={"user_id": "alex"}, explain=True), "explain"),
    (
        "reference_date",
        lambda m: m.search("tea", filters={"user_id": "alex"}, reference_date="2025-01-01"),
        "reference_date",
    ),
    ("NOT", lambda m: m.search("tea", filters={"user_id": "alex", "NOT": [{"a": 1}]}), "NOT"),
    (
        "icontains",
        lambda m: m.search("tea", filters={"user_id": "alex", "a": {"icontains": "x"}}),
        "icontains",
    ),
    ("wildcard", lambda m: m.search("tea", filters={"user_id": "alex", "a": "*"}), "wildcard"),
    (
        "threshold",
        lambda m: m.search("tea", filters={"user_id": "alex"}, threshold=1.5),
        "threshold",
    ),
    ("top_k", lambda m: m.search("tea", filters={"user_id": "alex"}, top_k=-1), "top_k"),
    ("empty query", lambda m: m.search("  ", filters={"user_id": "alex"}), "query"),
    ("get_all ids on top", lambda m: m.get_all(user_id="alex"), "inside filters"),
    ("unknown kwarg", lambda m: m.get_all(filters={"user_id": "alex"}, limit=3), "limit"),
    ("spaced id", lambda m: m.get_all(filters={"user_id": "al ex"}), "whitespace"),
    (
        "update nothing",
        lambda m: m.update(m.get_all(filters={"user_id": "alex"})["results"][0]["id"]),
        "text or metadata",
    ),
    (
        "update expiry",
        lambda m: m.update(
            m.get_all(filters={"user_id": "alex"})["results"][0]["id"], expiration_date="2030-01-01"
        ),
        "expiration_date",
    ),
    ("update unknown", lambda m: m.update("0" * 32, text="x"), "not found"),
    ("delete unknown", lambda m: m.delete("0" * 32), "not found"),
    ("delete_all no id", lambda m: m.delete_all(), "reset()"),
]


@pytest.mark.parametrize(
    ("call", "expected"), [(c, e) for _, c, e in REFUSED], ids=[n for n, _, _ in REFUSED]
)
def test_refused_with_a_clear_error_and_nothing_changed(
    m: Memory, call: Callable[[Memory], Any], expected: str
) -> None:
    before = _rows(m)
    with pytest.raises(InvalidInput, match=expected):  # a ValueError, as mem0 raises
        call(m)
    assert _rows(m) == before


def test_refusals_are_value_errors_as_in_mem0(m: Memory) -> None:
    with pytest.raises(ValueError):
        m.search("tea")
