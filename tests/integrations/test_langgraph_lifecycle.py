"""MemfoldStore's time to live, opt-in consolidation and async parity (issue 30), on a
real store file (and PostgreSQL) with memfold's own embedder. Time is the memory's
clock (``ctx.clock``), moved by hand: no test sleeps for an expiry."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from langgraph.store.base import (
    GetOp,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    SearchItem,
    SearchOp,
)

from memfold.embed.local import LocalEmbedder
from memfold.errors import InvalidInput
from memfold.integrations.langgraph import MemfoldStore
from memfold.integrations.langgraph.config import MemfoldStoreConfig
from memfold.memory import Memory
from memfold.model import Status, utcnow


class Clock:
    def __init__(self) -> None:
        self.now = utcnow()

    def __call__(self) -> datetime:
        return self.now

    def advance(self, minutes: float) -> None:
        self.now += timedelta(minutes=minutes)


MakeMemory = Callable[[str], Memory]


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def make_memory(
    request: pytest.FixtureRequest,
    backend: str,
    tmp_path: Path,
    embedder: LocalEmbedder,
    clock: Clock,
) -> Iterator[MakeMemory]:
    """Fresh memories (a file, or a schema, each) on the test's clock."""
    opened: list[Memory] = []

    def make(name: str) -> Memory:
        if backend == "postgres":
            where: dict[str, Any] = {"url": request.getfixturevalue("pg_server").fresh_url()}
        else:
            where = {"path": tmp_path / f"{name}.db"}
        mem = Memory(**where, embedder=embedder, consolidate="sync")
        mem.ctx.clock = clock
        opened.append(mem)
        return mem

    yield make
    for mem in opened:
        mem.close()


def _id(mem: Memory, key: str) -> str:
    (record,) = [
        r
        for r in mem.list(user_id="t", agent_id="langgraph", status=None)
        if r.metadata["_lg_key"] == key and r.status is Status.ACTIVE
    ]
    return record.id


def test_ttl_puts_expire_and_a_sweep_deletes_them_undoably(
    make_memory: MakeMemory, clock: Clock
) -> None:
    mem = make_memory("ttl")
    store = MemfoldStore(mem, ttl={"default_ttl": 1.0})
    ns = ("t",)
    start = clock.now
    store.put(ns, "short", {"text": "the parcel arrives today"})  # the default: 1 minute
    store.put(ns, "long", {"text": "the lease ends in spring"}, ttl=10)
    store.put(ns, "forever", {"text": "Alice was born in Lyon"}, ttl=None)
    assert mem.get(_id(mem, "short")).expires_at == start + timedelta(minutes=1)
    assert mem.get(_id(mem, "forever")).expires_at is None
    assert store.sweep_ttl() == 0
    clock.advance(2)
    short_id = _id(mem, "short")
    assert store.get(ns, "short") is not None  # expired, not swept: still read (LangGraph)
    assert store.sweep_ttl() == 1
    assert store.get(ns, "short") is None and store.search(ns, query="parcel", limit=5)
    assert {i.key for i in store.search(ns)} == {"long", "forever"}
    entry = mem.history(short_id)[-1]
    assert "langgraph ttl" in entry.reasoning
    mem.undo(entry.id)
    assert store.get(ns, "short") is not None
    clock.advance(20)
    assert store.sweep_ttl() == 2 and [i.key for i in store.search(ns)] == ["forever"]


def test_a_read_pushes_the_expiry_back_when_the_config_asks(
    make_memory: MakeMemory, clock: Clock
) -> None:
    mem = make_memory("refresh")
    store = MemfoldStore(mem, ttl={"default_ttl": 10, "refresh_on_read": True})
    ns = ("t",)
    store.put(ns, "k", {"text": "the parcel arrives on Friday"})
    memory_id = _id(mem, "k")
    clock.advance(8)
    assert store.get(ns, "k") is not None  # read at minute 8: expires at minute 18
    assert mem.get(memory_id).expires_at == clock.now + timedelta(minutes=10)
    assert mem.get(memory_id).version == 1 and mem.history(memory_id) == []  # no change
    clock.advance(8)
    assert store.search(ns, query="parcel")  # a search refreshes too: minute 26
    clock.advance(8)
    assert store.get(ns, "k", refresh_ttl=False) is not None  # read without refreshing
    clock.advance(3)  # minute 27: past 26
    assert store.sweep_ttl() == 1

    plain = MemfoldStore(make_memory("no-refresh"), ttl={"default_ttl": 10})
    plain.put(ns, "k", {"text": "the parcel arrives on Friday"})
    clock.advance(8)
    assert plain.get(ns, "k") is not None  # refresh_on_read not asked: no refresh
    clock.advance(3)
    assert plain.sweep_ttl() == 1


def test_ttl_omit_expired_replace_and_the_memfold_tick(
    make_memory: MakeMemory, clock: Clock
) -> None:
    mem = make_memory("omit")
    store = MemfoldStore(mem, ttl={"omit_expired": True})
    ns = ("t",)
    store.put(ns, "k", {"text": "the meeting is at noon", "n": 1}, ttl=5)
    created = store.get(ns, "k")
    assert created is not None
    clock.advance(3)
    store.put(ns, "k", {"text": "the meeting moved to one", "n": 2}, ttl=5)  # expiry moves
    record = mem.get(_id(mem, "k"))
    assert record.expires_at == clock.now + timedelta(minutes=5)
    again = store.get(ns, "k")
    assert again is not None and again.value["n"] == 2 and again.created_at == created.created_at
    clock.advance(6)
    assert store.get(ns, "k") is None  # omit_expired: hidden before any sweep
    assert store.search(ns) == [] and store.search(ns, query="meeting") == []
    store.put(ns, "k", {"text": "the meeting moved to one", "n": 3}, ttl=None)
    assert mem.get(_id(mem, "k")).expires_at is None
    store.put(ns, "gone", {"text": "a sale ends tonight"}, ttl=1)
    clock.advance(2)
    mem.tick()  # memfold's own lifecycle marks the item expired
    assert store.get(ns, "gone") is None and store.sweep_ttl() == 0
    with pytest.raises(InvalidInput, match="ttl"):
        store.put(ns, "bad", {"text": "t"}, ttl=-1)
    with pytest.raises(InvalidInput, match="9999"):
        store.put(ns, "bad", {"text": "t"}, ttl=1e12)


def test_a_refused_put_keeps_the_item_it_would_replace(make_memory: MakeMemory) -> None:
    mem = make_memory("refused")
    store = MemfoldStore(mem)
    ns = ("t",)
    store.put(ns, "k", {"text": "Alice plays the cello", "src": "chat"})
    too_long = "x" * (mem.settings.store.max_text_chars + 1)
    for ttl in (None, 5.0):  # both put a new memory in place of the old one
        with pytest.raises(InvalidInput, match="characters"):
            store.put(ns, "k", {"text": too_long}, ttl=ttl)
        item = store.get(ns, "k")
        assert item is not None and item.value == {"text": "Alice plays the cello", "src": "chat"}
    assert len(mem.list(user_id="t", agent_id="langgraph", status=None)) == 1


def test_the_ttl_sweeper_thread(make_memory: MakeMemory, clock: Clock) -> None:
    mem = make_memory("sweeper")
    every = MemfoldStoreConfig(sweep_interval_minutes=0.001)  # 0.06 s
    store = MemfoldStore(mem, ttl={"default_ttl": 1.0}, config=every)
    store.put(("t",), "k", {"text": "the code expires soon"})
    clock.advance(2)
    future = store.start_ttl_sweeper()
    deadline = time.monotonic() + 30
    while store.get(("t",), "k") is not None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert store.get(("t",), "k") is None
    assert store.stop_ttl_sweeper(timeout=10) and future.done()


def test_consolidate_true_folds_a_restated_item(make_memory: MakeMemory) -> None:
    mem = make_memory("fold")
    folding, keeping = MemfoldStore(mem, consolidate=True), MemfoldStore(mem)
    for store, ns in ((folding, ("fold",)), (keeping, ("keep",))):
        store.put(ns, "a", {"text": "Alice lives in Lyon"})
        store.put(ns, "b", {"text": "Alice lives in Lyon"})
    # off (the default): both keys stay, as BaseStore promises
    assert sorted(i.key for i in keeping.search(("keep",))) == ["a", "b"]
    # on: the restatement was judged on save and folded into the first item
    assert folding.get(("fold",), "a") is not None and folding.get(("fold",), "b") is None
    assert [i.key for i in folding.search(("fold",), query="where does Alice live?")] == ["a"]
    (entry,) = [e for e in mem.log(20) if e.path == "on_save"]
    mem.undo(entry.id)
    assert folding.get(("fold",), "b") is not None
    # a put on an existing key is an edit, never judged, even when it stores anew
    folding.put(("fold",), "c", {"text": "Bob owns a boat", "src": "chat"})
    folding.put(("fold",), "c", {"text": "Alice lives in Lyon"})  # drops "src"
    assert sorted(i.key for i in folding.search(("fold",))) == ["a", "b", "c"]


def _seen(result: Any) -> Any:
    """A result without its timestamps, to compare two stores' answers."""
    if isinstance(result, list):
        return [_seen(r) for r in result]
    if isinstance(result, SearchItem):
        score = None if result.score is None else round(result.score, 5)
        return (result.namespace, result.key, result.value, score)
    if isinstance(result, Item):
        return (result.namespace, result.key, result.value)
    return result


STEPS: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = [
    ("put", (("u", "a"), "pet", {"text": "Carol has a cat named Mango", "n": 1}), {}),
    ("put", (("u", "a"), "car", {"text": "Carol drives a blue van", "n": 2}), {"ttl": 1}),
    ("put", (("u", "b"), "job", {"title": "nurse", "town": "Oslo"}), {"index": ["title"]}),
    ("put", (("u", "b"), "raw", {"text": "not indexed at all", "n": 3}), {"index": False}),
    ("get", (("u", "a"), "pet"), {}),
    ("search", (("u",),), {"query": "what pet does Carol have?", "limit": 3}),
    ("search", (("u",),), {"query": "Carol", "limit": 2, "offset": 2}),
    ("search", (("u",),), {"filter": {"n": {"$gte": 2}}}),
    ("list_namespaces", (), {"prefix": ("u",)}),
    ("delete", (("u", "a"), "pet"), {}),
    ("get", (("u", "a"), "pet"), {}),
    ("sweep_ttl", (), {}),
    ("search", (("u",),), {}),
]


async def test_async_methods_answer_as_the_sync_ones(make_memory: MakeMemory, clock: Clock) -> None:
    sync_store, async_store = MemfoldStore(make_memory("s")), MemfoldStore(make_memory("a"))
    for name, args, kwargs in STEPS:
        if name == "sweep_ttl":
            clock.advance(2)
        sync = getattr(sync_store, name)(*args, **kwargs)
        got = await getattr(async_store, "a" + name)(*args, **kwargs)
        assert _seen(got) == _seen(sync), name
    ops: list[Op] = [
        PutOp(("u", "c"), "k", {"text": "first"}),
        GetOp(("u", "b"), "job"),
        SearchOp(("u",), query="nurse", limit=2),
        ListNamespacesOp(match_conditions=None, max_depth=1),
        PutOp(("u", "c"), "k", {"text": "last"}),
    ]
    assert _seen(await async_store.abatch(ops)) == _seen(sync_store.batch(ops))
    assert _seen(await async_store.aget(("u", "c"), "k")) == _seen(sync_store.get(("u", "c"), "k"))
