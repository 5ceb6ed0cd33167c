"""Embedders: the local ONNX default and an OpenAI-compatible endpoint."""

from __future__ import annotations

from memfold.config import EmbedSettings
from memfold.embed.base import Embedder, check_vector, normalize_rows

__all__ = ["Embedder", "check_vector", "make_embedder", "normalize_rows"]


def make_embedder(settings: EmbedSettings) -> Embedder:
    if settings.provider == "openai":
        from memfold.embed.openai_compat import OpenAIEmbedder

        return OpenAIEmbedder(
            base_url=settings.base_url or "",
            model=settings.model or "",
            api_key=settings.api_key,
            batch_size=settings.batch_size,
            timeout_s=settings.timeout_s,
        )
    from memfold.embed.local import LocalEmbedder

    return LocalEmbedder(
        threads=settings.threads,
        batch_size=settings.batch_size,
        max_tokens=settings.max_tokens,
        parallel_min_texts=settings.parallel_min_texts,
        max_batch_tokens=settings.max_batch_tokens,
    )
