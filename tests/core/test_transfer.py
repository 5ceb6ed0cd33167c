"""Export/import round-trips every field; reembed migrates foreign vectors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from memfold import EmbeddingMismatch, Memory
from memfold.embed.local import LocalEmbedder
from memfold.model import Link, LinkKind


def test_export_import_roundtrip(tmp_path: Path, embedder: LocalEmbedder) -> None:
    with Memory(tmp_path / "a.db", embedder=embedder, consolidate="off") as a:
        r1 = a.add(
            "Sam lives in Lyon",
            user_id="s",
            sources=["c1"],
            metadata={"k": [1, 2]},
            importance=0.8,
            area="main",
            category="episodic",
            created_at="2026-01-02T03:04:05+00:00",
        )
        r2 = a.add("Run make test", agent_id="bot", area="instruments")
        a.update(r1.memory.id, text="Sam lives in Berlin")
        a.delete(r2.memory.id)
        a.store.add_links([Link(r1.memory.id, r2.memory.id, LinkKind.RELATED)])
        assert a.export(tmp_path / "out.jsonl") == 2
        originals = {m.id: m for m in a.store.iter_memories()}
    with Memory(tmp_path / "b.db", embedder=embedder, consolidate="off") as b:
        report = b.import_(tmp_path / "out.jsonl")
        assert report.imported == 2 and report.links == 1
        for mid, orig in originals.items():
            got = b.get(mid)
            assert got.to_dict() == orig.to_dict()
            assert got.embedding is not None and orig.embedding is not None
            assert np.array_equal(got.embedding, orig.embedding)
        assert b.store.links_for([r1.memory.id])[0].dst == r2.memory.id
        again = b.import_(tmp_path / "out.jsonl")
        assert again.imported == 0 and again.existing == 2
        assert b.search("Berlin", user_id="s")[0].memory.id == r1.memory.id


class OtherModel:
    """A different embedder (same texts, other model id and dimension)."""

    model_id = "other-model"
    dim = 8

    def embed(self, texts: list[str]) -> np.ndarray:
        rng = np.random.default_rng(0)
        v = rng.normal(size=(len(texts), 8)).astype(np.float32)
        out: np.ndarray = v / np.linalg.norm(v, axis=1, keepdims=True)
        return out


def test_model_mismatch_is_clear_and_reembed_fixes_it(
    tmp_path: Path, embedder: LocalEmbedder
) -> None:
    path = tmp_path / "m.db"
    with Memory(path, embedder=OtherModel(), consolidate="off") as old:  # type: ignore[arg-type]
        old.add("Sam lives in Lyon", user_id="s")
        old.add("Sam likes tea", user_id="s")
    with Memory(path, embedder=embedder, consolidate="off") as mem:
        with pytest.raises(EmbeddingMismatch, match="reembed"):
            mem.search("Lyon", user_id="s")
        assert mem.reembed() == 2
        assert mem.search("Where does Sam live", user_id="s", mode="vector")[0].memory.text == (
            "Sam lives in Lyon"
        )
        assert mem.reembed() == 0
