"""Synonyms from WordNet, where its database is installed (Debian's ``wordnet-base``
puts it in /usr/share/wordnet; ``MEMFOLD_WORDNET`` names another folder, or "" for
none). Two words are synonyms when they share a sense among the first few of each, for
one part of speech: "main" / "primary", "gran" / "grandmother", "boy" / "son" (WordNet
orders a word's senses by how often they are used, so a rare sense makes no synonym:
"teach" is no "learn"). Co-hyponyms are never synonyms: "wrist" / "ankle", "Tuesday" /
"Wednesday", "sister" / "brother". Without the database no two words are synonyms and
the word tables alone speak (``data/synonyms.txt``). Pure after the first read."""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import cache
from pathlib import Path

DEFAULT_FOLDER = "/usr/share/wordnet"
# How many of a word's senses, most used first, may make it a synonym.
SENSES = 3
# How many steps up from a word's senses a thing it is a kind of may be.
DEPTH = 3
_FILES = {"n": "noun", "v": "verb", "a": "adj", "r": "adv"}
_PARTS = {"NOUN": "n", "PROPN": "n", "VERB": "v", "ADJ": "a", "ADV": "r"}
_DATA_PARTS = {"s": "a"}  # an adjective satellite is in the adjectives' data file

__all__ = ["Lexicon", "kind_of", "lexicon", "related", "synonyms"]


class Lexicon:
    """A WordNet database's index: each word's most used senses, per part of speech,
    kept as one short string a word (about 24 MB for the whole of WordNet 3.0)."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self._senses: dict[str, str] = {}
        self._related: dict[tuple[str, str], frozenset[str]] = {}
        self._kinds: dict[tuple[str, str], frozenset[str]] = {}
        if folder is not None:
            for part, name in _FILES.items():
                index = folder / f"index.{name}"
                if index.is_file():
                    self._read(part, index)

    @property
    def loaded(self) -> bool:
        return bool(self._senses)

    def _read(self, part: str, index: Path) -> None:
        with index.open(encoding="latin-1") as lines:
            for line in lines:
                if line.startswith(" "):
                    continue  # the licence at the top
                fields = line.split()
                if len(fields) < 7 or not fields[3].isdigit():
                    continue
                first = 6 + int(fields[3])  # the sense offsets follow the pointer symbols
                self._senses[f"{fields[0]} {part}"] = " ".join(fields[first : first + SENSES])

    def senses(self, lemma: str, pos: str) -> frozenset[str]:
        """The most used senses of ``lemma`` as part of speech ``pos`` (spaCy's tag)."""
        part = _PARTS.get(pos)
        if part is None:
            return frozenset()
        found = self._senses.get(f"{lemma.lower().replace(' ', '_')} {part}", "")
        return frozenset(found.split())

    def related(self, lemma: str, pos: str) -> frozenset[str]:
        """The words WordNet derives from ``lemma``'s most used senses, or it from them,
        in any part of speech ("player" / "play", "subscription" / "subscribe"); of a
        phrase, only "be" and one word ("birth": "born")."""
        return self._kept(self._related, lemma, pos, self._derivations)

    def kinds(self, lemma: str, pos: str) -> frozenset[str]:
        """The words of what ``lemma``'s most used senses are kinds of, up to ``DEPTH``
        steps up ("marathon": race, footrace, contest, ...)."""
        return self._kept(self._kinds, lemma, pos, self._hypernyms)

    def _kept(
        self,
        store: dict[tuple[str, str], frozenset[str]],
        lemma: str,
        pos: str,
        compute: Callable[[str, str], frozenset[str]],
    ) -> frozenset[str]:
        """``compute(word, part)`` for the word as WordNet writes it, kept in ``store``;
        empty where there is no database or no such part of speech."""
        part = _PARTS.get(pos)
        if part is None or self.folder is None:
            return frozenset()
        key = (lemma.lower().replace(" ", "_"), part)
        found = store.get(key)
        if found is None:
            found = store[key] = compute(*key)
        return found

    def _derivations(self, word: str, part: str) -> frozenset[str]:
        offsets = self._senses.get(f"{word} {part}", "").split()
        return frozenset(w for offset in offsets for w in self._derived(word, part, offset))

    def _hypernyms(self, word: str, part: str) -> frozenset[str]:
        words: set[str] = set()
        level = self._senses.get(f"{word} {part}", "").split()
        for _ in range(DEPTH):
            level = [up for offset in level for up in self._up(part, offset, words)]
        return frozenset(words)

    def _up(self, part: str, offset: str, words: set[str]) -> list[str]:
        """The hypernyms of the synset at ``offset``, adding their words to ``words``."""
        fields = self._line(part, offset)
        if not fields:
            return []
        count = int(fields[3], 16)
        at = 4 + 2 * count
        out = []
        for _ in range(int(fields[at])):
            symbol, target, target_part = fields[at + 1 : at + 4]
            at += 4
            if symbol in ("@", "@i") and target_part == part:
                line = self._line(part, target)
                if line:
                    n = int(line[3], 16)
                    words.update(line[4 + 2 * i].lower() for i in range(n))
                    out.append(target)
        return out

    def _derived(self, word: str, part: str, offset: str) -> list[str]:
        fields = self._line(part, offset)
        if not fields:
            return []
        count = int(fields[3], 16)
        members = [fields[4 + 2 * i].lower() for i in range(count)]
        at = 4 + 2 * count
        out: list[str] = []
        for _ in range(int(fields[at])):
            symbol, target, target_part, numbers = fields[at + 1 : at + 5]
            at += 4
            source = int(numbers[:2], 16)
            if symbol != "+" or (source and members[source - 1] != word):
                continue
            line = self._line(target_part, target)
            goal = int(numbers[2:], 16)
            if not line or not goal:
                continue
            parts = [w for w in line[4 + 2 * (goal - 1)].lower().split("_") if w != "be"]
            if len(parts) == 1:  # "be_born": "born"; no other phrase
                out += parts
        return out

    def _line(self, part: str, offset: str) -> list[str]:
        """The fields of the data file's synset at ``offset`` (a byte offset)."""
        assert self.folder is not None
        data = self.folder / f"data.{_FILES[_DATA_PARTS.get(part, part)]}"
        if not data.is_file():
            return []
        with data.open("rb") as lines:
            lines.seek(int(offset))
            return lines.readline().decode("latin-1").split()


@cache
def lexicon() -> Lexicon:
    """The installed lexicon (read once), or an empty one."""
    named = os.environ.get("MEMFOLD_WORDNET")
    folder = Path(named if named is not None else DEFAULT_FOLDER) if named != "" else None
    if folder is not None and not (folder / "index.noun").is_file():
        folder = None
    return Lexicon(folder)


def related(lemma: str, pos: str) -> frozenset[str]:
    """The words derived from ``lemma`` or it from them ("player" / "play"), if any."""
    return lexicon().related(lemma, pos)


def kind_of(x: str, y: str) -> bool:
    """Whether the noun ``x`` is a kind of the noun ``y`` ("marathon" / "race")."""
    return y.lower().replace(" ", "_") in lexicon().kinds(x, "NOUN")


def synonyms(x: str, x_pos: str, y: str, y_pos: str) -> bool:
    """Whether two lemmas share one of their most used senses (one part of speech)."""
    if x == y or _PARTS.get(x_pos) != _PARTS.get(y_pos):
        return False
    found = lexicon()
    return bool(found.senses(x, x_pos) & found.senses(y, y_pos))
