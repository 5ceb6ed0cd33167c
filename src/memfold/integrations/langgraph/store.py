"""``MemfoldStore``: memfold as a LangGraph ``BaseStore``.

Namespaces map to scopes and items to memories (mapping). By default items are
stored unjudged (``add_many(consolidate=False)``): two keys never fold into one on
save, so an item put under a key stays gettable by that key until it is put again or
deleted (LangGraph's contract). ``consolidate=True`` judges each new item as
``Memory.add`` does: a duplicate, restatement or superseded fact then folds into
another item, and its key reads as deleted (``memfold undo`` brings it back). A put
on an existing key edits that memory (logged, undoable) or, when the new value drops
keys or its expiry moves, archives it and stores the new value; a delete archives it.

A batch runs as LangGraph's own stores run one: its reads (get, search, list) see the
store as it was before the batch, then its puts apply, the last put of a key winning.
What an item is indexed on and how a query scores it: fields and search; the time to
live: ttl; filters: filters (the modules beside this one).

    from memfold import Memory
    from memfold.integrations.langgraph import MemfoldStore

    store = MemfoldStore(Memory("agent.db"))
    store.put(("alice", "memories"), "food", {"text": "Alice is vegetarian"})
    store.search(("alice",), query="what does Alice eat?")
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from memfold.errors import InvalidInput, MissingExtra
from memfold.integrations.langgraph import fields as lg_fields
from memfold.integrations.langgraph import filters as lg_filters
from memfold.integrations.langgraph import mapping as lg
from memfold.integrations.langgraph import search as lg_search
from memfold.integrations.langgraph import ttl as lg_ttl
from memfold.integrations.langgraph.config import MemfoldStoreConfig
from memfold.integrations.langgraph.embed import LangChainEmbedder
from memfold.memory import Memory
from memfold.model import MemoryRecord
from memfold.policy.validate import clean_metadata

try:
    from langgraph.store.base import (
        BaseStore,
        GetOp,
        Item,
        ListNamespacesOp,
        Op,
        PutOp,
        Result,
        SearchItem,
        SearchOp,
        TTLConfig,
    )
except ImportError as exc:  # langgraph comes with memfold[langgraph] only
    raise MissingExtra("langgraph", "the LangGraph store", exc.name or "langgraph") from None

__all__ = ["MemfoldStore", "MemfoldStoreConfig"]


class MemfoldStore(BaseStore):
    """A LangGraph ``BaseStore`` over a memfold ``Memory`` (its file, model and settings).

    ``fields``: LangGraph's index fields, the JSON paths an item is indexed on when its
    put names none (each path's text a field; None: one field, the first of
    ``text_fields`` holding a string, else the value as JSON). ``consolidate``: judge
    new items as ``Memory.add`` does (see the module doc). ``ttl``: LangGraph's
    ``TTLConfig`` (``default_ttl`` minutes, ``omit_expired``,
    ``sweep_interval_minutes``; the ttl module). ``config``: re-ranking, caching and sweeping
    settings (``MemfoldStoreConfig``). The async methods run the same operations in a
    worker thread; one lock keeps them in order.
    """

    supports_ttl = True

    def __init__(
        self,
        memory: Memory,
        *,
        text_fields: Sequence[str] = lg.DEFAULT_TEXT_FIELDS,
        fields: Sequence[str] | None = None,
        consolidate: bool = False,
        ttl: TTLConfig | None = None,
        config: MemfoldStoreConfig | None = None,
    ) -> None:
        if isinstance(fields, str):
            fields = [fields]
        self.memory = memory
        self.text_fields = tuple(text_fields)
        self.fields = None if fields is None else tuple(fields)
        self.consolidate = bool(consolidate)
        self.ttl_config = ttl
        self.config = config or MemfoldStoreConfig()
        self._vectors = lg_fields.FieldVectors(memory.ctx.embedder, self.config.field_vector_cache)
        self._lock = threading.RLock()
        self._sweeper = lg_ttl.Sweeper(self._sweep)

    @property
    def index_config(self) -> dict[str, Any]:
        """The index as LangGraph's stores report theirs (``IndexConfig``): the memory's
        embedder (a ``LangChainEmbedder``: its LangChain embeddings), its dimension and
        the store's ``fields`` (None: the first of ``text_fields``)."""
        embedder = self.memory.ctx.embedder
        return {
            "dims": embedder.dim,
            "embed": embedder.embeddings if isinstance(embedder, LangChainEmbedder) else embedder,
            "fields": None if self.fields is None else list(self.fields),
        }

    # --- BaseStore -------------------------------------------------------------

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Reads first, on the store as it was; then the puts, the last of a key wins."""
        with self._lock:
            now = self.memory.ctx.clock()
            results: list[Result] = []
            puts: dict[tuple[tuple[str, ...], str], PutOp] = {}
            for op in ops:
                if isinstance(op, PutOp):
                    puts.pop((op.namespace, op.key), None)  # keeps the order of the last
                    puts[(op.namespace, op.key)] = op
                    results.append(None)
                else:
                    results.append(self._read(op, now))
            for op in puts.values():
                self._put(op, now)
            return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return await asyncio.to_thread(self.batch, list(ops))

    def _read(self, op: Op, now: datetime) -> Result:
        if isinstance(op, GetOp):
            return self._get(op.namespace, op.key, now, refresh=op.refresh_ttl)
        if isinstance(op, SearchOp):
            return self._search(op, now)
        if isinstance(op, ListNamespacesOp):
            return self._list_namespaces(op)
        raise TypeError(f"unknown store operation {type(op).__name__}")

    # --- TTL (LangGraph's SqliteStore/PostgresStore names) -----------------------

    def sweep_ttl(self) -> int:
        """Delete (archive, undoably) every item whose TTL has passed; how many."""
        return self._sweep()

    async def asweep_ttl(self) -> int:
        return await asyncio.to_thread(self._sweep)

    def _sweep(self) -> int:
        with self._lock:
            now = self.memory.ctx.clock()
            swept = 0
            for namespace, active in self._namespaces():
                if active == 0:
                    continue
                for record in self._records(namespace):
                    if lg_ttl.is_expired(record, now):
                        key = record.metadata.get(lg.KEY_FIELD)
                        self.memory.delete(record.id, reason=f"langgraph ttl of key {key!r}")
                        swept += 1
            return swept

    def start_ttl_sweeper(
        self, sweep_interval_minutes: float | None = None
    ) -> concurrent.futures.Future[None]:
        """Sweep every ``sweep_interval_minutes`` (else the TTL config's, else
        ``config.sweep_interval_minutes``) in a daemon thread until stopped."""
        interval = (
            sweep_interval_minutes
            or (self.ttl_config or {}).get("sweep_interval_minutes")
            or self.config.sweep_interval_minutes
        )
        return self._sweeper.start(float(interval))

    def stop_ttl_sweeper(self, timeout: float | None = None) -> bool:
        """Stop the sweeper; False if it was still sweeping after ``timeout`` seconds."""
        return self._sweeper.stop(timeout)

    # --- operations ------------------------------------------------------------

    def _records(self, namespace: tuple[str, ...]) -> list[MemoryRecord]:
        return self.memory.list(user_id=lg.scope_of(namespace), agent_id=lg.AGENT_ID, limit=None)

    def _record(self, namespace: tuple[str, ...], key: str) -> MemoryRecord | None:
        found = self.memory.list(
            user_id=lg.scope_of(namespace),
            agent_id=lg.AGENT_ID,
            filters={lg.KEY_FIELD: key},
            limit=1,
        )
        return found[0] if found else None

    def _visible(self, record: MemoryRecord, now: datetime) -> bool:
        omit = bool((self.ttl_config or {}).get("omit_expired"))
        return not (omit and lg_ttl.is_expired(record, now))

    def _get(
        self, namespace: tuple[str, ...], key: str, now: datetime, *, refresh: bool
    ) -> Item | None:
        record = self._record(namespace, key)
        if record is None or not self._visible(record, now):
            return None
        if refresh:
            self._refresh([record], now)
        return _item(record, namespace)

    def _refresh(self, records: Iterable[MemoryRecord], now: datetime) -> None:
        """LangGraph's refresh on read: each item put with a TTL expires that many
        minutes from now, when the TTL config asks for it (``refresh_on_read``, off
        unless given, as in LangGraph's SQL stores). memfold's expiry moved in place
        (``Store.set_expiries``): a read is no change of the item, so no version and no
        log row."""
        if self.memory.read_only or not (self.ttl_config or {}).get("refresh_on_read"):
            return
        moved = [
            (r.id, lg_ttl.expiry(now, r.metadata[lg.TTL_FIELD]))
            for r in records
            if r.metadata.get(lg.TTL_FIELD) is not None and not lg_ttl.is_expired(r, now)
        ]
        self.memory.store.set_expiries(moved)

    def _put(self, op: PutOp, now: datetime) -> None:
        namespace, key, value = op.namespace, op.key, op.value
        old = self._record(namespace, key)
        if value is None:
            if old is not None:
                self.memory.delete(old.id, reason=f"langgraph delete of key {key!r}")
            return
        cfg = self.memory.settings.store
        # Checked before the text is made of it: a value nested thousands of levels deep
        # is InvalidInput here, not a RecursionError in json.dumps.
        metadata = clean_metadata(
            lg.metadata_of(key, value),
            max_depth=cfg.max_metadata_depth,
            max_bytes=cfg.max_metadata_bytes,
            what="the item value",
        )
        index = lg_fields.plan(value, op.index, self.fields, self.text_fields)
        if index.marker is not None:
            metadata[lg.INDEX_FIELD] = index.marker
        expires_at = lg_ttl.expiry(now, op.ttl)
        if expires_at is not None:
            metadata[lg.TTL_FIELD] = op.ttl
        self._vectors.warm(index.texts)
        if (
            old is not None
            and set(old.metadata) <= set(metadata)  # so the merged metadata is the new value
            and old.expires_at is None
            and expires_at is None
        ):
            self.memory.update(old.id, text=index.text, metadata=metadata, reason="langgraph put")
            return
        item: dict[str, Any] = {
            "text": index.text,
            "user_id": lg.scope_of(namespace),
            "agent_id": lg.AGENT_ID,
            "metadata": metadata,
        }
        if old is not None:
            item["created_at"] = old.created_at
        if expires_at is not None:
            item["expires_at"] = expires_at
        # only a new key is judged: a put on an existing key is an edit, never folded
        self.memory.add_many([item], consolidate=self.consolidate and old is None)
        if old is not None:  # archived once the new value is stored: a refused put keeps it
            self.memory.delete(old.id, reason=f"langgraph put replaced key {key!r}")

    def _namespaces(self) -> list[tuple[tuple[str, ...], int]]:
        """Every namespace that ever held an item, with its count of active items
        (LangGraph's stores keep listing a namespace whose items were all deleted)."""
        scopes = self.memory.list_scopes(agent_id=lg.AGENT_ID)
        return sorted(
            (lg.namespace_of(s.user_id), s.active)
            for s in scopes
            if s.user_id is not None and s.session_id is None
        )

    def _search(self, op: SearchOp, now: datetime) -> list[SearchItem]:
        if op.limit < 0 or op.offset < 0:
            raise InvalidInput(f"limit and offset must be >= 0, got {op.limit} and {op.offset}")
        pushed, after = lg_filters.split_filter(op.filter)
        if op.limit == 0:
            return []
        prefix = tuple(op.namespace_prefix)
        targets = [
            (namespace, active)
            for namespace, active in self._namespaces()
            if namespace[: len(prefix)] == prefix and active > 0
        ]
        query = lg_search.Query(op.query, pushed, bool(after), op.limit, op.offset)

        def keep(record: MemoryRecord) -> bool:
            value = lg.value_of(record.metadata)
            return lg_filters.matches(value, after) and self._visible(record, now)

        found = lg_search.search(self.memory, self._vectors, self.config, query, targets, keep)
        if op.refresh_ttl:
            self._refresh((record for _, record, _ in found), now)
        return [_search_item(record, ns, score) for score, record, ns in found]

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        out: set[tuple[str, ...]] = set()
        for namespace, _ in self._namespaces():
            conditions = op.match_conditions or ()
            if not all(lg.namespace_matches(namespace, c.match_type, c.path) for c in conditions):
                continue
            out.add(namespace[: op.max_depth] if op.max_depth is not None else namespace)
        return sorted(out)[op.offset : op.offset + op.limit]


def _fields(record: MemoryRecord, namespace: tuple[str, ...]) -> dict[str, Any]:
    return {
        "value": lg.value_of(record.metadata),
        "key": str(record.metadata[lg.KEY_FIELD]),
        "namespace": namespace,
        "created_at": record.created_at,
        "updated_at": record.updated_at,
    }


def _item(record: MemoryRecord, namespace: tuple[str, ...]) -> Item:
    return Item(**_fields(record, namespace))


def _search_item(
    record: MemoryRecord, namespace: tuple[str, ...], score: float | None
) -> SearchItem:
    return SearchItem(**_fields(record, namespace), score=score)
