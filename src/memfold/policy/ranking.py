"""Re-ranking of search results. Pure: vectors, times and cues in, an order out."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import numpy as np


def newer_first(
    vectors: np.ndarray,
    created: Sequence[datetime],
    is_update: Sequence[bool],
    *,
    update_similarity: float,
    plain_similarity: float,
) -> list[int]:
    """An order of results (given best first) in which a newer memory never ranks below
    an older one on the same topic: cosine between the two >= ``update_similarity`` when
    the newer one announces a change (``is_update``), else >= ``plain_similarity``.

    A knowledge update ("the deadline moved to April 25") is often less similar to the
    question than the statement it updates, so plain similarity ranks the stale fact
    first. Moving each newer sibling just above its highest-ranked older sibling keeps
    the result set (and so recall@k) unchanged and only reorders within it.
    """
    n = len(created)
    if n < 2:
        return list(range(n))
    sims = vectors @ vectors.T
    order: list[int] = []
    for j in range(n):
        bar = update_similarity if is_update[j] else plain_similarity
        spot = len(order)
        for pos, i in enumerate(order):
            if sims[i, j] >= bar and created[j] > created[i]:
                spot = pos
                break
        order.insert(spot, j)
    return order
