"""Values a reading states, in one spelling whatever the text's: numbers ("three", "3",
"2.4 million"), amounts of money ("$2.4 million" = "2,400,000 dollars"), percentages ("a
tenth of" = "10 %"), clock times ("7pm" = "19:00"), dates ("Sept 21" = "21 September"),
years and weekdays. Each number is bound to the noun it counts ("gate 12": 12 of
"gate"), so that "9 am from gate 12" and "12 am from gate 9" differ."""

from __future__ import annotations

import re
from dataclasses import dataclass

from memfold.reading import tables
from memfold.reading.calendar import (
    ORDINAL,
    SLASHED,
    date_at,
    iso_date,
    month_near,
    numeric_date,
    workweek_range,
)
from memfold.reading.clock import clock, told_clock
from memfold.reading.measures import (
    CURRENCIES,
    GLUED,
    MULTIPLES,
    SUFFIXED,
    currency_before,
    duration_unit,
    fmt,
    glued_unit,
    in_base_unit,
    inch_mark,
    is_age,
    measure_word,
    told_duration,
    unit,
    unit_words,
)
from memfold.reading.model import Reading, Word
from memfold.reading.value_words import (
    CURRENCY_SIGNS as _CURRENCY_SIGNS,
)
from memfold.reading.value_words import (
    FRACTIONS as _FRACTIONS,
)
from memfold.reading.value_words import (
    MONTHS as _MONTHS,
)
from memfold.reading.value_words import (
    ORDINAL_WORDS as _ORDINAL_WORDS,
)
from memfold.reading.value_words import (
    SCALE as _SCALE,
)
from memfold.reading.value_words import (
    SMALL as _SMALL,
)
from memfold.reading.value_words import (
    STARTERS as _STARTERS,
)
from memfold.reading.value_words import (
    WEEKDAYS as _WEEKDAYS,
)
from memfold.reading.value_words import (
    WORKWEEK as _WORKWEEK,
)

_CLOCK = re.compile(r"^(\d{1,2}):(\d{2})$")
_PER = frozenset(("a", "an", "per", "every", "each"))
_ROUND = frozenset(("hundred", "thousand", "million", "billion"))
_URL = re.compile(r"^[a-z][a-z0-9+.-]*://\S+$")
_HOST = re.compile(r"^(?:[a-z0-9_-]+\.)+([a-z]{2,})\.?$")
# The top-level domains a host name in a memory ends with.
_DOMAINS = frozenset(
    (
        "com",
        "org",
        "net",
        "io",
        "dev",
        "app",
        "ai",
        "co",
        "edu",
        "gov",
        "uk",
        "de",
        "fr",
        "eu",
        "nl",
        "es",
        "it",
        "ca",
        "au",
        "in",
        "jp",
        "br",
        "ch",
        "se",
        "info",
        "cloud",
    )
)
_DIGITS = re.compile(r"^\d+(?:,\d{3})*(?:\.\d+)?$")
_VERSION = re.compile(r"^v?\d+(?:\.(?:\d+|x))+$|^v\d+$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Value:
    """One stated value: ``kind`` (number, ordinal, money, percent, time, date, year,
    weekday, version, url),
    its normalized ``key``, the noun it counts (``anchor``, "" for none) and where it
    stands (word index, sentence)."""

    kind: str
    key: str
    anchor: str
    index: int
    sent: int

    @property
    def ident(self) -> tuple[str, str, str]:
        return (self.kind, self.key, self.anchor)

    def show(self) -> str:
        return f"{self.key} {self.anchor}".strip() if self.kind == "number" else self.key


def values(reading: Reading) -> tuple[list[Value], set[int]]:
    """The values of ``reading`` in order, and the indices of the words they take up."""
    words = reading.words
    used: set[int] = set()
    out: list[Value] = []
    i = 0
    while i < len(words):
        found = _value_at(words, i) if _may_start_value(words[i].low) else None
        if found is None:
            i += 1
            continue
        kind, key, span = found
        anchor, label = _anchor(words, span) if kind == "number" else ("", False)
        if words[span[0]].low in MULTIPLES:
            anchor, label = "time", False  # "thrice weekly" = "three times a week"
        if kind == "ordinal":
            quarter = _QUARTER.match(words[span[0]].low)
            anchor = "quarter" if quarter else _ranked(words, span[0])
        elif label and anchor in _VERSION_WORDS:
            anchor = ""  # "PostgreSQL version 15" = "PostgreSQL 15"
        elif label:
            kind = "ordinal"  # "floor twelve" names the floor "the 12th floor" does
        if kind == "number" and duration_unit(words, span):
            anchor = duration_unit(words, span)  # "an hour", "half a day", "a decade"
        if _every_two_weeks(words, span[0]):
            anchor = "week"
        glued = glued_unit(words[span[0]].low)
        if kind == "number" and glued:
            anchor = glued
        if kind == "number" and inch_mark(words, span):
            anchor = "inch"  # '14"' = "14-inch"
            used.add(span[-1] + 1)
        if kind == "number" and currency_before(words, span[0]):
            anchor = currency_before(words, span[0])  # "EUR 1200" = "€1,200"
            used.add(span[0] - 1)
        if kind == "number" and not is_age(words, span):
            # One scale for a quantity: "15 minutes" = "900 seconds", "an hour" = "60
            # minutes", "185 cm" = "1.85 m"; not an age ("7 years old" is "seven").
            key, anchor = in_base_unit(key, anchor)
        if kind == "number" and anchor in CURRENCIES:
            kind, key, anchor = "money", f"{anchor} {key}", ""
        elif kind == "number" and anchor == "percent":
            kind, anchor = "percent", ""
        out.append(Value(kind, key, anchor, span[0], words[span[0]].sent))
        slashed = SLASHED.match(words[span[0]].low)
        if kind == "date" and slashed and slashed.group(3):  # "9/20/2025": its year too
            year = slashed.group(3)
            year = year if len(year) == 4 else f"20{year}"
            out.append(Value("year", year, "", span[0], words[span[0]].sent))
        used.update(span)
        if kind in ("money", "percent"):
            used.update(unit_words(words, span))
        elif kind == "number" and anchor in tables.group_of("units").values():
            # a unit is part of its value ("ten years" = "a decade"); a counted thing
            # ("two daughters") is a word of its own too
            used.update(measure_word(words, span))
        i = span[-1] + 1
    return out, used


_EVERY_TWO_WEEKS = frozenset(("fortnightly", "biweekly", "bi-weekly"))


def _every_two_weeks(words: tuple[Word, ...], i: int) -> bool:
    """ "fortnightly", "every other Monday", "every second Friday": every two weeks."""
    low = words[i].low
    if low in _EVERY_TWO_WEEKS:
        return True
    nxt = words[i + 1].low if i + 1 < len(words) else ""
    return low in ("other", "second") and i > 0 and words[i - 1].low == "every" and nxt in _WEEKDAYS


def _may_start_value(low: str) -> bool:
    """Whether a value can start at a word: one with a digit or a sign, a web address,
    or a word that names a number, a fraction, a month, a weekday or a time of day (most
    words cannot, and skip the readers below)."""
    return low in _STARTERS or any(c.isdigit() for c in low) or "://" in low or _host(low)


def _host(low: str) -> bool:
    """A host name or an e-mail address ("api.example.com", "ops@acme.io"), not a name
    with a dot in it ("Node.js", "U.S.")."""
    match = _HOST.match(low.split("@")[-1]) if low.count("@") <= 1 else None
    return match is not None and match.group(1) in _DOMAINS


def _value_at(words: tuple[Word, ...], i: int) -> tuple[str, str, list[int]] | None:
    word = words[i]
    low = word.low
    nxt = words[i + 1].low if i + 1 < len(words) else ""
    if _URL.match(low) or _host(low):
        # An address names one thing, as a value does; a sentence end is not part of it.
        return "url", low.rstrip(".,;:!?)").rstrip("/"), [i]
    told = (
        told_clock(words, i)
        or numeric_date(low, i)
        or iso_date(words, i)
        or told_duration(words, i)
    )
    if told is not None:
        return told
    multiple = _told_multiple(words, i)
    if multiple is not None:
        return multiple
    if low == "other" and i and words[i - 1].low == "every" and nxt in tables.group_of("units"):
        return "number", "2", [i]  # "every other month" = "every two months"
    if low in ("other", "second") and i and words[i - 1].low == "every" and nxt in _WEEKDAYS:
        return "number", "2", [i]  # "every other Monday": every two weeks, on Mondays
    if low in _EVERY_TWO_WEEKS:
        return "number", "2", [i]  # "fortnightly" = "every two weeks"
    if low in ("noon", "midday"):
        return "time", "12:00", [i]
    if low == "midnight":
        return "time", "00:00", [i]
    found_clock = clock(words, i)
    if found_clock is not None:
        return _zoned(words, *found_clock)
    if low in _MONTHS and (word.pos == "PROPN" or low != "may"):
        return date_at(words, i)
    if low in _WORKWEEK or workweek_range(words, i):
        # "every weekday" = "Monday through Friday"
        return "weekday", "mon-fri", list(range(i, i + (1 if low in _WORKWEEK else 3)))
    if low in _WEEKDAYS and word.pos in ("PROPN", "NOUN"):
        return "weekday", _WEEKDAYS[low], [i]
    if low in _CURRENCY_SIGNS and i + 1 < len(words):
        amount = _number(words, i + 1)
        if amount is not None:
            number, span = amount
            return "money", f"{_CURRENCY_SIGNS[low]} {fmt(number)}", [i, *span]
    after = words[i + 2].low if i + 2 < len(words) else ""
    if low in ("a", "one") and nxt in _FRACTIONS and after == "of":
        return "percent", fmt(_FRACTIONS[nxt]), [i, i + 1]
    if low in _FRACTIONS and nxt == "of" and word.pos != "ADJ":
        return "percent", fmt(_FRACTIONS[low]), [i]
    if low in ("a", "an", "one") and not _counts_with_another(words, i):
        return None  # "one man" says what "a man" says
    if (
        _VERSION.match(low)
        and not _CLOCK.match(low)
        and (low[0] == "v" or low.count(".") > 1 or "x" in low or _is_versioned(words, i))
    ):
        return "version", low.removeprefix("v"), [i]
    if _QUARTER.match(low):
        return "ordinal", low[1], [i]  # "Q3" = "the third quarter"
    day = ORDINAL.match(low)
    if (day or low in _ORDINAL_WORDS) and month_near(words, i):
        return date_at(words, month_near(words, i) or i)
    rank = int(day.group(1)) if day else _ORDINAL_WORDS.get(low)
    if rank is not None and word.dep == "amod" and words[word.head].pos == "NOUN":
        return "ordinal", str(rank), [i]  # "the 5th floor" = "the fifth floor"
    if rank is not None and _stands_alone(words, i):
        return "ordinal", str(rank), [i]  # "paid on the first" = "on the 1st"
    amount = _number(words, i)
    if amount is None:
        return None
    number, span = amount
    if _is_year(words, i, number):
        return "year", str(int(number)), span
    if nxt in _MONTHS and number <= 31 and number.is_integer():
        return date_at(words, i + 1)
    return "number", fmt(number), span


def _zoned(
    words: tuple[Word, ...], kind: str, key: str, span: list[int]
) -> tuple[str, str, list[int]]:
    """A clock time with the time zone written after it, in one spelling: "11 a.m.
    Eastern" = "11:00 ET" (``data/time_zones.txt``)."""
    after = span[-1] + 1
    zones = tables.group_of("time_zones")
    if after < len(words) and words[after].low in zones:
        return kind, f"{key} {zones[words[after].low]}", [*span, after]
    return kind, key, span


def _stands_alone(words: tuple[Word, ...], i: int) -> bool:
    """A rank said as a noun of its own, the day of a month: "on the 1st of every
    month", "paid on the first"."""
    word = words[i]
    return i > 0 and words[i - 1].low == "the" and word.dep in ("pobj", "npadvmod")


def _counts_with_another(words: tuple[Word, ...], i: int) -> bool:
    """ "one" counts when it is set against another number ("one son and two daughters")
    or is written as a numeral; alone it is an article."""
    return words[i].text.isdigit() or any(
        w.pos == "NUM" and j != i and w.sent == words[i].sent for j, w in enumerate(words)
    )


_VERSION_WORDS = frozenset(("version", "release"))
_QUARTER = re.compile(r"^q[1-4]$")
_NUMBER_SIGNS = frozenset(("#", "no.", "nr."))


def _is_versioned(words: tuple[Word, ...], i: int) -> bool:
    """ "Python 3.11", "version 1.28": a dotted number after a name or "version"."""
    return i > 0 and (words[i - 1].pos == "PROPN" or words[i - 1].low in _VERSION_WORDS)


def _told_multiple(words: tuple[Word, ...], i: int) -> tuple[str, str, list[int]] | None:
    """How often, in one word ("twice", "thrice", "once a week"; not "once lived"), and
    a round number told with "a" ("a hundred requests" = "100 requests", "a dozen")."""
    low = words[i].low
    nxt = words[i + 1].low if i + 1 < len(words) else ""
    if low in MULTIPLES and (
        low != "once" or nxt in _PER or nxt.endswith("ly") or _counts(words, i)
    ):
        return "number", str(MULTIPLES[low]), [i]
    if low in ("a", "an") and nxt in _ROUND and words[i + 1].pos == "NUM":
        return "number", fmt(_SCALE[nxt]), [i, i + 1]
    if low == "a" and nxt == "dozen":  # "a dozen eggs" = "12 eggs", however it is tagged
        return "number", fmt(_SMALL[nxt]), [i, i + 1]
    return None


def _counts(words: tuple[Word, ...], i: int) -> bool:
    """ "charged once", "met him once": "once" after the verb it tells counts; before it
    ("once lived") it means formerly, and as a conjunction ("once it ships") a time."""
    word = words[i]
    return word.dep == "advmod" and word.head < i and words[word.head].pos in ("VERB", "AUX")


def _number(words: tuple[Word, ...], i: int) -> tuple[float, list[int]] | None:
    word = words[i]
    low = word.low.replace(",", "")
    value: float | None = None
    suffixed = SUFFIXED.match(low)
    glued = GLUED.match(low) if glued_unit(low) else None
    if _DIGITS.match(word.low):
        value = float(low)
    elif suffixed:
        value = float(suffixed.group(1)) * _SCALE[suffixed.group(2)]
    elif glued:
        value = float(glued.group(1))
    elif word.pos == "NUM" and low in _SMALL and low != "a":
        value = float(_SMALL[low])
    if value is None:
        return None
    span = [i]
    total, current = 0.0, value
    j = i + 1
    while j < len(words):
        low_j = words[j].low
        small = _SMALL.get(low_j) if words[j].pos == "NUM" and low_j != "a" else None
        if low_j in _SCALE and words[j].pos in ("NUM", "NOUN"):
            if _SCALE[low_j] >= 1_000:  # "two thousand one hundred fifty": 2000 + 150
                total, current = total + current * _SCALE[low_j], 0.0
            else:
                current *= _SCALE[low_j]
        elif small is not None and _adds(total, current, small):
            current += small  # "twenty five", "one hundred fifty"
        elif low_j == "-" and j + 1 < len(words) and words[j + 1].pos == "NUM":
            pass
        elif low_j == "and" and j + 1 < len(words) and words[j + 1].low in _SMALL and current:
            pass  # "one hundred and fifty"
        else:
            break
        span.append(j)
        j += 1
    if words[span[-1]].low == "and":
        span.pop()
    k = span[-1] + 1
    following = tuple(w.low for w in words[k : k + 3])
    part = _PARTS.get(following) if len(following) == 3 else None
    if part is not None:
        # "four and a quarter percent" = 4.25 %, "two and a half hours" = 2.5 hours
        return total + current + part, [*span, k, k + 1, k + 2]
    return total + current, span


# What a number told in words adds after "and".
_PARTS: dict[tuple[str, ...], float] = {
    ("and", "a", "half"): 0.5,
    ("and", "a", "quarter"): 0.25,
    ("and", "three", "quarters"): 0.75,
}


def _adds(total: float, current: float, small: int) -> bool:
    """A number word told after ``current`` adds to it: "twenty five", "one hundred
    fifty", "two thousand one"; not "five twenty" (two numbers)."""
    if current == 0:
        return total > 0
    if current >= 100 and current % 100 == 0:
        return small < 100
    return 20 <= current < 100 and current % 10 == 0 and small < 10


def _is_year(words: tuple[Word, ...], i: int, number: float) -> bool:
    """A four-digit number from 1900 to 2100 that counts nothing after it: "in 2018",
    "May 3, 2024", "the 2023 audit"; not "2000 users" or "2048 MB"."""
    text = words[i].text
    if not (len(text) == 4 and text.isdigit() and 1900 <= number <= 2100):
        return False
    after = words[i + 1] if i + 1 < len(words) else None
    if after is None or after.pos not in ("NOUN", "PROPN"):
        return True
    counted = after.tag == "NNS" or after.low in tables.group_of("units")
    return not counted


def _ranked(words: tuple[Word, ...], i: int) -> str:
    """The noun an ordinal ranks ("the 12th floor": floor)."""
    head = words[words[i].head]
    return unit(head.lemma) if head.pos == "NOUN" else ""


def _anchor(words: tuple[Word, ...], span: list[int]) -> tuple[str, bool]:
    """The noun a number counts, by position, so that the parse's mood does not move it:
    the noun right after it ("50 cedis", "type 2 diabetes"), else the one right before
    it, which the number labels rather than counts ("gate 12", "port 5433": True)."""
    last = span[-1]
    after = last + 2 if last + 2 < len(words) and words[last + 1].low == "-" else last + 1
    before = span[0] - 2 if span[0] > 1 and words[span[0] - 1].low == "-" else span[0] - 1
    order = (after, before)
    if before > 0 and words[before].low in _NUMBER_SIGNS:
        # "ticket #9923" labels the ticket as "ticket 9923" does; a number sign marks a
        # label, never a count ("Ticket #3108 - refund approved": no 3108 refunds)
        before -= 1
        order = (before, after)
    for j in order:
        if not 0 <= j < len(words) or j in span:
            continue
        word = words[j]
        if word.low in ("%", "percent"):
            return "percent", False
        if j == after and word.low in tables.group_of("units"):
            return unit(word.low), False  # "500 mg", however the parse tags "mg"
        if word.pos in ("NOUN", "PROPN", "SYM") or (j == after and word.pos == "ADJ"):
            # "gate" read as a name is common; "PostgreSQL" read as a noun is a name
            named = any(c.isupper() for c in word.text[1:])
            common = (word.pos == "NOUN" and not named) or word.text.islower()
            label = j != after and common and word.low not in tables.group_of("units")
            said = word.lemma if word.pos != "PROPN" else word.low
            return unit(tables.group_of("clippings").get(said, said)), label
    return "", False
