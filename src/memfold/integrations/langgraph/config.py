"""The settings of ``MemfoldStore`` that memfold's own ``Settings`` does not hold: how a
query search re-ranks, the cache of field vectors, the TTL sweeper's default pace."""

from __future__ import annotations

import math
from dataclasses import dataclass

from memfold.errors import InvalidInput


@dataclass(frozen=True, slots=True)
class MemfoldStoreConfig:
    """``rerank_pool``: how many of memfold's hybrid hits per namespace a query search
    scores LangGraph's way (the best cosine over the item's indexed fields) and orders
    by that score. A namespace of at most that many items is ranked exactly; pages are
    stable (never repeat an item) while ``offset + limit`` stays within it, beyond it the
    pool is ``offset + limit`` hits.
    ``scan_limit``: the most hits a query search reads per namespace when part of its
    filter is checked after the search (nested-dict, list and dotted-path terms).
    ``field_vector_cache``: how many field vectors (of items indexed on several fields)
    are kept in memory between searches; 0 embeds them at every search.
    ``sweep_interval_minutes``: how often ``start_ttl_sweeper`` sweeps when neither its
    argument nor the store's TTL config says (LangGraph's default, 5).
    """

    rerank_pool: int = 100
    scan_limit: int = 10_000
    field_vector_cache: int = 4096
    sweep_interval_minutes: float = 5.0

    def __post_init__(self) -> None:
        for name in ("rerank_pool", "scan_limit"):
            _int_at_least(name, getattr(self, name), 1)
        _int_at_least("field_vector_cache", self.field_vector_cache, 0)
        minutes = self.sweep_interval_minutes
        if (
            isinstance(minutes, bool)
            or not isinstance(minutes, int | float)
            or not math.isfinite(minutes)
            or minutes <= 0
        ):
            raise InvalidInput(f"sweep_interval_minutes must be > 0, got {minutes!r}")


def _int_at_least(name: str, value: object, low: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise InvalidInput(f"{name} must be an int >= {low}, got {value!r}")
