"""What the vector index reads from a store: one memory's row of the change feed."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from memfold.model import Area, Status, Vector


@dataclass(frozen=True, slots=True)
class IndexRow:
    """What the vector index needs to know about one memory (``deleted``: a tombstone)."""

    seq: int
    id: str
    scope_key: str
    status: Status
    area: Area
    embedding: Vector | None
    embedding_model: str | None
    deleted: bool = False
    # A long memory's passage vectors (rows of the embedding's dimension), searched
    # beside its whole-text vector; None: none.
    passages: np.ndarray | None = None
