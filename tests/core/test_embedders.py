"""The local model's integrity check and the OpenAI-compatible embedder on a loopback server."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from memfold import Memory, Settings
from memfold.embed import make_embedder
from memfold.embed.local import LocalEmbedder, default_model_path
from memfold.errors import LLMUnavailable, ModelIntegrityError
from memfold.testing.fake_llm import FakeLLMServer


def test_tampered_model_file_is_refused(tmp_path: Path) -> None:
    copy = tmp_path / "model.onnx"
    shutil.copy(default_model_path(), copy)
    with copy.open("r+b") as fh:
        fh.seek(1000)
        fh.write(b"\x00\x01\x02")
    with pytest.raises(ModelIntegrityError, match="expected 8199be6f"):
        LocalEmbedder(model_path=copy)


def test_local_vectors_are_normalized_and_batched_consistently(embedder: LocalEmbedder) -> None:
    texts = ["short", "a much longer sentence about the user's travel plans in spring", "x y"]
    together = embedder.embed(texts)
    alone = np.stack([embedder.embed([t])[0] for t in texts])
    assert np.allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)
    assert np.allclose(together, alone, atol=1e-4)  # padding must not change a vector


def test_openai_compatible_embedder(tmp_path: Path, embedder: LocalEmbedder) -> None:
    with FakeLLMServer() as server:
        settings = Settings(
            embed={"provider": "openai", "base_url": server.base_url, "model": "fake-embed"}
        )
        remote = make_embedder(settings.embed)
        assert remote.model_id == "openai:fake-embed" and remote.dim == 384
        vecs = remote.embed(["Sam lives in Berlin", "Sam has a cat"])
        assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
        assert np.allclose(vecs[0], embedder.embed(["Sam lives in Berlin"])[0], atol=1e-4)
        with Memory(tmp_path / "m.db", settings=settings, embedder=remote, consolidate="off") as m:
            r = m.add("Sam lives in Berlin", user_id="s")
            assert m.get(r.memory.id).embedding_model == "openai:fake-embed"
            assert m.search("where does Sam live", user_id="s")[0].memory.id == r.memory.id
        with Memory(tmp_path / "m.db", embedder=embedder, consolidate="off") as local:
            from memfold import EmbeddingMismatch

            with pytest.raises(EmbeddingMismatch):
                local.search("Berlin", user_id="s")
    with pytest.raises(LLMUnavailable):
        remote.embed(["the server is gone"])
