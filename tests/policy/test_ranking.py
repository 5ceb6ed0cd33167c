"""Newer-first re-ranking: pure, on hand-made vectors and times."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np

from memfold.policy.ranking import newer_first
from memfold.policy.text import has_update_cue

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def _unit(*xs: float) -> np.ndarray:
    v = np.array(xs, dtype=np.float32)
    return v / np.linalg.norm(v)


def test_newer_update_moves_above_its_older_sibling_only() -> None:
    old_fact = _unit(1, 0.2, 0)
    unrelated = _unit(0, 0, 1)
    update = _unit(1, 0.9, 0)  # cosine with old_fact ~0.81... below plain 0.9, above 0.5
    vectors = np.stack([old_fact, unrelated, update])
    created = [T0, T0 + timedelta(days=1), T0 + timedelta(days=2)]
    kw = {"update_similarity": 0.5, "plain_similarity": 0.9}
    assert newer_first(vectors, created, [False, False, True], **kw) == [2, 0, 1]
    # The same text without a change cue needs the plain (near-duplicate) similarity.
    assert newer_first(vectors, created, [False, False, False], **kw) == [0, 1, 2]
    # An older memory is never moved up.
    assert newer_first(vectors, created[::-1], [True, True, True], **kw) == [0, 1, 2]


def test_set_is_unchanged_and_small_inputs() -> None:
    rng = np.random.default_rng(0)
    vecs = rng.normal(size=(10, 8)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    created = [T0 + timedelta(hours=int(h)) for h in rng.permutation(10)]
    order = newer_first(vecs, created, [True] * 10, update_similarity=-1, plain_similarity=-1)
    assert sorted(order) == list(range(10))
    # With every pair "on topic", the result is newest first.
    assert [created[i] for i in order] == sorted(created, reverse=True)
    assert newer_first(vecs[:1], created[:1], [True], update_similarity=0, plain_similarity=0) == [
        0
    ]


def test_update_cues() -> None:
    assert has_update_cue("I'm trying to meet the new April 25 deadline")
    assert has_update_cue("my word count was adjusted to 1,350")
    assert has_update_cue("the meeting is rescheduled to 4:30 PM")
    assert not has_update_cue("Sam lives in Lyon")
    assert not has_update_cue("renewal of the newsletter")  # whole words only
