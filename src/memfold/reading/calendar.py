"""Dates and days in a parse: "May 7", "7th of May", "9/20/2025" (where the day cannot
be the month), "2024-05-07" as the parser splits it, and the working week told in one
word or as a range ("every weekday" = "Monday through Friday"). Read by
``memfold.reading.values``. Pure."""

from __future__ import annotations

import re

from memfold.reading.model import Word
from memfold.reading.value_words import MONTHS, ORDINAL_WORDS, WEEKDAYS

SLASHED = re.compile(r"^(\d{1,2})/(\d{1,2})(?:/(\d{2}|\d{4}))?$")
ORDINAL = re.compile(r"^(\d{1,2})(?:st|nd|rd|th)$")


_RANGE_WORDS = frozenset(("through", "thru", "to", "-", "until", "till"))


def workweek_range(words: tuple[Word, ...], i: int) -> bool:
    """ "Monday through Friday", "Monday to Friday", "Mon-Fri"."""
    lows = [w.low for w in words[i : i + 3]]
    return (
        len(lows) == 3
        and WEEKDAYS.get(lows[0]) == "mon"
        and lows[1] in _RANGE_WORDS
        and WEEKDAYS.get(lows[2]) == "fri"
    )


def numeric_date(low: str, i: int) -> tuple[str, str, list[int]] | None:
    """ "9/20/2025", "20/9": a date in figures where the day cannot be the month (over
    12), so its order is known; the year is read apart (``values``)."""
    found = SLASHED.match(low)
    if found is None:
        return None
    first, second = int(found.group(1)), int(found.group(2))
    if first > 12 >= second >= 1 and first <= 31:
        month, day = second, first
    elif second > 12 >= first >= 1 and second <= 31:
        month, day = first, second
    else:
        return None  # "3/4": March 4 or 3 April
    return "date", f"{month:02d}-{day:02d}", [i]


def iso_date(words: tuple[Word, ...], i: int) -> tuple[str, str, list[int]] | None:
    """The month and day of a date written "2024-05-07", as the parse splits it (its
    year read on its own, before)."""
    lows = [w.low for w in words[max(i - 2, 0) : i + 3]]
    if i < 2 or len(lows) < 5 or lows[1] != "-" or lows[3] != "-":
        return None
    year, month, day = lows[0], lows[2], lows[4]
    if not (len(year) == 4 and year.isdecimal() and month.isdecimal() and day.isdecimal()):
        return None
    if not (len(month) <= 2 and len(day) <= 2 and 1 <= int(month) <= 12 and 1 <= int(day) <= 31):
        return None
    return "date", f"{int(month):02d}-{int(day):02d}", [i - 1, i, i + 1, i + 2]


def month_near(words: tuple[Word, ...], i: int) -> int | None:
    for j in (i + 1, i + 2, i - 1):
        if 0 <= j < len(words) and words[j].low in MONTHS and words[j].pos == "PROPN":
            return j
    return None


def date_at(words: tuple[Word, ...], m: int) -> tuple[str, str, list[int]]:
    month = MONTHS[words[m].low]
    span = [m]
    day: int | None = None
    for j, skip in ((m + 1, []), (m - 1, []), (m - 2, [m - 1])):
        if not 0 <= j < len(words):
            continue
        if skip and words[skip[0]].low != "of":
            continue
        low = words[j].low
        ordinal = ORDINAL.match(low)
        number = int(ordinal.group(1)) if ordinal else ORDINAL_WORDS.get(low)
        if number is None and low.isdecimal() and len(low) <= 2:
            number = int(low)
        if number is not None and 1 <= number <= 31:
            day = number
            span += [j, *skip]
            break
    key = f"{month:02d}-{day:02d}" if day else f"{month:02d}"
    return "date", key, sorted(span)
