"""The parts every engine path shares: store, index, embedder, settings."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np

from memfold.config import Settings
from memfold.embed.base import Embedder
from memfold.engine.access import AccessBuffer
from memfold.index.vector_index import VectorIndex
from memfold.model import Vector, utcnow
from memfold.store.base import Store


@dataclass
class Context:
    store: Store
    index: VectorIndex
    embedder: Embedder
    settings: Settings
    # Where searches count their hits' retrievals; None (a read-only store): not counted.
    accesses: AccessBuffer | None = None
    # What "now" is for the lifecycle (retention, TTL, ticks): replaceable, so tests and
    # simulations run months in seconds.
    clock: Callable[[], datetime] = field(default=utcnow)
    # Per thread: whether a ``one_index_sync`` block is open and has synced the index.
    _held: threading.local = field(
        default_factory=threading.local, init=False, repr=False, compare=False
    )

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self.embedder.embed(list(texts))

    def embed_one(self, text: str) -> Vector:
        vec: Vector = self.embedder.embed([text])[0]
        return vec

    def synced_index(self) -> VectorIndex:
        """The index after applying every change any process has committed (inside this
        thread's ``one_index_sync`` block: as of the block's first sync)."""
        held = self._held
        if not getattr(held, "open", False) or not getattr(held, "synced", False):
            self.index.sync(self.store)
            held.synced = True
        return self.index

    @contextmanager
    def one_index_sync(self) -> Iterator[None]:
        """Inside the block, this thread's searches sync the index once, at the first,
        and later ones read it as of that sync (``index.seq`` tells which change number)
        instead of asking the store for its change number again before each (a round
        trip each on PostgreSQL). For a pass's preparation, which writes no memory
        meanwhile: its searches see the store as one moment, the first search's. Nested
        blocks join the outer one; other threads sync as before."""
        held = self._held
        if getattr(held, "open", False):
            yield
            return
        held.open, held.synced = True, False
        try:
            yield
        finally:
            held.open = False
