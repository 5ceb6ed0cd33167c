"""Whose fact a text states, and what would change it: the markers two texts must share.

"Ken's car is a red Mazda" and "Ken's wife's car is a red Mazda" share every word but
one, embed at cosine 0.93, and are different facts. So are the same deploy rule for
"staging" and for "production", and the same trip in 2019 and in 2023. Embeddings treat
such pairs as paraphrases; these markers do not. Pure: no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memfold.policy import text as tx


def _words(spaced: str) -> frozenset[str]:
    return frozenset(spaced.split())


# People (and roles) a fact can belong to. A text that names one the other does not is
# about someone else. Stemmed forms are compared (``tx.stem``).
RELATION_WORDS: frozenset[str] = frozenset(
    tx.stem(w)
    for w in _words(
        """wife husband spouse partner son daughter child children kid baby mother
    father mom mum dad parent brother sister sibling uncle aunt cousin nephew niece
    grandmother grandfather grandma grandpa grandparent grandson granddaughter grandchild
    stepson stepdaughter stepmother stepfather friend boyfriend girlfriend fiance fiancee
    colleague coworker boss manager roommate flatmate housemate neighbor neighbour
    landlord landlady tenant teammate assistant mentor mentee client customer ex"""
    )
)

# Environments, stages and regions a setting can belong to.
ENVIRONMENT_WORDS: frozenset[str] = _words(
    """production prod staging stage dev development test testing qa sandbox local
    preview canary uat beta alpha demo"""
)

# Words that deny a statement without a negation marker ("it is false that...").
REVERSAL_WORDS: frozenset[str] = _words("""false untrue incorrect wrong former formerly""")

_YEAR = re.compile(r"^(1[89]|20|21)\d\d$")
_POSSESSIVE = re.compile(r"^[^\W\d_][\w-]*'s$", re.UNICODE)
# Contractions of "is" / "has" that look like possessives.
_NOT_POSSESSIVE = frozenset(
    [
        "it's",
        "that's",
        "there's",
        "here's",
        "what's",
        "who's",
        "where's",
        "when's",
        "how's",
        "he's",
        "she's",
        "let's",
    ]
)


@dataclass(frozen=True, slots=True)
class Markers:
    """What, besides its words, fixes whose fact a text states."""

    relations: frozenset[str]
    environments: frozenset[str]
    possessives: frozenset[str]
    years: frozenset[str]


def markers(text: str) -> Markers:
    toks = tx.tokens(text)
    lows = [t.lower() for t in toks]
    return Markers(
        relations=frozenset(w.removesuffix("'s") for w in lows if tx.stem(w) in RELATION_WORDS),
        environments=frozenset(w for w in lows if w in ENVIRONMENT_WORDS),
        possessives=frozenset(w for w in lows if _POSSESSIVE.match(w) and w not in _NOT_POSSESSIVE),
        years=frozenset(w for w in lows if _YEAR.match(w)),
    )


def subject_difference(a: str, b: str) -> str | None:
    """Why ``a`` and ``b`` are about different people, environments or years (None: same).

    A marker one text has and the other lacks is a difference: "Aiko" vs "Aiko's
    husband", "staging" vs "production", "2019" vs "2023". Years count only when both
    texts name one (adding a year to an undated fact enriches it).
    """
    ma, mb = markers(a), markers(b)
    for what, left, right in (
        ("relation", ma.relations, mb.relations),
        ("environment", ma.environments, mb.environments),
        ("possessive", _owned_apart(a, ma, b), _owned_apart(b, mb, a)),
    ):
        if left != right:
            return f"{what} differs: {_show(left - right)} vs {_show(right - left)}"
    if ma.years and mb.years and ma.years != mb.years:
        return f"year differs: {_show(ma.years - mb.years)} vs {_show(mb.years - ma.years)}"
    return None


def _owned_apart(text: str, mine: Markers, other: str) -> frozenset[str]:
    """``text``'s possessives, less those ``other`` restates without the "'s": "Hamid's
    sabbatical" / "Hamid will be on sabbatical", "the user's gym days" / "the user goes
    to the gym" name one owner and one thing. The owner and the thing owned (the word
    after "'s") must both be words of ``other``, and the thing not a person: "Sam's
    team uses Jira" / "Sam uses Jira" stay apart (no "team"), and so do "Priya's
    sister" / "Priya" (a relation word, which the relation marker reads anyway)."""
    if not mine.possessives:
        return mine.possessives
    lows = [t.lower() for t in tx.tokens(text)]
    theirs = [t.lower() for t in tx.tokens(other)]
    plain = set(theirs)
    stems = {tx.stem(w) for w in theirs}
    kept = set(mine.possessives)
    for i, word in enumerate(lows[:-1]):
        owned = tx.stem(lows[i + 1])
        if (
            word in kept
            and word.removesuffix("'s") in plain
            and owned in stems
            and owned not in RELATION_WORDS
        ):
            kept.discard(word)
    return frozenset(kept)


def added_markers(result: str, sources: list[str]) -> list[str]:
    """Relation, environment, possessive and reversal words a result has and no source has."""
    known = [markers(s) for s in sources]
    got = markers(result)
    problems: list[str] = []
    for what, mine, theirs in (
        ("relation word", got.relations, [m.relations for m in known]),
        ("environment", got.environments, [m.environments for m in known]),
        ("possessive", got.possessives, [m.possessives for m in known]),
    ):
        for word in sorted(mine - frozenset().union(*theirs)):
            problems.append(f"result adds {what} {word!r} that no source has")
    source_words = set().union(*(tx.word_set(s) for s in sources))
    for word in sorted(REVERSAL_WORDS & tx.word_set(result) - source_words):
        problems.append(f"result adds the reversal word {word!r}")
    return problems


def _show(words: frozenset[str]) -> str:
    return ", ".join(sorted(words)) or "(none)"
