"""Embeddings from any OpenAI-compatible ``/v1/embeddings`` endpoint."""

from __future__ import annotations

from collections.abc import Sequence

import httpx
import numpy as np

from memfold.embed.base import normalize_rows
from memfold.errors import ConfigError, LLMUnavailable


class OpenAIEmbedder:
    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key: str | None = None,
        dim: int | None = None,
        batch_size: int = 64,
        timeout_s: float = 30.0,
    ) -> None:
        if not base_url or not model:
            raise ConfigError("the OpenAI-compatible embedder needs base_url and model")
        self._url = base_url.rstrip("/") + "/embeddings"
        self._model = model
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(headers=headers, timeout=timeout_s)
        self._batch_size = batch_size
        self._dim = dim or int(self.embed(["dimension probe"]).shape[1])

    @property
    def model_id(self) -> str:
        return f"openai:{self._model}"

    @property
    def dim(self) -> int:
        return self._dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        rows: list[list[float]] = []
        for start in range(0, len(texts), self._batch_size):
            batch = list(texts[start : start + self._batch_size])
            try:
                resp = self._client.post(self._url, json={"model": self._model, "input": batch})
                resp.raise_for_status()
            except httpx.HTTPError as exc:
                raise LLMUnavailable(f"embedding endpoint {self._url} failed: {exc}") from exc
            data = sorted(resp.json()["data"], key=lambda d: d["index"])
            rows.extend(d["embedding"] for d in data)
        if not rows:
            return np.zeros((0, getattr(self, "_dim", 0)), dtype=np.float32)
        return normalize_rows(np.asarray(rows, dtype=np.float32))

    def close(self) -> None:
        self._client.close()
