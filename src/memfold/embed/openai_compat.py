"""Embeddings from any OpenAI-compatible ``/v1/embeddings`` endpoint."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from typing import Any

import httpx
import numpy as np

from memfold.embed.base import normalize_rows
from memfold.errors import ConfigError, LLMUnavailable


class OpenAIEmbedder:
    """``timeout_s`` bounds each request: connect, send and every read wait at most
    that long, and a reply still arriving (byte by byte) after it is cut off."""

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
        self._timeout_s = timeout_s
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
            data = sorted(self._post(batch)["data"], key=lambda d: d["index"])
            rows.extend(d["embedding"] for d in data)
        if not rows:
            return np.zeros((0, getattr(self, "_dim", 0)), dtype=np.float32)
        return normalize_rows(np.asarray(rows, dtype=np.float32))

    def _post(self, batch: list[str]) -> Any:
        deadline = time.monotonic() + self._timeout_s
        body = bytearray()
        try:
            with self._client.stream(
                "POST", self._url, json={"model": self._model, "input": batch}
            ) as resp:
                resp.raise_for_status()
                for chunk in resp.iter_bytes():
                    body += chunk
                    if time.monotonic() > deadline:
                        raise httpx.ReadTimeout(f"no full answer within {self._timeout_s:g} s")
        except httpx.HTTPError as exc:
            raise LLMUnavailable(f"embedding endpoint {self._url} failed: {exc}") from exc
        try:
            return json.loads(bytes(body))
        except ValueError as exc:
            raise LLMUnavailable(f"embedding endpoint {self._url} sent no JSON: {exc}") from exc

    def close(self) -> None:
        self._client.close()
