"""The word tables the readings use, read from the data files beside this module: one
entry a line, ``words | example``, where the example is an agent-memory sentence that the
tests read with the entry (``tests/reading/test_tables.py``). Lines starting with ``#``
are comments."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import resources


@dataclass(frozen=True, slots=True)
class Entry:
    words: tuple[str, ...]
    example: str


@cache
def entries(name: str) -> tuple[Entry, ...]:
    """The entries of data file ``name`` (without ``.txt``)."""
    data = resources.files("memfold.reading").joinpath("data").joinpath(f"{name}.txt")
    return parse_entries(name, data.read_text("utf-8"))


def parse_entries(name: str, text: str) -> tuple[Entry, ...]:
    """The entries of one data file's ``text``; a malformed line raises ValueError."""
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        words, sep, example = line.partition("|")
        if not sep or not words.split() or not example.strip():
            raise ValueError(f"{name}.txt line {number}: expected 'words | example'")
        out.append(Entry(tuple(words.lower().split()), example.strip()))
    return tuple(out)


@cache
def by_first_word(name: str) -> dict[str, tuple[Entry, ...]]:
    """The file's entries by their first word: a text is matched against the entries
    that start with one of its words, not against every entry."""
    out: dict[str, list[Entry]] = {}
    for entry in entries(name):
        out.setdefault(entry.words[0], []).append(entry)
    return {word: tuple(found) for word, found in out.items()}


@cache
def word_set(name: str) -> frozenset[str]:
    """Every word of the file's entries."""
    return frozenset(w for e in entries(name) for w in e.words)


@cache
def group_of(name: str) -> dict[str, str]:
    """Each word mapped to the first word of its entry (synonyms, units)."""
    out: dict[str, str] = {}
    for entry in entries(name):
        for word in entry.words:
            out.setdefault(word, entry.words[0])
    return out


@cache
def pairs(name: str) -> frozenset[frozenset[str]]:
    """The entries as unordered word pairs (antonyms)."""
    return frozenset(frozenset(e.words) for e in entries(name) if len(e.words) == 2)
