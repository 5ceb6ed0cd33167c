"""Fixture-level shim: LangGraph's own store tests build memfold stores.

LangGraph's tests make their stores with ``InMemoryStore(index=...)``,
``SqliteStore.from_conn_string(conn, index=..., ttl=...)`` and
``AsyncSqliteStore.from_conn_string(...)``, names their modules import. The conftest's
autouse fixture puts the classes below under those names in each test module for the
length of one test (``monkeypatch``); the tests' bodies are not touched. Each store is a
``MemfoldStore`` over a fresh memfold ``Memory`` in a file of the test's own temp dir,
embedding with the test's embedder (``LangChainEmbedder``) when the test gives an index
config, else memfold's default local embedder. The connection string is not used: a
memfold store is its own file, never LangGraph's tables.

Only what a LangGraph store's constructor is asked for is mapped: the index's
``fields``/``text_fields`` (the paths embedded by default) and the TTL config. Nothing
here fakes a LangGraph store's attribute (``conn``, ``embeddings``, ``MIGRATIONS``;
``index_config`` is MemfoldStore's own): tests that read those fail, and
docs/langgraph.md says why.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncIterator, Iterator, Mapping
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

from langgraph.store.base.embed import ensure_embeddings

from memfold import Memory
from memfold.embed.base import Embedder
from memfold.integrations.langgraph import MemfoldStore
from memfold.integrations.langgraph.embed import LangChainEmbedder

# The names LangGraph's store test modules build their stores by.
REPLACED = ("InMemoryStore", "SqliteStore", "AsyncSqliteStore")


class Session:
    """One test's stores: where their files go, so they are closed after it."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.memories: list[Memory] = []

    def close(self) -> None:
        for memory in self.memories:
            memory.close()
        self.memories.clear()


_session: list[Session] = []
_local_embedder: list[Embedder] = []
BUILT: set[str] = set()  # node ids of the tests that built a memfold store
_current_test: list[str] = []


def begin(root: Path, test_id: str) -> Session:
    session = Session(root)
    _session[:] = [session]
    _current_test[:] = [test_id]
    return session


def _embedder(index: Mapping[str, Any] | None) -> Embedder:
    if index and index.get("embed") is not None:
        return LangChainEmbedder(ensure_embeddings(index["embed"]), int(index["dims"]))
    if not _local_embedder:
        from memfold.embed.local import LocalEmbedder

        _local_embedder.append(LocalEmbedder())
    return _local_embedder[0]


def new_memory(index: Mapping[str, Any] | None) -> Memory:
    """A fresh memfold Memory in a new file of the current test's temp dir."""
    session = _session[0]
    path = session.root / f"memfold-{len(session.memories)}.db"
    memory = Memory(path, embedder=_embedder(index), consolidate="sync")
    session.memories.append(memory)
    if _current_test:
        BUILT.add(_current_test[0])
    return memory


def store_options(index: Mapping[str, Any] | None, ttl: Mapping[str, Any] | None) -> dict[str, Any]:
    """The LangGraph constructor options MemfoldStore takes (whatever its version)."""
    options: dict[str, Any] = {}
    fields = (index or {}).get("fields") or (index or {}).get("text_fields")
    if fields:
        options["fields"] = [fields] if isinstance(fields, str) else list(fields)
    if ttl:
        options["ttl"] = dict(ttl)
    known = inspect.signature(MemfoldStore.__init__).parameters
    return {k: v for k, v in options.items() if k in known}


class MemfoldInMemoryStore(MemfoldStore):
    """Stands in for ``InMemoryStore(index=...)``."""

    def __init__(self, *, index: Mapping[str, Any] | None = None) -> None:
        super().__init__(new_memory(index), **store_options(index, None))


class MemfoldSqliteStore(MemfoldStore):
    """Stands in for ``SqliteStore``: ``from_conn_string`` and ``setup``."""

    @classmethod
    @contextmanager
    def from_conn_string(
        cls,
        conn_string: str,
        *,
        index: Mapping[str, Any] | None = None,
        ttl: Mapping[str, Any] | None = None,
    ) -> Iterator[MemfoldSqliteStore]:
        del conn_string  # a memfold store is its own file
        store = cls(new_memory(index), **store_options(index, ttl))
        try:
            yield store
        finally:
            _stop_sweeper(store)

    def setup(self) -> None:
        """memfold migrates its file when it opens it."""


class MemfoldAsyncSqliteStore(MemfoldStore):
    """Stands in for ``AsyncSqliteStore``: its helpers are coroutines."""

    @classmethod
    @asynccontextmanager
    async def from_conn_string(
        cls,
        conn_string: str,
        *,
        index: Mapping[str, Any] | None = None,
        ttl: Mapping[str, Any] | None = None,
    ) -> AsyncIterator[MemfoldAsyncSqliteStore]:
        del conn_string
        store = cls(new_memory(index), **store_options(index, ttl))
        try:
            yield store
        finally:
            await asyncio.to_thread(_stop_sweeper, store)

    async def setup(self) -> None:
        """memfold migrates its file when it opens it."""

    # AsyncSqliteStore's TTL helpers are coroutines; MemfoldStore's are LangGraph's sync
    # SqliteStore/PostgresStore ones (sweep_ttl, start_ttl_sweeper, stop_ttl_sweeper).
    async def sweep_ttl(self) -> int:  # type: ignore[override]
        return await self.asweep_ttl()

    async def start_ttl_sweeper(  # type: ignore[override]
        self, sweep_interval_minutes: float | None = None
    ) -> Any:
        return MemfoldStore.start_ttl_sweeper(self, sweep_interval_minutes)

    async def stop_ttl_sweeper(self, timeout: float | None = None) -> bool:  # type: ignore[override]
        return await asyncio.to_thread(MemfoldStore.stop_ttl_sweeper, self, timeout)


def _stop_sweeper(store: MemfoldStore) -> None:
    stop = getattr(MemfoldStore, "stop_ttl_sweeper", None)  # absent before TTL support
    if stop is not None:
        stop(store)


STANDINS: dict[str, type[MemfoldStore]] = {
    "InMemoryStore": MemfoldInMemoryStore,
    "SqliteStore": MemfoldSqliteStore,
    "AsyncSqliteStore": MemfoldAsyncSqliteStore,
}
