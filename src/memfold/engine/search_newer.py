"""Newer-first ordering of a search page: a newer memory on the same topic as an older
one in the page is moved just above it, so a knowledge update ("the deadline moved to
April 25") outranks the statement it updates, which plain similarity often ranks first.

"Same topic" is the cosine between the two memories: ``update_similarity`` when the
newer one announces a change, else ``plain_similarity`` (a near restatement). A newer
memory announces a change when it holds a change cue ("new", "now", "moved", ...;
``has_update_cue``) or, with ``value_change``, when it states a number the
older one lacks while the older states numbers too: a changed value ("3 interviews"
then "5 interviews", "70% accuracy" then "95%") is what a knowledge update is, with or
without a cue word. Only the page is reordered, never its set, so recall at k is the
same with or without it. Chosen on the BEAM dev chats (docs/benchmarks.md, issue 10).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime

import numpy as np

from memfold.config_sections import SearchSettings
from memfold.model import SearchHit

# Words that usually announce a new value. They only reorder a page (never supersede
# anything), so they may be broader than the guards' change cues.
_UPDATE_WORDS = re.compile(
    r"\b(?:updat(?:e|ed|es|ing)|new|now|recently|increased|decreased|improved|adjusted|"
    r"resched\w*|moved|moving|changed|extended|instead|raised|lowered|switched|"
    r"no longer|anymore|reached|revised|postponed|pushed back)\b",
    re.IGNORECASE,
)
_NUMBER = re.compile(r"\d+(?:[.,:/-]\d+)*")


def has_update_cue(text: str) -> bool:
    """Does the text announce a change of something known ("the new deadline is...")?"""
    return _UPDATE_WORDS.search(text) is not None


def numbers(text: str) -> set[str]:
    """The numbers written in digits (thousands commas dropped)."""
    return {m.replace(",", "") for m in _NUMBER.findall(text)}


def value_changed(older: set[str], newer: set[str]) -> bool:
    """Does the newer text state a number the older lacks, the older stating numbers
    too (the same kind of fact with another value)?"""
    return bool(older) and bool(newer - older)


def newer_first_order(
    sims: np.ndarray,
    created: Sequence[datetime],
    bars: np.ndarray,
) -> list[int]:
    """An order of a page (given best first) in which a newer memory ``j`` is moved
    just above the highest-ranked older ``i`` with ``sims[i, j] >= bars[i, j]``."""
    order: list[int] = []
    for j in range(len(created)):
        spot = len(order)
        for pos, i in enumerate(order):
            if created[j] > created[i] and sims[i, j] >= bars[i, j]:
                spot = pos
                break
        order.insert(spot, j)
    return order


def newer_first_page(hits: list[SearchHit], cfg: SearchSettings) -> list[SearchHit]:
    """The page reordered newer-first (unchanged when a hit has no vector or the
    vectors differ in shape)."""
    vectors = [h.memory.embedding for h in hits if h.memory.embedding is not None]
    if len(hits) < 2 or len(vectors) != len(hits) or len({v.shape for v in vectors}) != 1:
        return hits
    stacked = np.stack(vectors)
    sims = stacked @ stacked.T
    update, plain = cfg.newer_first_update_similarity, cfg.newer_first_plain_similarity
    cue = np.array([has_update_cue(h.memory.text) for h in hits])
    # bars[i, j]: the similarity that puts j (if newer) above i
    bars = np.where(np.broadcast_to(cue, sims.shape), update, plain).astype(sims.dtype)
    if cfg.newer_first_value_change and update < plain:
        # only pairs whose similarity lies between the two bars can change
        undecided = (sims >= update) & (sims < plain) & ~cue[np.newaxis, :]
        if undecided.any():
            held = [numbers(h.memory.text) for h in hits]
            for i, j in zip(*np.nonzero(undecided), strict=True):
                if value_changed(held[i], held[j]):
                    bars[i, j] = update
    order = newer_first_order(sims, [h.memory.created_at for h in hits], bars)
    return [hits[i] for i in order]
