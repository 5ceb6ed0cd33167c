"""Passages of a long text: the windows a long memory is embedded as, besides its whole.

A sentence embedder reads at most a few hundred tokens and averages what it reads, so a
long memory's one vector is diluted: a question about one sentence deep inside it finds
it poorly. A text longer than ``min_words`` words is cut into windows of about
``words`` words, whole sentences where they fit, each overlapping the one before by
about ``overlap_words`` words; search scores the memory by its best window or its whole
vector. A shorter text has no passages (one vector, as before). Pure: no I/O, no model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memfold.config import EmbedSettings

# A sentence ends at . ! ? (closing quotes or brackets allowed) before white space, or
# at a line break; a line of a list or of code is its own piece.
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+|\s*\n\s*")


@dataclass(frozen=True, slots=True)
class PassagePlan:
    """How long texts are cut (``EmbedSettings``: passage_min_words, passage_words,
    passage_overlap_words, max_passages)."""

    min_words: int
    words: int
    overlap_words: int
    max_passages: int


def plan_of(settings: EmbedSettings) -> PassagePlan:
    return PassagePlan(
        settings.passage_min_words,
        settings.passage_words,
        settings.passage_overlap_words,
        settings.max_passages,
    )


def is_long(text: str, plan: PassagePlan) -> bool:
    """Whether ``text`` gets passages (more than ``plan.min_words`` words)."""
    return plan.min_words > 0 and word_count(text) > plan.min_words


def word_count(text: str) -> int:
    return len(text.split())


def _pieces(text: str, words: int) -> list[list[str]]:
    """The text's sentences as word lists, a sentence longer than ``words`` cut into
    runs of ``words`` words."""
    out: list[list[str]] = []
    for sentence in _SENTENCE_END.split(text):
        tokens = sentence.split()
        for start in range(0, len(tokens), words):
            out.append(tokens[start : start + words])
    return [p for p in out if p]


def passages(text: str, plan: PassagePlan) -> list[str]:
    """The windows of ``text`` (an empty list when it has ``plan.min_words`` words or
    fewer). Consecutive sentences are joined until the next would pass ``plan.words``;
    the next window starts with the last sentences of the one before that hold at most
    ``plan.overlap_words`` words. At most ``plan.max_passages`` windows, spread evenly
    over the text when there would be more."""
    if not is_long(text, plan):
        return []
    pieces = _pieces(text, max(plan.words, 1))
    windows: list[list[list[str]]] = []
    current: list[list[str]] = []
    size = 0
    for piece in pieces:
        if current and size + len(piece) > plan.words:
            windows.append(current)
            kept: list[list[str]] = []
            kept_size = 0
            for prev in reversed(current):
                if kept_size + len(prev) > plan.overlap_words:
                    break
                kept.insert(0, prev)
                kept_size += len(prev)
            if kept_size + len(piece) > plan.words:  # no room for the overlap
                kept, kept_size = [], 0
            current, size = kept, kept_size
        current.append(piece)
        size += len(piece)
    if current:
        windows.append(current)
    texts = [" ".join(" ".join(piece) for piece in window) for window in windows]
    if len(texts) <= 1:
        return []  # one window is the whole text again
    if len(texts) > plan.max_passages:
        step = len(texts) / plan.max_passages
        texts = [texts[int(i * step)] for i in range(plan.max_passages)]
    return texts
