"""One reading of a text: its words with their lemma, part of speech and dependency, as a
parser gave them. Pure data; the parse itself is ``memfold.reading.parser``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple


class Word(NamedTuple):
    """A token of the parse. ``head`` is the index of the word it depends on (itself for a
    sentence's root); ``ent`` the entity type the parser gave ("" for none)."""

    text: str
    lemma: str
    pos: str
    tag: str
    dep: str
    head: int
    ent: str
    sent: int

    @property
    def low(self) -> str:
        return self.text.lower()


@dataclass(frozen=True, slots=True)
class Reading:
    """The parse of one text, in order. Built once per text and kept (see ``parser``)."""

    text: str
    words: tuple[Word, ...]

    def children(self, index: int) -> list[int]:
        return [i for i, w in enumerate(self.words) if w.head == index and i != index]

    def head_of(self, index: int) -> Word | None:
        word = self.words[index]
        return None if word.head == index else self.words[word.head]

    def to_rows(self) -> list[list[str | int]]:
        """A compact, JSON-ready form (one row a word), for storage beside a memory."""
        return [list(w) for w in self.words]

    @classmethod
    def from_rows(cls, text: str, rows: list[list[str | int]]) -> Reading:
        words = tuple(
            Word(
                text=str(r[0]),
                lemma=str(r[1]),
                pos=str(r[2]),
                tag=str(r[3]),
                dep=str(r[4]),
                head=int(r[5]),
                ent=str(r[6]),
                sent=int(r[7]),
            )
            for r in rows
        )
        return cls(text, words)
