"""The review runs the report tests store: (P90, merges); the second run has no P90."""

from __future__ import annotations

RUNS: list[tuple[float | None, int]] = [(0.87, 5), (None, 0), (0.91, 7), (0.78, 2), (0.95, 12)]
