"""Units and the amounts told in them: one spelling of each unit ("kilometres" = "km",
``data/units.txt``), one scale for the units of one quantity ("15 minutes" = "900
seconds", "1.85 m" = "185 cm", ``data/conversions.txt``), and how often a thing is done
told in one word ("thrice" = "three times"). Pure."""

from __future__ import annotations

import re
from fractions import Fraction
from functools import cache, lru_cache

import snowballstemmer

from memfold.reading import tables
from memfold.reading.model import Word

_STEM = snowballstemmer.stemmer("english")
# A number with its unit written on ("0.13pc", "12gb"), where the tokenizer keeps them one.
GLUED = re.compile(r"^(\d+(?:\.\d+)?)([a-z%]+)$")
# "5k", "2.4m": a scale, not a unit ("5m" is five million, not five metres).
SUFFIXED = re.compile(r"^(\d+(?:\.\d+)?)([km])$")
CURRENCIES = frozenset(("usd", "eur", "gbp"))
# How often, in one word: "twice a week" = "two times a week".
MULTIPLES = {"once": 1, "twice": 2, "thrice": 3}


def unit(lemma: str) -> str:
    """One spelling of a unit or counted noun ("kilometres" -> "km", "%" -> "percent")."""
    low = lemma.lower()
    if low == "%":
        return "percent"
    found = tables.group_of("units").get(low) or tables.group_of("synonyms").get(low)
    return found or _stem(low)


def glued_unit(low: str) -> str:
    """The unit written on a number ("0.13pc" -> "percent"), if the units table knows it."""
    glued = GLUED.match(low)
    if glued is None or SUFFIXED.match(low):
        return ""
    return tables.group_of("units").get(glued.group(2), "")


def currency_before(words: tuple[Word, ...], i: int) -> str:
    """The currency a code right before a number names ("EUR 1200", "USD 12.99")."""
    if i == 0:
        return ""
    named = tables.group_of("units").get(words[i - 1].low, "")
    return named if named in CURRENCIES and words[i - 1].text.isupper() else ""


def in_base_unit(key: str, anchor: str) -> tuple[str, str]:
    """An amount told in the base unit of its quantity ("15", "minute" -> "900"...): the
    conversions table's scale; the amount as it was for a unit it does not know."""
    found = _scales().get(anchor)
    if found is None:
        return key, anchor
    factor, base = found
    try:
        amount = Fraction(key) * factor
    except ValueError:
        return key, anchor
    return fmt(float(amount)), base


@cache
def _scales() -> dict[str, tuple[Fraction, str]]:
    """Each unit of ``data/conversions.txt``: how many of its base one of it makes."""
    return {e.words[0]: (Fraction(e.words[1]), e.words[2]) for e in tables.entries("conversions")}


def measure_word(words: tuple[Word, ...], span: list[int]) -> list[int]:
    """The unit word right after a number ("10 years", "5 km"), if the table knows it."""
    j = span[-1] + 1
    if j + 1 < len(words) and words[j].low == "-":
        j += 1  # "two-bedroom", "a 2-bed flat"
    if j >= len(words) or words[j].low not in tables.group_of("units"):
        return []
    # An age: "7 years old" says what "seven" says of a person.
    return [j, j + 1] if j + 1 < len(words) and words[j + 1].low == "old" else [j]


def unit_words(words: tuple[Word, ...], span: list[int]) -> list[int]:
    """The words naming the currency or percent after an amount ("12 euros", "5 per
    cent")."""
    j = span[-1] + 1
    if j < len(words) and unit(words[j].lemma) in (*CURRENCIES, "percent"):
        return [j]
    if j + 1 < len(words) and words[j].low == "per" and words[j + 1].low == "cent":
        return [j, j + 1]
    return []


def fmt(number: float) -> str:
    """A number in one spelling: "3" for 3.0, "1.85" for 1.8500000000000003."""
    return str(int(number)) if float(number).is_integer() else f"{number:g}"


@lru_cache(maxsize=100_000)
def _stem(word: str) -> str:
    return str(_STEM.stemWord(word))
