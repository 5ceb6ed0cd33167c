"""Units and the amounts told in them: one spelling of each unit ("kilometres" = "km",
``data/units.txt``), one scale for the units of one quantity ("15 minutes" = "900
seconds", "1.85 m" = "185 cm", ``data/conversions.txt``), and how often a thing is done
told in one word ("thrice" = "three times"); a duration told in words ("a fortnight",
"three quarters of an hour", "an hour and a half"). Pure."""

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
# Units of time that "a" counts as one ("a week", "a fortnight"), and "a decade".
TIME_UNITS = frozenset(("minute", "hour", "day", "week", "fortnight", "month", "year"))
_QUARTERS = {"a": 1, "one": 1, "three": 3}
_AGE = "old"


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


_INCH_MARKS = frozenset(('"', "″", "''"))


def inch_mark(words: tuple[Word, ...], span: list[int]) -> bool:
    """A number with an inch mark right after it: '14"' is "14 inches" (a screen, a
    monitor), not the end of a quoted number ('named "14"')."""
    after, before = span[-1] + 1, span[0] - 1
    if after >= len(words) or words[after].low not in _INCH_MARKS:
        return False
    return before < 0 or words[before].low not in _INCH_MARKS


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


def told_duration(words: tuple[Word, ...], i: int) -> tuple[str, str, list[int]] | None:
    """A duration told in words: "a decade" (10, years: ``duration_unit``), "a week",
    "a fortnight", "an hour and a half", "half a day", "three quarters of an hour"; not
    a rate ("twice an hour", "$20 a month", "three coffees a day") nor a kind of thing
    ("a day trip")."""
    low = words[i].low
    nxt = words[i + 1].low if i + 1 < len(words) else ""
    if low in ("a", "one") and nxt == "decade":
        return "number", "10", [i, i + 1]
    rate = i > 0 and (words[i - 1].pos in ("NOUN", "NUM") or words[i - 1].low in MULTIPLES)
    if low in ("a", "an") and _is_time(words, i + 1) and not rate:
        return _and_a_half(words, 1.0, [i, i + 1])
    if low == "half" and nxt in ("a", "an") and _is_time(words, i + 2):
        return "number", "0.5", [i, i + 1, i + 2]
    quarter = i + 1 if low in _QUARTERS else i
    if quarter + 1 < len(words) and words[quarter].low in ("quarter", "quarters"):
        j = quarter + 1 + (words[quarter + 1].low == "of")
        j += j < len(words) and words[j].low in ("a", "an")
        if j > quarter + 1 and _is_time(words, j):
            count = _QUARTERS.get(low, 1)
            return "number", fmt(count / 4), list(range(i, j + 1))
    return None


def _and_a_half(
    words: tuple[Word, ...], amount: float, span: list[int]
) -> tuple[str, str, list[int]]:
    """ "an hour and a half": the half taken in."""
    j = span[-1] + 1
    if [w.low for w in words[j : j + 3]] == ["and", "a", "half"]:
        return "number", fmt(amount + 0.5), [*span, j, j + 1, j + 2]
    return "number", fmt(amount), span


def _is_time(words: tuple[Word, ...], j: int) -> bool:
    """Whether word ``j`` is a unit of time heading its own phrase (not "a day trip")."""
    if j >= len(words) or unit(words[j].low) not in TIME_UNITS:
        return False
    after = words[j + 1] if j + 1 < len(words) else None
    return after is None or after.pos not in ("NOUN", "PROPN")


def duration_unit(words: tuple[Word, ...], span: list[int]) -> str:
    """The unit of time a duration told in words counts ("an hour and a half": hour;
    "a decade": year), or ""."""
    for j in span:
        if words[j].low == "decade":
            return "year"
        if unit(words[j].low) in TIME_UNITS:
            return unit(words[j].low)
    return ""


def is_age(words: tuple[Word, ...], span: list[int]) -> bool:
    """A number of years told as an age ("7 years old", "a three-year-old"), which says
    what "seven" says of a person: not put on another scale."""
    j = span[-1] + 1
    j += j < len(words) and words[j].low == "-"
    if j < len(words) and words[j].low == "year-old":
        return True
    j += 1  # the unit
    j += j < len(words) and words[j].low == "-"
    return j < len(words) and words[j].low == _AGE


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
