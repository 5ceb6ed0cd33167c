"""Odd input never breaks a reading: any text a user or a judge writes is read (or
refused by the checks that read it), never an exception from the readers."""

from __future__ import annotations

import random
from itertools import pairwise

from memfold.reading.bindings import binding_problems
from memfold.reading.difference import same_fact
from memfold.reading.facts import facts
from memfold.reading.supersede import supersede_evidence

# Pieces that have broken readers or could: digits of other kinds, fractions, signs,
# clock and date shapes, units, ordinals, currency, marks and words around them.
_PIECES = (
    "8²",
    "½",
    "¾",
    "٣",
    "१२",
    "Ⅻ",
    "3/4",
    "9/20/2025",
    "31/31",
    "12:75",
    "25:00",
    "7pm",
    "19:00",
    "0.13pc",
    "$",
    "$2.4 million",
    "€",
    "£950",
    "1st",
    "22nd",
    "twelfth",
    "a quarter to",
    "half past",
    "noon",
    "Dec.",
    "May",
    "may",
    "every other",
    "decade",
    "floor",
    "gate",
    "twelve",
    "hundred",
    "-",
    "—",
    "'s",
    "n't",
    "no longer",
    "used to",
    "is",
    "the",
    "user",
    "Ana",
    "moved",
    "to",
    "Lyon",
    "at",
    "on",
    "%",
    "km",
    "GB",
    "v2.1",
    ".",
    ",",
    "?",
    "(",
    ")",
    "\u200b",
    "\ufeff",
    "😀",
    "نعم",
    "東京",
)


def _texts(n: int, seed: int = 11) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.choice(_PIECES) for _ in range(rng.randint(1, 12))) for _ in range(n)]


def test_any_mix_of_odd_pieces_is_read_and_compared() -> None:
    texts = _texts(300)
    for a, b in pairwise(texts):
        facts(a)
        same_fact(a, b, "newer")
        supersede_evidence(a, b, 0.5, 2)
        binding_problems(b, [a], keep_all=True, max_new_words=2, max_new_nouns=0)
