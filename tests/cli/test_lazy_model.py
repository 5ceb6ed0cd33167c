"""The embedder behind ``Memory`` is built on first use: reading loads no model."""

from __future__ import annotations

from pathlib import Path

import pytest

from memfold import ConfigError, Memory, Settings
from memfold.embed.lazy import LazyEmbedder
from memfold.embed.local import DIM, MODEL_ID


def test_reading_builds_no_embedder_and_search_does(db_path: Path, config_file: Path) -> None:
    with Memory(db_path, consolidate="off") as mem:
        memory_id = mem.add("Sam lives in Lyon", user_id="sam", embedding=[1.0] * DIM).memory.id
        lazy = mem.ctx.embedder
        assert isinstance(lazy, LazyEmbedder)
        mem.get(memory_id)
        mem.list(user_id="sam")
        mem.history(memory_id)
        mem.log()
        stats = mem.stats()
        assert stats["embedder"] == MODEL_ID and not lazy.loaded
        assert (lazy.model_id, lazy.dim) == (MODEL_ID, DIM)  # known without the model
        assert not lazy.loaded
        hits = mem.search("where does Sam live", user_id="sam")
        assert lazy.loaded and [h.memory.id for h in hits] == [memory_id]


def test_an_incomplete_endpoint_is_still_refused_at_open(db_path: Path, config_file: Path) -> None:
    settings = Settings.model_validate({"embed": {"provider": "openai", "model": "m"}})
    with pytest.raises(ConfigError, match="needs base_url and model"):
        Memory(db_path, settings=settings)
