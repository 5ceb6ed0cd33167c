"""Greedy clustering of fading memories into groups to compress (seed 004). Pure.

The seed's algorithm, made deterministic: memories are taken oldest first (created_at,
then id), whatever order they came in. Each one not yet grouped anchors a group: the
memories not yet grouped whose cosine with the anchor is at least ``similarity`` join it,
in that same order, until it holds ``size`` members (the seed stops there). A group that
reaches ``size`` is kept and its members are taken; a smaller one is dropped and its
members stay free to join a later anchor. So every memory is in at most one group, and
every group has exactly ``size`` members.

Only memories that share scope, area and category are grouped together; core memories,
memories that are not active and memories without a vector are never grouped (the tick
filters them already; this is the last word).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from memfold.config import LifecycleSettings
from memfold.model import Category, MemoryRecord, Status


def _groupable(record: MemoryRecord) -> bool:
    return (
        record.category is not Category.CORE
        and record.status is Status.ACTIVE
        and record.embedding is not None
        and bool(np.any(record.embedding))
    )


def _partition(records: Sequence[MemoryRecord]) -> list[list[MemoryRecord]]:
    """Records by (scope, area, category, vector size), each part oldest first."""
    parts: dict[tuple[str, str, str, int], list[MemoryRecord]] = {}
    for record in sorted(records, key=lambda r: (r.created_at, r.id)):
        if not _groupable(record):
            continue
        assert record.embedding is not None
        key = (record.scope.key(), record.area.value, record.category.value, record.embedding.size)
        parts.setdefault(key, []).append(record)
    return list(parts.values())


def greedy_groups(vectors: np.ndarray, *, similarity: float, size: int) -> list[list[int]]:
    """Row indexes of ``vectors`` grouped greedily (see the module docstring), in order."""
    count = len(vectors)
    if count < size or size < 1:
        return []
    matrix = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    unit = matrix / np.where(norms == 0.0, 1.0, norms)
    free = np.ones(count, dtype=bool)
    groups: list[list[int]] = []
    for anchor in range(count):
        if int(free.sum()) < size:
            break
        if not free[anchor]:
            continue
        close = (unit @ unit[anchor]) >= similarity
        close[anchor] = False
        members = [anchor, *np.flatnonzero(free & close)[: size - 1].tolist()]
        if len(members) >= size:
            free[members] = False
            groups.append(members)
    return groups


def cluster_fading(
    records: Sequence[MemoryRecord], cfg: LifecycleSettings
) -> list[list[MemoryRecord]]:
    """Groups of ``cfg.cluster_size`` records at cosine >= ``cfg.cluster_similarity`` with
    their anchor, each group oldest first; a record is in at most one group."""
    groups: list[list[MemoryRecord]] = []
    for part in _partition(records):
        vectors = np.stack([r.embedding for r in part if r.embedding is not None])
        for rows in greedy_groups(
            vectors, similarity=cfg.cluster_similarity, size=cfg.cluster_size
        ):
            groups.append(sorted((part[i] for i in rows), key=lambda r: (r.created_at, r.id)))
    return groups
