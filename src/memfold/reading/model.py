"""One reading of a text: its words with their lemma, part of speech and dependency, as a
parser gave them. Pure data; the parse itself is ``memfold.reading.parser``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple


class Word(NamedTuple):
    """A token of the parse. ``head`` is the index of the word it depends on (itself for a
    sentence's root)."""

    text: str
    lemma: str
    pos: str
    tag: str
    dep: str
    head: int
    sent: int

    @property
    def low(self) -> str:
        return self.text.lower()


@dataclass(frozen=True, slots=True)
class Reading:
    """The parse of one text, in order. Built once per text and kept (see ``parser``)."""

    text: str
    words: tuple[Word, ...]
