"""A fact told by its predicate or by a noun that names its value: "The user was born in
Accra" / "Accra is the user's birthplace", "Olu reports to Funmi" / "Funmi is Olu's
manager", "Abstracts are due by May 3" / "The deadline for abstracts is May 3"
(``data/predicate_nouns.txt``). Where one text tells by the noun what the other tells by
the predicate, of one subject, and says nothing else, the newer is read in the older's
shape: the older's own text with its value as the newer writes it, so that the value is
compared as written and every other word is the older's. Pure."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, lru_cache

from memfold.reading import parser, tables
from memfold.reading.acronyms import abbreviates
from memfold.reading.facts import on_forget
from memfold.reading.keys import stem
from memfold.reading.model import Word

__all__ = ["as_shaped_by_older", "nouns_for", "other_attributes"]

_ARTICLES = frozenset(("the", "a", "an"))
_SUBJECTS = frozenset(("nsubj", "nsubjpass"))
_AUX = frozenset(("aux", "auxpass"))
_OWNING = frozenset(("of", "for"))  # "the deadline for abstracts", "the name of the project"
_TEXTS_KEPT = 4096


@dataclass(frozen=True, slots=True)
class Shape:
    """How a text of one clause tells one fact: its subject's words (the owner's, for a
    noun), the predicate's keys or the noun, and where its value stands in the text."""

    subject: tuple[str, ...]
    keys: tuple[str, ...]
    start: int
    end: int
    noun: bool


@cache
def _nouns() -> dict[str, frozenset[str]]:
    """Each predicate mapped to the nouns that name its value."""
    out: dict[str, set[str]] = {}
    for entry in tables.entries("predicate_nouns"):
        words = list(entry.words)
        at = words.index("/") if "/" in words else 0
        if not 0 < at < len(words) - 1:
            raise ValueError(f"predicate_nouns.txt: expected 'predicate / noun' in {words}")
        out.setdefault(" ".join(words[:at]), set()).add(" ".join(words[at + 1 :]))
    return {key: frozenset(found) for key, found in out.items()}


def nouns_for(predicate: str) -> frozenset[str]:
    """The nouns that name the value of ``predicate`` ("born in": birthplace, ...)."""
    return _nouns().get(predicate, frozenset())


def as_shaped_by_older(older: str, newer: str) -> str:
    """``newer`` in the older's shape where one tells by a noun what the other tells by
    its predicate, of the same subject ("Accra is the user's birthplace" read as "The
    user was born in Accra" against that text); otherwise ``newer`` itself."""
    ours, theirs = shape(older), shape(newer)
    if ours is None or theirs is None or ours.noun == theirs.noun:
        return newer
    noun, told = (ours, theirs) if ours.noun else (theirs, ours)
    if not any(noun.keys[0] in nouns_for(key) for key in told.keys):
        return newer
    if not _same_subject(ours.subject, theirs.subject):
        return newer
    return older[: ours.start] + newer[theirs.start : theirs.end] + older[ours.end :]


def other_attributes(older: str, newer: str) -> tuple[str, str] | None:
    """The two predicates, where both texts tell a fact of one subject by predicates whose
    values the table's nouns name apart: "Aiko lives in Sapporo" (home) / "Aiko was born
    in Sapporo" (birthplace) tell two things of Aiko, whatever the place. None where
    either predicate is not the table's or they share a noun."""
    ours, theirs = shape(older), shape(newer)
    if ours is None or theirs is None or ours.noun or theirs.noun:
        return None
    if not _same_subject(ours.subject, theirs.subject):
        return None
    mine = next((key for key in ours.keys if nouns_for(key)), None)
    other = next((key for key in theirs.keys if nouns_for(key)), None)
    if mine is None or other is None or nouns_for(mine) & nouns_for(other):
        return None
    return mine, other


@lru_cache(maxsize=_TEXTS_KEPT)
def shape(text: str) -> Shape | None:
    """The one fact ``text`` tells by a predicate or by a noun, or None."""
    words = parser.read(text).words
    spans = _offsets(text, words)
    end = len(words)
    while end and words[end - 1].dep == "punct":
        end -= 1
    roots = [i for i, w in enumerate(words[:end]) if w.dep == "ROOT"]
    if spans is None or len(roots) != 1 or any(w.sent for w in words):
        return None
    root = roots[0]
    found = _by_noun(words, root, end) or _by_predicate(words, root, end)
    if found is None:
        return None
    subject, keys, first, last, noun = found
    return Shape(subject, keys, spans[first][0], spans[last - 1][1], noun)


_Found = tuple[tuple[str, ...], tuple[str, ...], int, int, bool]


def _by_predicate(words: tuple[Word, ...], root: int, end: int) -> _Found | None:
    """ "<subject> [aux] <verb> [<preposition>] <value>", or "<subject> is <adjective>
    [<preposition>] <value>", or "<subject> is <preposition> <value>"."""
    subject_end = _subject_end(words, root)
    if subject_end is None or any(w.dep not in _AUX for w in words[subject_end:root]):
        return None
    said, at = root, root + 1
    if words[root].lemma == "be":
        if at < end and words[at].dep == "acomp" and words[at].head == root:
            said, at = at, at + 1  # "is due", "is located"
        elif not (at < end and words[at].dep == "prep"):
            return None
    elif words[root].pos != "VERB":
        return None
    prep = ""
    if at < end and words[at].dep == "prep" and words[at].head == said:
        prep, at = words[at].low, at + 1
    if at >= end or any(_another_clause(words, i, (root, said)) for i in range(at, end)):
        return None
    # "due by" is told by "due"'s nouns too: the table names a preposition where the
    # predicate's meaning needs one ("born in" / "born on").
    forms = dict.fromkeys((words[said].low, words[said].lemma))
    keys = tuple(dict.fromkeys([*(f"{form} {prep}".strip() for form in forms), *forms]))
    return _words(words[:subject_end]), keys, at, end, False


def _another_clause(words: tuple[Word, ...], i: int, verbs: tuple[int, int]) -> bool:
    """Word ``i`` of the value starts a clause of its own ("... in Lisbon and lives in
    Porto"): a verb, or a conjunct of the predicate."""
    word = words[i]
    return word.pos in ("VERB", "AUX") or (word.dep in ("conj", "cc") and word.head in verbs)


def _by_noun(words: tuple[Word, ...], root: int, end: int) -> _Found | None:
    """ "<owner>'s <noun> is <value>", "the <noun> for <owner> is <value>", or "<value> is
    <owner>'s <noun>", the noun one of the table's."""
    if words[root].lemma != "be":
        return None
    children = [i for i, w in enumerate(words[:end]) if w.head == root and i != root]
    deps = sorted(words[i].dep for i in children)
    # A name the small model does not know may be read as an adjective: "The site's host
    # is Netlify" (acomp).
    if deps not in (["attr", "nsubj"], ["acomp", "nsubj"]):
        return None
    subject = next(i for i in children if words[i].dep == "nsubj")
    value = next(i for i in children if words[i].dep in ("attr", "acomp"))
    if _subject_end(words, root) != root or value != _first_after(words, root):
        return None
    for side, (first, last), (other, other_last) in (
        (subject, (0, root), (root + 1, end)),
        (value, (root + 1, end), (0, root)),
    ):
        told = _owned_noun(words, side, first, last)
        if told is not None and other < other_last:
            owner, noun = told
            return owner, (noun,), other, other_last, True
    return None


def _owned_noun(
    words: tuple[Word, ...], head: int, first: int, last: int
) -> tuple[tuple[str, ...], str] | None:
    """The owner's words and the table's noun, where the words ``first``..``last``
    (headed by ``head``) are an owner's noun: "Beatriz's date of birth"."""
    owners = [i for i in range(first, last) if words[i].head == head and words[i].dep == "poss"]
    preps = [
        i
        for i in range(first, last)
        if words[i].head == head and words[i].dep == "prep" and words[i].low in _OWNING
    ]
    if len(owners) == 1:
        owned = _subtree(words, owners[0])
    elif not owners and preps:
        objects = [i for i in range(first, last) if words[i].head == preps[-1]]
        if len(objects) != 1:
            return None
        owned = _subtree(words, objects[0]) | {preps[-1]}
    else:
        return None
    rest = [
        i
        for i in range(first, last)
        if i not in owned and words[i].low not in _ARTICLES and words[i].dep != "case"
    ]
    noun = " ".join(words[i].lemma if i == head else words[i].low for i in rest)
    if not any(noun in found for found in _nouns().values()):
        return None
    owner = _words(tuple(words[i] for i in sorted(owned) if words[i].dep != "prep"))
    return (owner, noun) if owner else None


def _subject_end(words: tuple[Word, ...], root: int) -> int | None:
    """Where the subject of ``root`` ends, if it is all the words before the verb's
    auxiliaries."""
    subjects = [i for i in range(root) if words[i].head == root and words[i].dep in _SUBJECTS]
    if len(subjects) != 1:
        return None
    told = _subtree(words, subjects[0])
    end = max(told) + 1
    return end if told == set(range(end)) else None


def _first_after(words: tuple[Word, ...], root: int) -> int | None:
    """The head of the words after ``root``: the one whose head is the root."""
    return next((i for i in range(root + 1, len(words)) if words[i].head == root), None)


def _subtree(words: tuple[Word, ...], top: int) -> set[int]:
    found = {top}
    grew = True
    while grew:
        more = {i for i, w in enumerate(words) if w.head in found and i not in found}
        found |= more
        grew = bool(more)
    return found


def _words(told: tuple[Word, ...]) -> tuple[str, ...]:
    return tuple(w.low for w in told if w.low not in _ARTICLES and w.dep != "case")


def _same_subject(x: tuple[str, ...], y: tuple[str, ...]) -> bool:
    """One subject in both: the same words (by stem), or the words one text has and the
    other not told by initials ("the NYC office" / "the New York City office")."""
    if [stem(w) for w in x] == [stem(w) for w in y]:
        return bool(x)
    ours = [w for w in x if w not in y]
    theirs = [w for w in y if w not in x]
    if len(ours) == 1 and len(theirs) > 1:
        return abbreviates(ours[0], " ".join(theirs))
    if len(theirs) == 1 and len(ours) > 1:
        return abbreviates(theirs[0], " ".join(ours))
    return False


def _offsets(text: str, words: tuple[Word, ...]) -> list[tuple[int, int]] | None:
    """Where each word stands in ``text`` (None if the words are not found in order)."""
    out, at = [], 0
    for word in words:
        found = text.find(word.text, at)
        if found < 0:
            return None
        at = found + len(word.text)
        out.append((found, at))
    return out


on_forget(shape.cache_clear)
