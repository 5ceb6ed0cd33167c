"""Does one memory say what the other says, and a little more?

"A man is eating" / "A man is hungrily eating", "Two women are sparring" / "Two young
women are sparring": every concept of the shorter text is in the longer one (aligned
as ``policy.wording.paraphrase`` aligns them), and what the longer adds is only a manner adverb
or a modifier of a thing both name. Folding them keeps the longer text, so nothing
either said is lost. What a modifier must never be dropped from: a relative or a role
("the user's manager" / "the user's skip-level manager"), anything owned ("Ken's car"
/ "Ken's new car"), and modifiers that say which thing it is ("a toy gun", "a former
teacher"). Names, numbers, dates, environments, frequencies and change words are never
"a little more". The structural vetoes of paraphrase (negation, owners, roles,
direction) hold here too. Pure: no I/O.
"""

from __future__ import annotations

import functools
import unicodedata
from collections import Counter
from dataclasses import dataclass, replace

from memfold.policy import text as tx
from memfold.policy.subject import ENVIRONMENT_WORDS, RELATION_WORDS
from memfold.policy.wording import lexicon as lx
from memfold.policy.wording.paraphrase import (
    FRAMES,
    POSSESSIVE_WORDS,
    TOKEN,
    aligned,
    concept_of,
    general_of,
    read,
    structure_agrees,
)
from memfold.policy.wording.phrases import CANONICAL_TOKENS
from memfold.policy.wording.spelling import canonical_text

_NEVER_EXTRA = (
    frozenset(RELATION_WORDS)
    | frozenset(tx.stem(w) for w in ENVIRONMENT_WORDS)
    | ENVIRONMENT_WORDS
    | FRAMES
    | CANONICAL_TOKENS
    | lx.CHANGE_STEMS
    | lx.CHANGE_STEMS_BEFORE_VALUE
    | frozenset(tx.stem(w) for w in lx.IDENTITY_MODIFIERS)
    | lx.IDENTITY_MODIFIERS
)
_NEVER_MODIFIED = (
    frozenset(RELATION_WORDS) | lx.ROLE_NOUNS | frozenset(tx.stem(w) for w in lx.ROLE_NOUNS)
)
# Between a modifier and the thing it modifies: "a black and white dog", "tall, green".
_JOINERS = frozenset(["and", ",", "a", "an", "the"])
# How far before a modifier an owner may stand for it to belong to the owned thing.
_OWNER_REACH = 3


@dataclass(frozen=True, slots=True)
class Elaboration:
    """The longer text says all the shorter one does, plus ``extra`` concepts."""

    newer_is_longer: bool
    extra: frozenset[str]

    @property
    def reason(self) -> str:
        side = "newer" if self.newer_is_longer else "older"
        shown = ", ".join(sorted(self.extra))
        return f"the {side} memory says the same and a little more ({shown})"


def elaboration(
    older: str, newer: str, max_extra: int = 2, min_concepts: int = 2
) -> Elaboration | None:
    """How one text restates the other with up to ``max_extra`` modifiers more, or None."""
    a, b = aligned(read(older), read(newer))
    if a.concepts == b.concepts or _negations(older) != _negations(newer):
        return None
    if a.concepts < b.concepts:
        short, long_text, newer_longer = a, newer, True
        extra = b.concepts - a.concepts
    elif b.concepts < a.concepts:
        short, long_text, newer_longer = b, older, False
        extra = a.concepts - b.concepts
    else:
        return None
    if len(extra) > max_extra or len(short.concepts) < min_concepts:
        return None
    words, names = _words_of(long_text)
    if _said_fewer_times(_words_of(newer if not newer_longer else older)[0], words):
        return None
    long = b if newer_longer else a
    if long.first in extra:  # "two young women ...": the subject is the noun, not "young"
        subject = _first_beyond(words, extra, long.concepts)
        a, b = (a, replace(b, first=subject)) if newer_longer else (replace(a, first=subject), b)
    for concept in extra:
        if not _is_modifier(concept, words, names, short.concepts):
            return None
    if not structure_agrees(a, b, older, newer):
        return None
    return Elaboration(newer_longer, frozenset(extra))


def qualifies_owned_or_role(shorter: str, longer: str) -> bool:
    """Whether a word ``longer`` adds to ``shorter`` is a relative or environment, or
    qualifies a relative, a role or an owned thing ("the user's skip-level manager",
    "Ken's new car"): then the longer text is another fact, however many words agree."""
    added = read(longer).concepts - read(shorter).concepts
    words, names = _words_of(longer)
    for i, word in enumerate(words):
        concept = concept_of(word)
        if concept not in added:
            continue
        if concept in RELATION_WORDS or concept in ENVIRONMENT_WORDS or _owned(i, words):
            return True
        if _names_a_part(i, words, names):
            return True  # "the Pebble docs repo's branch" / "the Pebble repo's branch"
        head = next((w for w in words[i + 1 :] if concept_of(w) not in added), "")
        if concept_of(head) in _NEVER_MODIFIED or head.endswith("'s"):
            return True
    return False


def _names_a_part(i: int, words: tuple[str, ...], names: frozenset[str]) -> bool:
    """Whether ``words[i]`` follows a name, naming a part of the named thing ("the Pebble
    docs repo" is another repo than "the Pebble repo"). A sentence's first word is
    capitalized whatever it is ("Two young women"), so it is no name here."""
    return i > 1 and concept_of(words[i - 1]) in names


def _said_fewer_times(short_words: tuple[str, ...], long_words: tuple[str, ...]) -> bool:
    """Whether the longer text says a concept fewer times than the shorter: "the state
    for production lives in the tf-state-prod bucket" / "the state for networking lives
    in the tf-state-prod bucket" share every concept, but one "prod" was swapped."""
    short_counts = Counter(c for c in map(concept_of, short_words) if _says_which(c))
    long_counts = Counter(c for c in map(concept_of, long_words) if _says_which(c))
    return any(long_counts[c] < n for c, n in short_counts.items())


def _says_which(concept: str) -> bool:
    """A concept that says which thing or when (an environment, a relative, a number):
    one of them dropped from a text that says it twice is one swapped."""
    return bool(concept) and (concept in _NEVER_EXTRA or concept[:1].isdigit())


def _owned(i: int, words: tuple[str, ...]) -> bool:
    owners = words[max(0, i - _OWNER_REACH) : i]
    return any(w in POSSESSIVE_WORDS or w.endswith("'s") for w in owners)


def _negations(text: str) -> int:
    """How many negations: "does not mean 'not wanting'" is not "means 'not wanting'"."""
    return sum(tx.is_negation(t) for t in tx.tokens(text))


def _first_beyond(words: tuple[str, ...], extra: frozenset[str], concepts: frozenset[str]) -> str:
    """The first concept of ``words`` that is not one of the ``extra`` modifiers."""
    for word in words:
        concept = concept_of(word)
        if concept not in concepts and general_of(concept) in concepts:
            concept = general_of(concept)
        if concept and concept not in extra and not concept[:1].isdigit() and concept not in FRAMES:
            return concept
    return ""


@functools.lru_cache(maxsize=4096)
def _words_of(text: str) -> tuple[tuple[str, ...], frozenset[str]]:
    folded = unicodedata.normalize("NFKC", text)
    words = tuple(TOKEN.findall(canonical_text(folded)))
    names = frozenset(concept_of(n) for n in tx.proper_names(folded))
    return words, names


def _is_modifier(
    concept: str, words: tuple[str, ...], names: frozenset[str], shared: frozenset[str]
) -> bool:
    """Whether every use of ``concept`` in ``words`` only qualifies something shared."""
    if concept in _NEVER_EXTRA or concept in names or concept[:1].isdigit():
        return False
    if not concept[:1].isalpha() or concept == "user":
        return False
    places = [i for i, w in enumerate(words) if concept_of(w) == concept]
    return bool(places) and all(_qualifies(i, words, shared, names) for i in places)


def _qualifies(
    i: int, words: tuple[str, ...], shared: frozenset[str], names: frozenset[str] = frozenset()
) -> bool:
    word = words[i]
    if _owned(i, words):
        return False
    if _names_a_part(i, words, names):
        return False
    if word.endswith("ly") and len(word) > 4:  # a manner adverb: "hungrily eating"
        return True
    for following in words[i + 1 :]:
        if following in _JOINERS:
            continue
        head = concept_of(following)
        if not head:  # the phrase ended ("is", "of") before anything shared
            return False
        if head in shared:
            # "the docs repo's branch": a word that says which owner is never more detail
            return head not in _NEVER_MODIFIED and not following.endswith("'s")
        if head in _NEVER_EXTRA or head in _NEVER_MODIFIED:
            return False
        # another word the shorter text lacks, modifying the same thing ("young tall man")
    return False
