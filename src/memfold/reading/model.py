"""One reading of a text: its words with their lemma, part of speech and dependency, as a
parser gave them; and a difference that a comparison of two readings names. Pure data;
the parse itself is ``memfold.reading.parser``."""

from __future__ import annotations

from collections.abc import Iterable
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


@dataclass(frozen=True, slots=True)
class Difference:
    """One difference, named for the log: ``kind`` and what was seen."""

    kind: str
    detail: str
    # What differs, as the facts key it (a stem, a name, a value's key): for coverage.
    item: str = ""
    # A detail one text adds that the other has nothing in place of (no substitution):
    # a fold that keeps both texts' details may still be one fact.
    added: bool = False

    def __str__(self) -> str:
        return f"{self.kind}: {self.detail}"


def listed(items: Iterable[str]) -> str:
    return ", ".join(f"'{i}'" for i in sorted(set(items))) or "none"
