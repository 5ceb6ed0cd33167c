"""memfold as a LangGraph store: ``MemfoldStore(Memory(...))`` is a ``BaseStore``.

Namespaces map to scopes and items to memories (see ``lg_mapping``). Items are stored
unjudged (``add_many(consolidate=False)``): two keys never fold into one on save, so an
item put under a key stays gettable by that key until it is put again or deleted
(LangGraph's contract). Search, the log and undo work on them as on any memory; a batch
review run over a LangGraph scope could still merge two items, and the key of a merged
item then reads as deleted (undo brings it back). A put on an existing key edits that
memory (logged, undoable) or, when the new value drops keys, archives it and stores the
new value; a delete archives it (``memfold undo`` brings it back).

A batch runs as LangGraph's own stores run one: its reads (get, search, list) see the
store as it was before the batch, then its puts apply, the last put of a key winning.
A put's ``index`` list (JSON paths, LangGraph's syntax) picks the text that is embedded
for that item; ``index=False`` still embeds it (every memory has a vector).

    from memfold import Memory
    from memfold.integrations.langgraph import MemfoldStore

    store = MemfoldStore(Memory("agent.db"))
    store.put(("alice", "memories"), "food", {"text": "Alice is vegetarian"})
    store.search(("alice",), query="what does Alice eat?")
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any, Literal

from memfold.errors import InvalidInput, MissingExtra
from memfold.integrations import lg_mapping as lg
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
    )
    from langgraph.store.base.embed import get_text_at_path
except ImportError as exc:  # langgraph comes with memfold[langgraph] only
    raise MissingExtra("langgraph", "the LangGraph store", exc.name or "langgraph") from None

__all__ = ["MemfoldStore"]


class MemfoldStore(BaseStore):
    """A LangGraph ``BaseStore`` over a memfold ``Memory`` (its file, model and settings).

    ``text_fields``: the value fields whose string is embedded and searched, first
    found wins (else the whole value as JSON). The async methods run the same
    operations in a worker thread; one lock keeps them in order.
    """

    __slots__ = ("_lock", "memory", "text_fields")

    def __init__(
        self, memory: Memory, *, text_fields: Sequence[str] = lg.DEFAULT_TEXT_FIELDS
    ) -> None:
        self.memory = memory
        self.text_fields = tuple(text_fields)
        self._lock = threading.Lock()

    # --- BaseStore -------------------------------------------------------------

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Reads first, on the store as it was; then the puts, the last of a key wins."""
        with self._lock:
            results: list[Result] = []
            puts: dict[tuple[tuple[str, ...], str], PutOp] = {}
            for op in ops:
                if isinstance(op, PutOp):
                    puts.pop((op.namespace, op.key), None)  # keeps the order of the last
                    puts[(op.namespace, op.key)] = op
                    results.append(None)
                else:
                    results.append(self._read(op))
            for op in puts.values():
                self._put(op)
            return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return await asyncio.to_thread(self.batch, list(ops))

    def _read(self, op: Op) -> Result:
        if isinstance(op, GetOp):
            return self._get(op.namespace, op.key)
        if isinstance(op, SearchOp):
            return self._search(op)
        if isinstance(op, ListNamespacesOp):
            return self._list_namespaces(op)
        raise TypeError(f"unknown store operation {type(op).__name__}")

    # --- operations ------------------------------------------------------------

    def _record(self, namespace: tuple[str, ...], key: str) -> MemoryRecord | None:
        found = self.memory.list(
            user_id=lg.scope_of(namespace),
            agent_id=lg.AGENT_ID,
            filters={lg.KEY_FIELD: key},
            limit=1,
        )
        return found[0] if found else None

    def _get(self, namespace: tuple[str, ...], key: str) -> Item | None:
        record = self._record(namespace, key)
        return None if record is None else _item(Item, record, namespace)

    def _put(self, op: PutOp) -> None:
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
        text = self._text(value, op.index)
        if old is not None and set(old.metadata) <= set(metadata):
            # every old key is set again, so the merged metadata is exactly the new value
            self.memory.update(old.id, text=text, metadata=metadata, reason="langgraph put")
            return
        created_at: datetime | None = None
        if old is not None:
            created_at = old.created_at
            self.memory.delete(old.id, reason=f"langgraph put replaced key {key!r}")
        item: dict[str, Any] = {
            "text": text,
            "user_id": lg.scope_of(namespace),
            "agent_id": lg.AGENT_ID,
            "metadata": metadata,
        }
        if created_at is not None:
            item["created_at"] = created_at
        self.memory.add_many([item], consolidate=False)

    def _text(self, value: Mapping[str, Any], index: Literal[False] | list[str] | None) -> str:
        """The text embedded for an item: at the put's ``index`` paths, else a text field."""
        if index:
            found = [t for path in index for t in get_text_at_path(value, path) if t.strip()]
            if found:
                return "\n".join(found)
        return lg.text_of(value, self.text_fields)

    def _namespaces(self) -> list[tuple[tuple[str, ...], int]]:
        """Every namespace that ever held an item, with its count of active items
        (LangGraph's stores keep listing a namespace whose items were all deleted)."""
        scopes = self.memory.list_scopes(agent_id=lg.AGENT_ID)
        return sorted(
            (lg.namespace_of(s.user_id), s.active)
            for s in scopes
            if s.user_id is not None and s.session_id is None
        )

    def _search(self, op: SearchOp) -> list[SearchItem]:
        if op.limit < 0 or op.offset < 0:
            raise InvalidInput(f"limit and offset must be >= 0, got {op.limit} and {op.offset}")
        if op.limit == 0:
            return []
        prefix = tuple(op.namespace_prefix)
        pushed, after = lg.split_filter(op.filter)
        wanted = op.offset + op.limit
        found: list[tuple[float | None, MemoryRecord, tuple[str, ...]]] = []
        targets = [
            (namespace, active)
            for namespace, active in self._namespaces()
            if namespace[: len(prefix)] == prefix and active > 0
        ]
        if op.query and len(targets) == 1 and not after:
            # one namespace: memfold's own pages (each reordered newer-first within
            # itself), so that offsets 0 and 2 never show the same items
            ((namespace, _),) = targets
            hits = self.memory.search(
                op.query,
                user_id=lg.scope_of(namespace),
                agent_id=lg.AGENT_ID,
                k=op.limit,
                offset=op.offset,
                filters=pushed or None,
            )
            return [
                _item(SearchItem, h.memory, namespace, _score(h.vector_score, h.score))
                for h in hits
            ]
        for namespace, active in targets:
            user_id, agent_id = lg.scope_of(namespace), lg.AGENT_ID
            if op.query:
                # terms checked afterwards need every candidate; the rest only the top
                k = active if after else min(wanted, active)
                hits = self.memory.search(
                    op.query, user_id=user_id, agent_id=agent_id, k=k, filters=pushed or None
                )
                found += [(_score(h.vector_score, h.score), h.memory, namespace) for h in hits]
            else:
                records = self.memory.list(
                    user_id=user_id, agent_id=agent_id, filters=pushed or None, limit=None
                )
                found += [(None, r, namespace) for r in records]
        found = [f for f in found if _matches_after(f[1], after)]
        if op.query:
            # one namespace keeps memfold's ranking (fused, newer first on one topic);
            # hits of several are merged by their cosine to the query
            if len({f[2] for f in found}) > 1:
                found.sort(key=lambda f: -(f[0] or 0.0))
        else:
            found.sort(key=lambda f: f[1].updated_at, reverse=True)
        page = found[op.offset : op.offset + op.limit]
        return [_item(SearchItem, record, ns, score) for score, record, ns in page]

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        out: set[tuple[str, ...]] = set()
        for namespace, _ in self._namespaces():
            conditions = op.match_conditions or ()
            if not all(lg.namespace_matches(namespace, c.match_type, c.path) for c in conditions):
                continue
            out.add(namespace[: op.max_depth] if op.max_depth is not None else namespace)
        return sorted(out)[op.offset : op.offset + op.limit]


def _score(vector_score: float | None, fused: float) -> float:
    return float(vector_score) if vector_score is not None else float(fused)


def _matches_after(record: MemoryRecord, after: dict[str, Any]) -> bool:
    value = record.metadata
    return all(lg.value_matches(value.get(k), want) for k, want in after.items())


def _item(
    kind: Any, record: MemoryRecord, namespace: tuple[str, ...], score: float | None = None
) -> Any:
    fields: dict[str, Any] = {
        "value": lg.value_of(record.metadata),
        "key": str(record.metadata[lg.KEY_FIELD]),
        "namespace": namespace,
        "created_at": record.created_at,
        "updated_at": record.updated_at,
    }
    if kind is SearchItem:
        fields["score"] = score
    return kind(**fields)
