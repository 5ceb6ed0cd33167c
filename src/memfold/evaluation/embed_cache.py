"""An embedder wrapper that remembers vectors on disk (results/cache by default).

Embedding the dev data takes minutes on 2 cores; with the cache a second run of
``memfold eval`` spends its time in consolidation, which is what it measures.
Keys are sha256 of the exact text, one file per embedding model.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from memfold.embed.base import Embedder

Progress = Callable[[int], None]
_CHUNK = 256


def text_key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class CachingEmbedder:
    """Implements ``Embedder``; vectors missing from the cache are computed in chunks."""

    def __init__(self, base: Embedder, folder: Path | None) -> None:
        self.base = base
        self.file = None if folder is None else folder / f"embeddings-{_safe(base.model_id)}.npz"
        self._vectors: dict[str, np.ndarray] = {}
        self._dirty = False
        self.progress: Progress | None = None
        if self.file is not None and self.file.is_file():
            with np.load(self.file) as data:
                keys = [str(k) for k in data["keys"]]
                self._vectors = dict(zip(keys, data["vectors"], strict=True))

    @property
    def model_id(self) -> str:
        return self.base.model_id

    @property
    def dim(self) -> int:
        return self.base.dim

    def __len__(self) -> int:
        return len(self._vectors)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        keys = [text_key(t) for t in texts]
        missing = list(dict.fromkeys(k for k in keys if k not in self._vectors))
        if missing:
            by_key = {k: t for k, t in zip(keys, texts, strict=True)}
            for start in range(0, len(missing), _CHUNK):
                chunk = missing[start : start + _CHUNK]
                fresh = self.base.embed([by_key[k] for k in chunk])
                self._vectors.update(zip(chunk, fresh, strict=True))
                if self.progress is not None:
                    self.progress(len(chunk))
            self._dirty = True
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, key in enumerate(keys):
            out[row] = self._vectors[key]
        return out

    def missing(self, texts: Sequence[str]) -> int:
        return len({k for k in map(text_key, texts) if k not in self._vectors})

    def save(self) -> None:
        if self.file is None or not self._dirty:
            return
        self.file.parent.mkdir(parents=True, exist_ok=True)
        keys = np.array(list(self._vectors), dtype="U64")
        matrix = np.stack(list(self._vectors.values())).astype(np.float32)
        # A file of this run's own, then an atomic rename: a killed run never leaves a
        # broken cache, and two runs saving at once never write one file.
        fd, name = tempfile.mkstemp(dir=self.file.parent, suffix=".tmp.npz")
        tmp = Path(name)
        try:
            with os.fdopen(fd, "wb") as out:
                np.savez(out, keys=keys, vectors=matrix)
            tmp.replace(self.file)
        finally:
            tmp.unlink(missing_ok=True)
        self._dirty = False


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)
