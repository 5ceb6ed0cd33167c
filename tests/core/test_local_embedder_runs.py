"""The local embedder's runs: one single-threaded run a text, the same vectors as the
reference (the code before runs went single-threaded), concurrency bounded by config."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from memfold import Settings
from memfold.embed import make_embedder
from memfold.embed.local import LocalEmbedder

REFERENCE_TEXTS = [
    "User 7 likes green tea and hiking in the Alps, item 7",
    "A plane is taking off.",
    "x",
    "Sam moved from Berlin to Lisbon in March 2024 and now works remotely for a design studio.",
    "café naïve 日本語 emoji \U0001f600",
    "long " * 300,  # truncated at max_tokens
]
# Computed by the embedder of commit f52553b (intra-op pool of 2 threads, one locked run).
REFERENCE = Path(__file__).parent / "data" / "minilm_reference.npy"


class CountingSession:
    """Wraps the ONNX session: records how many runs overlap (each held a little)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.active = 0
        self.most = 0
        self.runs = 0
        self._lock = threading.Lock()

    def run(self, *args: Any, **kwargs: Any) -> Any:
        with self._lock:
            self.active += 1
            self.runs += 1
            self.most = max(self.most, self.active)
        try:
            time.sleep(0.02)
            return self.inner.run(*args, **kwargs)
        finally:
            with self._lock:
                self.active -= 1


def test_vectors_match_the_reference_alone_and_in_parallel_batches(
    embedder: LocalEmbedder,
) -> None:
    reference = np.load(REFERENCE)
    alone = np.stack([embedder.embed([text])[0] for text in REFERENCE_TEXTS])
    together = embedder.embed(REFERENCE_TEXTS * 3)  # >= parallel_min_texts: concurrent batches
    assert np.abs(alone - reference).max() <= 1e-6
    assert np.abs(together - np.tile(reference, (3, 1))).max() <= 1e-6


def test_a_run_uses_only_its_calling_thread(embedder: LocalEmbedder) -> None:
    assert embedder._session.get_session_options().intra_op_num_threads == 1


@pytest.mark.parametrize("threads", [1, 2])
def test_concurrent_runs_are_bounded_by_the_configured_threads(threads: int) -> None:
    settings = Settings(embed={"threads": threads, "parallel_min_texts": 4, "batch_size": 64})
    local = make_embedder(settings.embed)
    assert isinstance(local, LocalEmbedder)
    counting = CountingSession(local._session)
    local._session = counting
    texts = [f"sentence number {i} about the weather" for i in range(16)]
    vectors = local.embed(texts)
    assert counting.runs == threads  # 16 texts in `threads` batches
    assert counting.most == threads
    # Three callers at once never exceed the bound either.
    counting.most = 0
    callers = [threading.Thread(target=local.embed, args=(texts[:3],)) for _ in range(3)]
    for caller in callers:
        caller.start()
    for caller in callers:
        caller.join()
    assert counting.most <= threads
    assert np.abs(vectors[0] - local.embed(texts[:1])[0]).max() <= 1e-6


def test_a_small_call_is_one_batch() -> None:
    settings = Settings(embed={"threads": 2, "parallel_min_texts": 8})
    local = make_embedder(settings.embed)
    assert isinstance(local, LocalEmbedder)
    counting = CountingSession(local._session)
    local._session = counting
    local.embed([f"text {i}" for i in range(7)])
    assert counting.runs == 1 and counting.most == 1


def test_bad_run_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="parallel_min_texts"):
        LocalEmbedder(parallel_min_texts=1)
