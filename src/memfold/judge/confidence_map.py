"""A model's action probability mapped to how often such a decision is right.

A token probability is the model's own score, not yet a frequency: the local 1.5B model
puts most of its right decisions at 0.2-0.5 (docs/benchmarks.md). ``llm.<role>.
confidence_anchors`` holds (raw, calibrated) points fitted on labelled decisions
(``memfold eval --suite scenarios --judge llm`` prints them); between anchors the map is
linear, beyond the first and last it is flat, and with no anchors it is the identity.
Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

from memfold.config_check import Anchor


def calibrated(raw: float, anchors: Sequence[Anchor]) -> float:
    """``raw`` read on the anchors' line (the identity without anchors)."""
    if not anchors:
        return raw
    if raw <= anchors[0][0]:
        return anchors[0][1]
    for (r0, c0), (r1, c1) in pairwise(anchors):
        if raw <= r1:
            return c0 + (c1 - c0) * (raw - r0) / (r1 - r0)
    return anchors[-1][1]
