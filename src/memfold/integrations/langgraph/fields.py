"""What a LangGraph item is indexed on, and its score against a query.

LangGraph indexes an item on fields: the texts at the put's ``index`` paths (else the
store's ``fields``), each embedded on its own; a query scores an item by the best
cosine over its fields, so an item matches when any one field does. memfold keeps one
vector per memory, so an item indexed on several fields is held this way:

- the memory's text is its field texts joined by newlines: memfold's hybrid search
  (that vector plus the keywords of every field) finds the candidates;
- the candidates are then scored LangGraph's way: each field text is embedded (kept in
  an LRU cache, ``MemfoldStoreConfig.field_vector_cache``) and the item's score is the
  best cosine of a field to the query. An item of one field needs no extra vector: its
  memory's vector is that field's.

A put with ``index=False``, or whose paths find no text, is not indexed: it keeps a
text (memfold needs one) but a query search never ranks it; it only follows the
ranked items, with no score, as in LangGraph's in-memory store.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from memfold.embed.base import Embedder
from memfold.errors import MissingExtra
from memfold.integrations.langgraph import mapping as lg

try:
    from langgraph.store.base.embed import get_text_at_path
except ImportError as exc:  # langgraph comes with memfold[langgraph] only
    raise MissingExtra("langgraph", "the LangGraph store", exc.name or "langgraph") from None

IndexArg = Literal[False] | list[str] | None


@dataclass(frozen=True, slots=True)
class IndexPlan:
    """What a put stores: the memory's ``text``, the ``marker`` kept under
    ``_lg_index`` (None: indexed on the default text; False: not indexed; else the
    paths) and the field ``texts`` (empty when not indexed)."""

    text: str
    marker: Literal[False] | list[str] | None
    texts: tuple[str, ...]


def plan(
    value: Mapping[str, Any],
    index: IndexArg,
    fields: Sequence[str] | None,
    text_fields: Sequence[str],
) -> IndexPlan:
    """The put's ``index`` (False, or paths), else the store's ``fields`` paths, else
    the default: one field, the value's text field or the value as JSON."""
    fallback = lg.text_of(value, text_fields)
    if index is False:
        return IndexPlan(fallback, False, ())
    paths = list(index) if index else (list(fields) if fields else None)
    if paths is None:
        return IndexPlan(fallback, None, (fallback,))
    texts = texts_at(value, paths)
    if not texts:
        return IndexPlan(fallback, False, ())
    return IndexPlan("\n".join(texts), paths, texts)


def texts_at(value: Mapping[str, Any], paths: Sequence[str]) -> tuple[str, ...]:
    """The non-blank texts at LangGraph JSON paths, in order."""
    return tuple(t for path in paths for t in get_text_at_path(value, path) if t.strip())


def marker_of(metadata: Mapping[str, Any]) -> Literal[False] | list[str] | None:
    marker = metadata.get(lg.INDEX_FIELD)
    if marker is False:
        return False
    if isinstance(marker, list) and all(isinstance(p, str) for p in marker):
        return list(marker)
    return None


class FieldVectors:
    """Field texts' vectors, embedded on demand, the last ``capacity`` kept."""

    def __init__(self, embedder: Embedder, capacity: int) -> None:
        self._embedder = embedder
        self._capacity = capacity
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def vectors(self, texts: Sequence[str]) -> np.ndarray:
        with self._lock:
            known = {t: self._cache[t] for t in texts if t in self._cache}
        missing = list(dict.fromkeys(t for t in texts if t not in known))
        if missing:
            known.update(zip(missing, self._embedder.embed(missing), strict=True))
        with self._lock:
            for text in dict.fromkeys(texts):
                self._cache[text] = known[text]
                self._cache.move_to_end(text)
            while len(self._cache) > self._capacity:
                self._cache.popitem(last=False)
        if not texts:
            return np.zeros((0, self._embedder.dim), dtype=np.float32)
        return np.vstack([known[t] for t in texts])

    def warm(self, texts: Sequence[str]) -> None:
        """Embed an item's fields when it is put (no-op for a one-field item)."""
        if len(texts) > 1 and self._capacity > 0:
            self.vectors(texts)

    def best_cosine(self, query: str, texts: Sequence[str]) -> float:
        """LangGraph's score: the best cosine of a field to the query (vectors are
        L2-normalized, so a dot product)."""
        matrix = self.vectors([query, *texts])
        return float(np.max(matrix[1:] @ matrix[0]))
