"""An embedder built on first use, so commands that embed nothing never load a model."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

import numpy as np

from memfold.config import EmbedSettings
from memfold.embed.base import Embedder
from memfold.errors import ConfigError


class LazyEmbedder:
    """Stands in for the configured embedder and builds it on the first ``embed`` call.

    ``model_id`` and ``dim`` of the local model are known without loading it; an
    OpenAI-compatible endpoint's ``dim`` is probed (the embedder built) when first asked.
    """

    def __init__(self, settings: EmbedSettings, build: Callable[[EmbedSettings], Embedder]):
        if settings.provider == "openai" and not (settings.base_url and settings.model):
            raise ConfigError("the OpenAI-compatible embedder needs base_url and model")
        self._settings = settings
        self._build = build
        self._inner: Embedder | None = None
        self._lock = threading.Lock()

    @property
    def loaded(self) -> bool:
        """Whether the real embedder (model, session, client) has been built."""
        return self._inner is not None

    @property
    def inner(self) -> Embedder:
        if self._inner is None:
            with self._lock:
                if self._inner is None:
                    self._inner = self._build(self._settings)
        return self._inner

    @property
    def model_id(self) -> str:
        if self._inner is None:
            if self._settings.provider == "local":
                from memfold.embed.local import MODEL_ID

                return MODEL_ID
            return f"openai:{self._settings.model}"
        return self._inner.model_id

    @property
    def dim(self) -> int:
        if self._inner is None and self._settings.provider == "local":
            from memfold.embed.local import DIM

            return DIM
        return self.inner.dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self.inner.embed(texts)
