"""What a sentence is about, read from its opening words, and words spelled as two.

Paraphrase alignment compares who does what to whom by the subject: "a dog carries a
man" / "a man carries a dog" differ. Describing words are read past ("a white and brown
dog" / "a brown and white dog", "a dog, which is brown"), nouns joined by "and" are one
subject in either order, and the describing words are kept, so that one moved to another
thing ("the young dog bit the old man" / "the old dog bit the young man") is seen. Pure:
no I/O, no part-of-speech tagger.
"""

from __future__ import annotations

import functools
import itertools

from memfold.policy.wording import lexicon as lx
from memfold.policy.wording.concepts import FRAMES, concept_of


def compound_parts(whole: str, words: tuple[str, ...]) -> frozenset[str]:
    """The concepts of two neighbouring ``words`` that spell ``whole`` (a concept) as
    one word ("sun glasses" for "sunglass", "re-election" for "reelection"), else
    empty."""
    for first, second in itertools.pairwise(words):
        rest = whole[len(first) :]
        if not (rest and whole.startswith(first) and second.startswith(rest[:3])):
            continue  # cheap test first: most neighbours spell nothing like ``whole``
        if first.isalpha() and second.isalpha() and concept_of(first + second) == whole:
            parts = frozenset(c for c in (concept_of(first), concept_of(second)) if c)
            if whole not in parts:
                return parts
    return frozenset()


def _after_fronted(words: list[str]) -> list[str]:
    """``words`` without a fronted phrase ("For indentation, ...")."""
    if "," in words[:6]:
        lead = words[: words.index(",")]
        if lead and lead[0] in _LEADING_PREPOSITIONS:
            return words[words.index(",") + 1 :]
    return words


def first_concept(words: list[str]) -> str:
    """The first concept, roughly the subject: a fronted phrase ("For indentation, ...",
    "Every Thursday ..."), times, dates and numbers skipped."""
    for word in _after_fronted(words):
        concept = concept_of(word)
        if concept and not concept[:1].isdigit() and concept not in FRAMES:
            return concept
    return ""


_SKIPPED_BEFORE_SUBJECT = frozenset(["a", "an", "the", "some", "and", ","])
_RELATIVE = frozenset(["which", "who", "that"])
_COPULAS = frozenset(["is", "are", "was", "were"])


def subject_phrase(words: list[str]) -> tuple[frozenset[str], frozenset[str]]:
    """The subject's nouns and the words that describe it (both as concepts): "the white
    and brown dog runs" -> ({dog}, {white, brown}); "a dog, which is brown, jumps" ->
    ({dog}, {brown}); "a man and a woman dance" -> ({man, woman}, {}). Without a part of
    speech tagger this is a reading of the opening words only; empty when it finds none."""
    words = _after_fronted(words)
    describing = _describing()
    heads: list[str] = []
    described: set[str] = set()
    i = 0
    while i < len(words):
        word = words[i]
        concept = concept_of(word)
        if word in _SKIPPED_BEFORE_SUBJECT or concept[:1].isdigit() or concept in FRAMES:
            i += 1
            continue
        if not concept:
            break
        if concept in describing and _noun_follows(words, i + 1, describing):
            described.add(concept)
            i += 1
            continue
        heads.append(concept)
        i += 1
        # "a man and a woman": nouns joined by "and" are one subject, in either order.
        if i + 1 < len(words) and words[i] == "and":
            j = i + 1
            while j < len(words) and words[j] in _SKIPPED_BEFORE_SUBJECT:
                j += 1
            following = concept_of(words[j]) if j < len(words) else ""
            if following and following not in describing and not following[:1].isdigit():
                heads.append(following)
                i = j + 1
        break
    # "a dog, which is brown and white, ...": the clause describes the subject.
    j = i + (1 if i < len(words) and words[i] == "," else 0)
    if j + 1 < len(words) and words[j] in _RELATIVE and words[j + 1] in _COPULAS:
        j += 2
        while j < len(words) and (words[j] in ("and", ",") or concept_of(words[j]) in describing):
            if concept_of(words[j]):
                described.add(concept_of(words[j]))
            j += 1
    return frozenset(heads), frozenset(described)


def _noun_follows(words: list[str], start: int, describing: frozenset[str]) -> bool:
    """Whether a describing word at ``start - 1`` stands before a noun it describes (the
    next word that is not "and", "," or another describing word has a concept)."""
    for word in words[start:]:
        if word in ("and", ","):
            continue
        concept = concept_of(word)
        if concept in describing:
            continue
        return bool(concept) and not concept[:1].isdigit()
    return False


@functools.lru_cache(maxsize=1)
def _describing() -> frozenset[str]:
    return frozenset(concept_of(w) for w in lx.SUBJECT_MODIFIERS)


_LEADING_PREPOSITIONS = frozenset(
    [
        "for",
        "in",
        "on",
        "at",
        "as",
        "since",
        "during",
        "after",
        "before",
        "from",
        "by",
        "with",
        "every",
        "each",
    ]
)
