"""The parts every engine path shares: store, index, embedder, settings."""

from __future__ import annotations

from collections.abc import Callable, Sequence
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

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self.embedder.embed(list(texts))

    def embed_one(self, text: str) -> Vector:
        vec: Vector = self.embedder.embed([text])[0]
        return vec

    def synced_index(self) -> VectorIndex:
        """The index after applying every change any process has committed."""
        self.index.sync(self.store)
        return self.index
