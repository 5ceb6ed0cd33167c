"""A LangChain ``Embeddings`` (what a LangGraph store's ``index={"embed": ...}`` holds)
as a memfold ``Embedder``, so a graph keeps its embedding model when its store moves
to memfold: ``Memory("agent.db", embedder=LangChainEmbedder(OpenAIEmbeddings(), 1536))``.

No LangChain import: any object with ``embed_documents(list[str]) -> list[list[float]]``
fits. Vectors come back L2-normalized float32 rows, as memfold's embedders give them.
memfold embeds queries and documents alike (one ``embed``), so ``embed_query`` is not
used: a model with distinct query and document prompts loses that asymmetry here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np

from memfold.embed.base import normalize_rows
from memfold.errors import InvalidInput


class DocumentEmbeddings(Protocol):
    """The part of LangChain's ``Embeddings`` memfold calls."""

    def embed_documents(self, texts: list[str]) -> list[list[float]]: ...


class LangChainEmbedder:
    """``embeddings``: a LangChain ``Embeddings``; ``dims``: its vector size (LangGraph's
    ``index["dims"]``); ``model_id``: the name memfold records with each vector (a
    store embedded by another model is re-embedded, not mixed), by default the class
    name and the size."""

    def __init__(
        self, embeddings: DocumentEmbeddings, dims: int, *, model_id: str | None = None
    ) -> None:
        if isinstance(dims, bool) or not isinstance(dims, int) or dims < 1:
            raise InvalidInput(f"dims must be a positive int, got {dims!r}")
        self._embeddings = embeddings
        self._dim = dims
        self._model_id = model_id or f"langchain:{type(embeddings).__name__}:{dims}"

    @property
    def embeddings(self) -> DocumentEmbeddings:
        """The LangChain embeddings this embeds with."""
        return self._embeddings

    @property
    def model_id(self) -> str:
        return self._model_id

    @property
    def dim(self) -> int:
        return self._dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self._dim), dtype=np.float32)
        rows = np.asarray(self._embeddings.embed_documents(list(texts)), dtype=np.float32)
        if rows.shape != (len(texts), self._dim):
            raise InvalidInput(
                f"the embeddings gave shape {rows.shape} for {len(texts)} texts of "
                f"dimension {self._dim}"
            )
        return normalize_rows(rows)
