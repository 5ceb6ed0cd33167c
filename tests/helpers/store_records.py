"""Records for the contract tests."""

from __future__ import annotations

from typing import Any

import numpy as np

from memfold.model import MemoryRecord, Scope, content_hash


def vec(*values: float) -> np.ndarray:
    return np.asarray(values, dtype=np.float32)


def rec(mid: str, text: str, scope: Scope | None = None, **fields: Any) -> MemoryRecord:
    return MemoryRecord(
        id=mid,
        scope=scope or Scope("u1"),
        text=text,
        content_hash=content_hash(text),
        embedding=fields.pop("embedding", vec(1.0, 0.0, 0.0)),
        embedding_model=fields.pop("embedding_model", "test-model"),
        **fields,
    )
