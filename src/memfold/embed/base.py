"""The Embedder protocol and vector checks shared by every embedder."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np

from memfold.errors import InvalidInput
from memfold.model import Vector


class Embedder(Protocol):
    """Turns texts into L2-normalized float32 vectors of a fixed dimension."""

    @property
    def model_id(self) -> str: ...

    @property
    def dim(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


def normalize_rows(matrix: np.ndarray) -> np.ndarray:
    """L2-normalize each row; a zero row stays zero."""
    m = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    out: np.ndarray = (m / norms).astype(np.float32, copy=False)
    return out


def check_vector(vec: object, dim: int) -> Vector:
    """Validate a caller-supplied vector: right dimension, finite, non-zero; normalize it."""
    try:
        arr = np.asarray(vec, dtype=np.float32)
    except (TypeError, ValueError) as exc:
        raise InvalidInput(f"embedding is not a numeric vector: {exc}") from None
    if arr.ndim != 1:
        raise InvalidInput(f"embedding must be one-dimensional, got shape {arr.shape}")
    if arr.shape[0] != dim:
        raise InvalidInput(f"embedding has dimension {arr.shape[0]}, expected {dim}")
    if not np.all(np.isfinite(arr)):
        raise InvalidInput("embedding contains NaN or infinity")
    norm = float(np.linalg.norm(arr))
    if norm == 0.0:
        raise InvalidInput("embedding is the zero vector")
    return (arr / norm).astype(np.float32)
