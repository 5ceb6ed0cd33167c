"""The local embedder bounds a batch by padded tokens (rows x longest row), not only by
count: a run's memory grows with them (one run of 64 texts of 256 tokens took ~1.4 GB).
Short texts still share big batches, and the vectors do not depend on the batching."""

from __future__ import annotations

import itertools
import random
import threading
from typing import Any

import numpy as np
import pytest

from memfold import Settings
from memfold.embed import make_embedder
from memfold.embed.local import LocalEmbedder, plan_batches
from memfold.errors import ConfigError

LONG_WORDS = ["budget", "trip", "kitchen", "morning", "weekend", "doctor", "meeting", "recipe"]


def long_text(seed: int, words: int) -> str:
    rng = random.Random(seed)
    return f"Turn {seed}: " + " ".join(rng.choice(LONG_WORDS) for _ in range(words))


def padded(batch: list[int], lengths: list[int]) -> int:
    return len(batch) * max(lengths[i] for i in batch)


@pytest.mark.parametrize("seed", range(20))
def test_the_plan_never_exceeds_the_token_budget_and_keeps_every_text_once(seed: int) -> None:
    rng = random.Random(seed)
    budget = rng.choice([256, 512, 1024, 4096])
    max_rows = rng.choice([1, 7, 64])
    lengths = [rng.randint(2, 256) for _ in range(rng.randint(1, 400))]
    batches = plan_batches(lengths, max_rows=max_rows, max_padded_tokens=budget)
    assert sorted(i for batch in batches for i in batch) == list(range(len(lengths)))
    for batch in batches:
        assert 1 <= len(batch) <= max_rows
        assert padded(batch, lengths) <= budget
    # Shortest first: a batch pads little, and only the last batch of a length run is
    # cut short by the budget or the row limit.
    flat = [lengths[i] for batch in batches for i in batch]
    assert flat == sorted(flat)
    for batch, after in itertools.pairwise(batches):
        joined = [*batch, after[0]]
        assert len(joined) > max_rows or padded(joined, lengths) > budget


def test_short_texts_still_share_full_batches() -> None:
    lengths = [12, 16, 9, 14] * 50  # 200 short texts (16 tokens x 64 rows = 1024)
    batches = plan_batches(lengths, max_rows=64, max_padded_tokens=1024)
    assert [len(b) for b in batches] == [64, 64, 64, 8]


def test_long_texts_go_a_few_at_a_time_and_ties_keep_their_order() -> None:
    lengths = [256] * 10
    batches = plan_batches(lengths, max_rows=64, max_padded_tokens=1024)
    assert batches == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    # A mixed call: the short texts share one batch, the long ones split by the budget.
    mixed = [200, 10, 256, 12, 11, 250]
    assert plan_batches(mixed, max_rows=64, max_padded_tokens=512) == [
        [1, 4, 3],
        [0, 5],
        [2],
    ]


def test_a_text_over_the_budget_runs_alone() -> None:
    assert plan_batches([300, 5, 300], max_rows=8, max_padded_tokens=256) == [[1], [0], [2]]
    assert plan_batches([], max_rows=8, max_padded_tokens=256) == []


class ShapeRecorder:
    """Wraps the ONNX session: records each run's padded tokens and the most in flight."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.shapes: list[tuple[int, int]] = []
        self.in_flight = 0
        self.most_in_flight = 0
        self._lock = threading.Lock()

    def run(self, names: Any, feeds: dict[str, np.ndarray]) -> Any:
        rows, width = feeds["input_ids"].shape
        with self._lock:
            self.shapes.append((rows, width))
            self.in_flight += rows * width
            self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            return self.inner.run(names, feeds)
        finally:
            with self._lock:
                self.in_flight -= rows * width


def test_long_texts_run_within_the_configured_budget() -> None:
    settings = Settings(embed={"threads": 2, "max_batch_tokens": 512})
    local = make_embedder(settings.embed)
    assert isinstance(local, LocalEmbedder)
    recorder = ShapeRecorder(local._session)
    local._session = recorder
    texts = [long_text(i, 300) for i in range(12)] + [f"short text {i}" for i in range(30)]
    vectors = local.embed(texts)
    assert vectors.shape == (42, 384)
    assert all(rows * width <= 512 for rows, width in recorder.shapes)
    assert max(width for _, width in recorder.shapes) == 256  # cut at max_tokens
    assert sum(rows for rows, _ in recorder.shapes) == 42
    # Two runs at once (threads): never more than 2 x 512 padded tokens in flight.
    assert recorder.most_in_flight <= 2 * 512
    # The 30 short texts (5 tokens) still fill the row limit: 21 rows (42 texts / 2
    # threads) x 5 tokens is far within the budget.
    assert sorted(rows for rows, width in recorder.shapes if width < 16) == [9, 21]


def test_long_texts_embed_as_they_do_one_by_one(embedder: LocalEmbedder) -> None:
    # Lengths from a few tokens to past max_tokens, so batches pad to different widths.
    texts = [long_text(i, words) for i, words in enumerate([3, 40, 90, 150, 200, 260, 400] * 3)]
    together = embedder.embed(texts)
    alone = np.stack([embedder.embed([text])[0] for text in texts])
    assert np.allclose(together, alone, rtol=0, atol=1e-5)


def test_the_budget_comes_from_settings_and_must_hold_one_text() -> None:
    local = make_embedder(Settings(embed={"max_batch_tokens": 2048}).embed)
    assert isinstance(local, LocalEmbedder) and local._max_batch_tokens == 2048
    assert Settings().embed.max_batch_tokens == 1024
    with pytest.raises(ValueError, match="max_batch_tokens"):
        LocalEmbedder(max_batch_tokens=100, max_tokens=256)
    with pytest.raises(ConfigError, match="max_batch_tokens must be >= max_tokens"):
        Settings(embed={"max_batch_tokens": 200})
    assert Settings(embed={"max_batch_tokens": 200, "max_tokens": 128}).embed.max_tokens == 128
