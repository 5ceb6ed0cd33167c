"""Bad input raises a clear, documented error and writes nothing."""

from __future__ import annotations

import asyncio
import json
import re
import sqlite3
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from memfold import AsyncMemory, ConfigError, ImportFormatError, InvalidInput, Memory


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


_DEEP_40: dict[str, object] = {"leaf": 1}
for _level in range(40):
    _DEEP_40 = {"a": _DEEP_40}


_DEEP_5000_LINE = b'{"id": "x", "text": "ok", "metadata": ' + b'{"a": ' * 5000 + b"1" + b"}" * 5001


def _line(**fields: object) -> bytes:
    """A memory line with ``fields``; JSON escapes keep a lone surrogate writable."""
    return json.dumps({"id": "x", "text": "ok", "user_id": "u", **fields}).encode()


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
        # issue 27: each was a raw RecursionError, UnicodeEncodeError or OverflowError
        (_line(metadata=_DEEP_40), "metadata nests deeper than 32 levels"),
        (_DEEP_5000_LINE, "JSON nested too deep to read"),
        (_line(metadata={"k": "a\x00b"}), "NUL"),
        (b'{"id": "\\ud800", "text": "ok", "user_id": "u"}', "id is not valid Unicode"),
        (_line(sources=["\ud800"]), "not valid Unicode"),
        (_line(version=2**63), "version must be an integer"),
        (_line(access_count=2**70), "access_count must be an integer"),
        (_line(content_hash="\ud800"), "content_hash is not valid Unicode"),
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


# --- every public method, hostile values (issue 27) -------------------------------------
# Each case must raise the memfold error named and leave the store as it was. Before the
# fix some raised OverflowError (ttl=1e12, ids and offsets past 2**63 - 1, a far ``since``),
# UnicodeEncodeError (a lone surrogate in a scope id, a metadata key, a source, a
# reason), RecursionError (metadata 5,000 levels deep), AttributeError/TypeError (a
# ``since`` or an ``area`` of the wrong type), and some were stored (metadata 40 levels
# deep or 70 KB, ``list(limit=-5)``, NUL in metadata).


def deep(levels: int) -> dict[str, object]:
    value: dict[str, object] = {"leaf": 1}
    for _ in range(levels):
        value = {"a": value}
    return value


SURROGATE = "\ud800"  # a lone surrogate: no UTF-8 encoding, no database column holds it
BIG = 2**63  # one past the largest integer SQLite and PostgreSQL's bigint hold
HUGE = 2**70


class Seeded:
    """A store with two memories, an edit in the log and a conversation message."""

    def __init__(self, mem: Memory) -> None:
        self.mem = mem
        first = mem.add("Alice keeps bees on the roof", user_id="alice", metadata={"t": 1})
        mem.update(first.memory.id, text="Alice keeps bees in the garden")
        mem.add("Bob likes strong coffee", user_id="bob")
        mem.conversation("s1", user_id="alice").append("user", "hello there")
        self.memory_id = first.memory.id
        self.log_id = mem.log()[0].id

    def state(self) -> tuple[object, ...]:
        mem = self.mem
        volatile = ("access_count", "last_access_at")
        rows = sorted(
            (tuple((k, str(v)) for k, v in m.to_dict().items() if k not in volatile))
            for m in mem.store.iter_memories()
        )
        log = [e.to_dict() for e in mem.log(limit=10_000)]
        chat = mem.conversation("s1", user_id="alice")
        transcript = [m.to_dict() for m in chat.transcript()]
        queue = [i.to_dict() for i in mem.store.queue_items()]
        return rows, log, transcript, queue, mem.store.feedback_total(), len(chat.summary())


HOSTILE: dict[str, tuple[Callable[[Memory, Seeded], object], str]] = {
    # ttl and dates past what Python holds
    "ttl=1e12": (lambda m, s: m.add("x y", ttl=1e12), "after the year 9999"),
    "ttl=2**70": (lambda m, s: m.add("x y", ttl=HUGE), "ttl must be"),
    "ttl=1e12, add_many": (lambda m, s: m.add_many([{"text": "x y", "ttl": 1e12}]), "9999"),
    "ttl from a late created_at": (
        lambda m, s: m.add("x y", created_at="9999-06-01T00:00:00", ttl=365 * 86400.0),
        "after the year 9999",
    ),
    # metadata: depth, size, Unicode, NUL; on add, add_many, update, messages, chat
    "metadata 5000 deep": (lambda m, s: m.add("x y", metadata=deep(5000)), "nests deeper"),
    "metadata 260 deep": (lambda m, s: m.add("x y", metadata=deep(260)), "nests deeper than 32"),
    "metadata 40 deep, update": (
        lambda m, s: m.update(s.memory_id, metadata=deep(40)),
        "nests deeper than 32",
    ),
    "metadata 40 deep, add_many": (
        lambda m, s: m.add_many([{"text": "x y", "metadata": deep(40)}]),
        "item 0: metadata nests deeper",
    ),
    "metadata 40 deep, messages": (
        lambda m, s: m.add(
            messages=[{"role": "user", "content": "hi", "metadata": deep(40)}], infer=False
        ),
        "message 0: metadata nests deeper",
    ),
    "metadata 40 deep, chat": (
        lambda m, s: m.conversation("s1", user_id="alice").append("user", "hi", v=deep(40)),
        "nests deeper",
    ),
    "metadata 70 KB": (lambda m, s: m.add("x y", metadata={"k": "x" * 70_000}), "bytes as JSON"),
    "metadata key lone surrogate": (
        lambda m, s: m.add("x y", metadata={SURROGATE: 1}),
        "not valid Unicode",
    ),
    "metadata value lone surrogate": (
        lambda m, s: m.update(s.memory_id, metadata={"k": [SURROGATE]}),
        "not valid Unicode",
    ),
    "metadata NUL": (lambda m, s: m.add("x y", metadata={"k": "a\x00b"}), "NUL"),
    "message name lone surrogate": (
        lambda m, s: m.add(
            messages=[{"role": "user", "content": "hi", "name": SURROGATE}], infer=False
        ),
        "not valid Unicode",
    ),
    # lone surrogates in ids, sources, reasons, context, prompts
    "user_id lone surrogate": (lambda m, s: m.add("x y", user_id=SURROGATE), "user_id is not"),
    "agent_id lone surrogate, search": (
        lambda m, s: m.search("bees", agent_id=SURROGATE),
        "agent_id is not valid Unicode",
    ),
    "session_id lone surrogate, list": (
        lambda m, s: m.list(session_id=SURROGATE),
        "session_id is not valid Unicode",
    ),
    "user_id lone surrogate, list_scopes": (
        lambda m, s: m.list_scopes(user_id=SURROGATE),
        "user_id is not valid Unicode",
    ),
    "user_id lone surrogate, delete_all": (
        lambda m, s: m.delete_all(user_id=SURROGATE),
        "user_id is not valid Unicode",
    ),
    "user_id lone surrogate, forget": (
        lambda m, s: m.forget(user_id=SURROGATE),
        "user_id is not valid Unicode",
    ),
    "user_id lone surrogate, review": (
        lambda m, s: m.review.run(user_id=SURROGATE),
        "user_id is not valid Unicode",
    ),
    "source lone surrogate": (lambda m, s: m.add("x y", sources=[SURROGATE]), "not valid Unicode"),
    "memory id lone surrogate, get": (lambda m, s: m.get(SURROGATE * 8), "not valid Unicode"),
    "memory id lone surrogate, delete": (lambda m, s: m.delete(SURROGATE * 8), "not valid"),
    "memory id lone surrogate, feedback": (
        lambda m, s: m.feedback(SURROGATE * 8, "used"),
        "not valid Unicode",
    ),
    "memory id NUL, history": (lambda m, s: m.history("abcdef\x00"), "NUL"),
    "reason lone surrogate, update": (
        lambda m, s: m.update(s.memory_id, text="bees gone", reason=SURROGATE),
        "reason is not valid Unicode",
    ),
    "reason a number, delete": (
        lambda m, s: m.delete(s.memory_id, reason=5),  # type: ignore[arg-type]
        "reason must be a string",
    ),
    "reason lone surrogate, delete_all": (
        lambda m, s: m.delete_all(user_id="alice", reason=SURROGATE),
        "reason is not valid Unicode",
    ),
    "reason lone surrogate, review reject": (
        lambda m, s: m.review.reject(1, reason=SURROGATE),
        "reason is not valid Unicode",
    ),
    "feedback context lone surrogate": (
        lambda m, s: m.feedback(s.memory_id, "used", SURROGATE),
        "context is not valid Unicode",
    ),
    "system_prompt lone surrogate": (
        lambda m, s: m.conversation("s1", user_id="alice").messages("bees?", SURROGATE),
        "system_prompt is not valid Unicode",
    ),
    # integers past int64, negative limits, wrong types
    "list offset=2**70": (lambda m, s: m.list(offset=HUGE), "offset must be an integer"),
    "list limit=-5": (lambda m, s: m.list(limit=-5), "limit must be an integer between 1"),
    "list limit=0": (lambda m, s: m.list(limit=0), "limit must be an integer between 1"),
    "list limit=2**63": (lambda m, s: m.list(limit=BIG), "limit must be"),
    "list limit='5'": (lambda m, s: m.list(limit="5"), "limit must be"),  # type: ignore[arg-type]
    "list area=5": (lambda m, s: m.list(area=5), "area must be"),  # type: ignore[arg-type]
    "search area=5": (lambda m, s: m.search("bees", area=5), "area must be"),  # type: ignore[arg-type]
    "log limit=2**70": (lambda m, s: m.log(HUGE), "limit must be"),
    "undo 2**63": (lambda m, s: m.undo(BIG), "log_id must be an integer between 1"),
    "undo -2**63 - 1": (lambda m, s: m.undo(-BIG - 1), "log_id must be"),
    "review approve 2**63": (lambda m, s: m.review.approve(BIG), "review item id must be"),
    "review reject 2**70": (lambda m, s: m.review.reject(HUGE), "review item id must be"),
    "transcript start 2**63": (
        lambda m, s: m.conversation("s1", user_id="alice").transcript(BIG),
        "start must be",
    ),
    "transcript end -1": (
        lambda m, s: m.conversation("s1", user_id="alice").transcript(0, -1),
        "end must be",
    ),
    "window k_memories 2**63": (
        lambda m, s: m.conversation("s1", user_id="alice").messages("bees?", None, BIG),
        "k_memories must be",
    ),
    "filter value 2**63": (
        lambda m, s: m.search("bees", filters={"n": BIG}),
        "outside the 64-bit integer range",
    ),
    "filter value lone surrogate": (
        lambda m, s: m.list(filters={"n": SURROGATE}),
        "not valid Unicode",
    ),
    "filter key lone surrogate": (
        lambda m, s: m.list(filters={SURROGATE: 1}),
        "not valid Unicode",
    ),
    "filter value NUL": (lambda m, s: m.search("bees", filters={"n": "a\x00b"}), "NUL"),
    "flush timeout NaN": (lambda m, s: m.flush(float("nan")), "timeout must be"),
    "usage since a string": (lambda m, s: m.usage("yesterday"), "since must be a datetime"),  # type: ignore[arg-type]
    "report since 10**11 days back": (
        lambda m, s: m.review.report("99999999999d"),
        "since must look like",
    ),
    "report since a number": (lambda m, s: m.review.report(5), "since must look like"),  # type: ignore[arg-type]
    # paths
    "export path lone surrogate": (
        lambda m, s: m.export(f"{SURROGATE}.jsonl"),
        "export path is not valid Unicode",
    ),
    "export path bytes": (lambda m, s: m.export(b"out.jsonl"), "must be a str or a Path"),  # type: ignore[arg-type]
    "import path NUL": (lambda m, s: m.import_("in\x00.jsonl"), "NUL"),
    "import path a number": (lambda m, s: m.import_(5), "must be a str or a Path"),  # type: ignore[arg-type]
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_values_raise_invalid_input_and_change_nothing(mem_off: Memory, name: str) -> None:
    seeded = Seeded(mem_off)
    call, message = HOSTILE[name]
    before = seeded.state()
    with pytest.raises(InvalidInput, match=re.escape(message)):
        call(mem_off, seeded)
    mem_off.flush()
    assert seeded.state() == before


def test_async_memory_refuses_the_same(db_path: Path, embedder: object) -> None:
    async def scenario() -> None:
        async with AsyncMemory(db_path, embedder=embedder, consolidate="off") as mem:
            await mem.add("Alice keeps bees", user_id="alice")
            with pytest.raises(InvalidInput, match="limit must be"):
                await mem.list(limit=-5)
            with pytest.raises(InvalidInput, match="nests deeper"):
                await mem.add("x y", metadata=deep(5000))
            with pytest.raises(InvalidInput, match="review item id"):
                await mem.review.approve(BIG)
            assert [m.text for m in await mem.list(user_id="alice")] == ["Alice keeps bees"]

    asyncio.run(scenario())


def test_a_bad_store_path_is_invalid_input(tmp_path: Path, embedder: object) -> None:
    for path, message in (
        (tmp_path / f"{SURROGATE}.db", "not valid Unicode"),
        (str(tmp_path / "a\x00b.db"), "NUL"),
        (b"memfold.db", "must be a str or a Path"),
    ):
        with pytest.raises(InvalidInput, match=message):
            Memory(path, embedder=embedder, consolidate="off")  # type: ignore[arg-type]
    assert list(tmp_path.iterdir()) == []


def test_metadata_limits_are_settings(db_path: Path, embedder: object) -> None:
    from memfold import Settings

    settings = Settings(store={"max_metadata_depth": 2, "max_metadata_bytes": 40})
    with Memory(db_path, settings=settings, embedder=embedder, consolidate="off") as mem:  # type: ignore[arg-type]
        mem.add("two levels", metadata={"a": {"b": 1}})
        with pytest.raises(InvalidInput, match="deeper than 2 levels"):
            mem.add("three levels", metadata={"a": {"b": [1]}})
        with pytest.raises(InvalidInput, match="the maximum is 40"):
            mem.add("too big", metadata={"a": "x" * 40})
        with pytest.raises(InvalidInput, match="deeper than 2 levels"):
            mem.conversation("s", user_id="u").append("user", "hi", a={"b": {"c": 1}})
        assert [m.text for m in mem.list()] == ["two levels"]
    defaults = Settings().store
    assert (defaults.max_metadata_depth, defaults.max_metadata_bytes) == (32, 65_536)
    with pytest.raises(ConfigError, match="max_metadata_depth"):
        Settings(store={"max_metadata_depth": 101})  # past nesting.METADATA_DEPTH_CEILING


def test_the_depth_check_needs_no_recursion() -> None:
    from memfold.policy.validate import clean_metadata

    for levels in (5_000, 100_000):
        with pytest.raises(InvalidInput, match="nests deeper than 32 levels"):
            clean_metadata(deep(levels))
    looped: dict[str, object] = {}
    looped["self"] = looped
    with pytest.raises(InvalidInput, match="nests deeper"):
        clean_metadata(looped)
    assert clean_metadata(deep(31)) == deep(31)  # 32 levels with the leaf's dict


def _store_metadata_raw(mem: Memory, memory_id: str, raw: str) -> None:
    """What older code could store: metadata written around today's checks."""
    with sqlite3.connect(mem.path) as db:
        db.execute("UPDATE memories SET metadata = ? WHERE id = ?", (raw, memory_id))
    db.close()


def test_an_old_deep_metadata_row_still_lists_and_searches(db_path: Path, embedder: object) -> None:
    with Memory(db_path, embedder=embedder, consolidate="off") as mem:  # type: ignore[arg-type]
        old = mem.add("Alice keeps bees", user_id="alice").memory.id
        worse = mem.add("Alice sells honey", user_id="alice").memory.id
        _store_metadata_raw(mem, old, json.dumps(deep(300)))
        # past what json.loads can read at all (only a row written around memfold)
        _store_metadata_raw(mem, worse, '{"a": ' * 5000 + "1" + "}" * 5000)
    with Memory(db_path, embedder=embedder, consolidate="off") as mem:  # type: ignore[arg-type]
        listed = {m.id: m for m in mem.list(user_id="alice")}
        assert set(listed) == {old, worse}
        assert len(mem.search("bees honey", user_id="alice")) == 2
        shown = json.dumps(listed[old].to_dict()["metadata"])
        assert shown.count("{") == 100 and "[cut: nested deeper than 100 levels]" in shown
        assert "nests too deep to read" in listed[worse].metadata["_unreadable"]
