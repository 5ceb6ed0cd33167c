"""Scan: blocked products find exactly the brute-force pair list."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from memfold import Memory
from memfold.engine.review.scan import find_pairs, scan
from memfold.model import Scope


def clustered(n: int, dim: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((n // 4, dim))
    m = centres[rng.integers(0, n // 4, n)] + 0.5 * rng.standard_normal((n, dim)) / np.sqrt(dim)
    out: np.ndarray = (m / np.linalg.norm(m, axis=1, keepdims=True)).astype(np.float32)
    return out


def brute(m: np.ndarray, threshold: float) -> set[tuple[int, int]]:
    sims = m @ m.T
    return {(i, j) for i in range(len(m)) for j in range(i + 1, len(m)) if sims[i, j] >= threshold}


@pytest.mark.parametrize("block", [1, 7, 64, 1000])
def test_find_pairs_equals_brute_force(block: int) -> None:
    m = clustered(150, 32, seed=block)
    r, c, s = find_pairs(m, 0.82, block)
    got = set(zip(r.tolist(), c.tolist(), strict=True))
    assert got == brute(m, 0.82) and len(got) == r.size and got
    assert np.allclose(s, np.einsum("ij,ij->i", m[r], m[c]), atol=1e-5)


def test_find_pairs_empty() -> None:
    r, _, _ = find_pairs(np.zeros((0, 8), dtype=np.float32), 0.82, 4)
    assert r.size == 0


def test_scan_queues_every_pair_once(open_mem: Callable[..., Memory]) -> None:
    mem = open_mem(scan_block_rows=50)
    m = clustered(200, mem.ctx.embedder.dim, seed=3)
    records = mem.add_many([{"text": f"m{i}"} for i in range(200)], embeddings=m.tolist())
    ids = [r.memory.id for r in records]
    result = scan(mem.ctx, Scope(user_id="default"))
    stored = mem.ctx.embedder  # noqa: F841 - keep the session embedder alive
    expected = {tuple(sorted((ids[i], ids[j]))) for i, j in brute(m, 0.82)}
    rows = mem.store.queue_items()
    assert {(it.memory_a, it.memory_b) for it in rows} == expected
    assert result.pairs == result.queued == len(expected)
    assert all(it.status == "pending" and it.version_a == 1 == it.version_b for it in rows)
    again = scan(mem.ctx, Scope(user_id="default"))
    assert again.queued == 0 and len(mem.store.queue_items()) == len(expected)
