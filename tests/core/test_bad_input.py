"""Bad input raises a clear, documented error and writes nothing."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from memfold import ImportFormatError, InvalidInput, Memory


def _count(mem: Memory) -> int:
    return mem.store.count_memories()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty"),
        ("   \n\t ", "empty"),
        ("x" * 32_001, "maximum is 32000"),
        ("nul\x00byte", "NUL"),
        (42, "must be a string"),
        (None, "must be a string"),
    ],
)
def test_bad_text(mem_off: Memory, text: object, message: str) -> None:
    with pytest.raises(InvalidInput, match=message):
        mem_off.add(text)  # type: ignore[call-overload]
    assert _count(mem_off) == 0


def test_text_limit_is_configurable(db_path: Path, embedder: object) -> None:
    from memfold import Settings

    settings = Settings(store={"max_text_chars": 10})
    with Memory(db_path, settings=settings, embedder=embedder, consolidate="off") as mem:  # type: ignore[arg-type]
        with pytest.raises(InvalidInput, match="maximum is 10"):
            mem.add("eleven chars")
        mem.add("ten chars!")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"user_id": 5}, "user_id must be a string"),
        ({"agent_id": ["a"]}, "agent_id must be a string"),
        ({"session_id": ""}, "session_id must be non-empty"),
        ({"user_id": "a|b"}, "must not contain"),
        ({"importance": 1.5}, "between 0 and 1"),
        ({"importance": float("nan")}, "between 0 and 1"),
        ({"importance": "high"}, "must be a number"),
        ({"area": "attic"}, "area must be one of"),
        ({"category": "dream"}, "category must be one of"),
        ({"sources": "D1:3"}, "list of strings"),
        ({"sources": [1, 2]}, "non-empty string"),
        ({"metadata": {"x": object()}}, "JSON-serializable"),
        ({"metadata": ["not", "a", "dict"]}, "mapping"),
        ({"created_at": "yesterday"}, "not a date"),
    ],
)
def test_bad_fields(mem_off: Memory, kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(InvalidInput, match=message):
        mem_off.add("valid text", **kwargs)  # type: ignore[call-overload]
    assert _count(mem_off) == 0


@pytest.mark.parametrize(
    ("vector", "message"),
    [
        ([0.1] * 383, "dimension 383, expected 384"),
        ([float("nan")] + [0.1] * 383, "NaN"),
        ([0.0] * 384, "zero vector"),
        ([[0.1] * 384], "one-dimensional"),
        (["a"] * 384, "numeric"),
    ],
)
def test_bad_vectors(mem_off: Memory, vector: object, message: str) -> None:
    with pytest.raises(InvalidInput, match=message):
        mem_off.add("valid text", embedding=vector)  # type: ignore[call-overload]
    with pytest.raises(InvalidInput, match=message):
        mem_off.add_many([{"text": "a"}, {"text": "b"}], embeddings=[[0.5] * 384, vector])  # type: ignore[list-item]
    assert _count(mem_off) == 0


def test_add_many_is_all_or_nothing(mem_off: Memory) -> None:
    with pytest.raises(InvalidInput, match="item 1"):
        mem_off.add_many([{"text": "fine"}, {"text": ""}, {"text": "also fine"}])
    with pytest.raises(InvalidInput, match="unknown keys: colour"):
        mem_off.add_many([{"text": "fine", "colour": "red"}])
    with pytest.raises(InvalidInput, match="2 embeddings for 1 items"):
        mem_off.add_many([{"text": "fine"}], embeddings=np.ones((2, 384)))
    assert _count(mem_off) == 0


def test_bad_search_arguments(mem_off: Memory) -> None:
    mem_off.add("something")
    for kwargs, message in [
        ({"k": 0}, "k must be"),
        ({"k": "5"}, "k must be"),
        ({"area": "attic"}, "area must be one of"),
        ({"mode": "fuzzy"}, "mode must be"),
        ({"user_id": 3}, "user_id must be a string"),
    ]:
        with pytest.raises(InvalidInput, match=message):
            mem_off.search("something", **kwargs)  # type: ignore[arg-type]
    with pytest.raises(InvalidInput, match="query is empty"):
        mem_off.search("  ")


def test_bad_update_leaves_memory_unchanged(mem_off: Memory) -> None:
    r = mem_off.add("original")
    for kwargs in ({"text": ""}, {"importance": -1}, {"area": "nowhere"}, {"text": "a\x00b"}):
        with pytest.raises(InvalidInput):
            mem_off.update(r.memory.id, **kwargs)
    got = mem_off.get(r.memory.id)
    assert got.text == "original" and got.version == 1
    assert mem_off.log() == []
    with pytest.raises(InvalidInput):
        mem_off.undo("1")  # type: ignore[arg-type]


def _write(path: Path, lines: list[bytes]) -> Path:
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def test_import_malformed_line_reports_line_and_imports_nothing(
    mem_off: Memory, tmp_path: Path
) -> None:
    good = json.dumps({"id": "m1", "text": "first", "user_id": "u"}).encode()
    good2 = json.dumps({"id": "m2", "text": "second", "user_id": "u"}).encode()
    file = _write(tmp_path / "in.jsonl", [good, b"{not json", good2])
    with pytest.raises(ImportFormatError, match="line 2") as info:
        mem_off.import_(file)
    assert info.value.line == 2
    assert _count(mem_off) == 0
    report = mem_off.import_(file, skip_bad=True)
    assert report.imported == 2 and [n for n, _ in report.bad_lines] == [2]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (b"\xff\xfe not utf-8", "invalid UTF-8"),
        (b'{"id": "x", "text": ""}', "empty"),
        (b'{"id": "x"}', "needs 'id' and 'text'"),
        (b'{"id": "x", "text": "ok", "user_id": "u", "status": "zombie"}', "zombie"),
        (b'{"id": "x", "text": "ok", "user_id": 7}', "user_id must be a string"),
        (b"[1, 2]", "JSON object"),
        (b'{"type": "weird"}', "unknown line type"),
    ],
)
def test_import_bad_lines(mem_off: Memory, tmp_path: Path, line: bytes, message: str) -> None:
    good = json.dumps({"id": "m1", "text": "first", "user_id": "u"}).encode()
    file = _write(tmp_path / "bad.jsonl", [good, line])
    with pytest.raises(ImportFormatError, match=f"line 2: .*{message}"):
        mem_off.import_(file)
    assert _count(mem_off) == 0


def test_import_missing_file(mem_off: Memory, tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match="no such file"):
        mem_off.import_(tmp_path / "nope.jsonl")
