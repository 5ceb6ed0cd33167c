"""Clock times as a reading states them, in one spelling: "7pm", "19:00", "9 in the
morning", "half past nine", "a quarter to six" (``values``)."""

from __future__ import annotations

import re

from memfold.reading.model import Word
from memfold.reading.value_words import SMALL as _SMALL

_CLOCK = re.compile(r"^(\d{1,2}):(\d{2})$")
_CLOCK_SUFFIX = re.compile(r"^(\d{1,2})(?::(\d{2}))?(am|pm|a\.m\.|p\.m\.)$")
_MERIDIEM = {"am": False, "a.m.": False, "pm": True, "p.m.": True}
_RANGE = frozenset(("-", "–", "to"))
_DAY_PART = {"morning": False, "afternoon": True, "evening": True, "night": True}


def clock(words: tuple[Word, ...], i: int) -> tuple[str, str, list[int]] | None:
    low = words[i].low
    nxt = words[i + 1].low if i + 1 < len(words) else ""
    joined = _CLOCK_SUFFIX.match(low)
    if joined:
        return "time", hhmm(int(joined.group(1)), joined.group(2), joined.group(3)), [i]
    plain = _CLOCK.match(low)
    hour: int | None = None
    minute: str | None = None
    if plain:
        hour, minute = int(plain.group(1)), plain.group(2)
    elif words[i].pos == "NUM" or low.isdecimal():
        small = _SMALL.get(low) if low != "a" else None
        hour = int(low) if low.isdecimal() and len(low) <= 2 else small
    if hour is None or hour > 24:
        return None
    if nxt in _MERIDIEM:
        return "time", hhmm(hour, minute, nxt), [i, i + 1]
    if nxt == "o'clock":
        return "time", f"{hour:02d}:00", [i, i + 1]
    if (
        nxt == "in"
        and i + 3 < len(words)
        and words[i + 2].low == "the"
        and words[i + 3].low in _DAY_PART
    ):
        pm = _DAY_PART[words[i + 3].low]
        return "time", hhmm(hour, minute, "pm" if pm else "am"), [i, i + 1, i + 2, i + 3]
    ranged = _range_start(words, i, hour, minute)
    if ranged:
        return "time", ranged, [i]
    if plain:
        return "time", f"{hour:02d}:{minute}", [i]
    return None


def _range_start(words: tuple[Word, ...], i: int, hour: int, minute: str | None) -> str:
    """The first hour of a range told with one "am" or "pm" ("2-4 pm" = "2 pm to 4 pm"):
    the same half of the day, unless it is past the end ("11-1 pm": 11 am)."""
    if not (1 <= hour <= 12 and i + 2 < len(words) and words[i + 1].low in _RANGE):
        return ""
    end = clock(words, i + 2)
    if end is None or not _told_meridiem(words, i + 2):
        return ""
    end_hour = int(end[1][:2])
    pm = end_hour >= 12
    if hour > (end_hour - 1) % 12 + 1 and hour != 12:
        pm = not pm
    return hhmm(hour, minute, "pm" if pm else "am")


def _told_meridiem(words: tuple[Word, ...], i: int) -> bool:
    """ "4 pm", "4pm", "4:30 p.m.": a clock time that says its half of the day."""
    nxt = words[i + 1].low if i + 1 < len(words) else ""
    return bool(_CLOCK_SUFFIX.match(words[i].low)) or nxt in _MERIDIEM


def told_clock(words: tuple[Word, ...], i: int) -> tuple[str, str, list[int]] | None:
    """ "half past nine", "(a) quarter to six", "quarter past 7 pm": a clock time told in
    words, with what may follow it ("in the morning", "pm")."""
    start = i + 1 if words[i].low == "a" else i
    if start + 2 >= len(words) or words[start].low not in ("half", "quarter"):
        return None
    way, hour_word = words[start + 1].low, words[start + 2]
    hour = _SMALL.get(hour_word.low) if not hour_word.low.isdecimal() else int(hour_word.low)
    if way not in ("past", "to") or hour is None or not 1 <= hour <= 12:
        return None
    minutes = 30 if words[start].low == "half" else 15
    if way == "to":
        hour, minutes = (hour - 2) % 12 + 1, 60 - minutes
    span = [*range(i, start + 3)]
    after = clock(words, start + 2)  # "... nine in the morning", "... six pm"
    meridiem = after[1] if after is not None and len(after[2]) > 1 else ""
    if meridiem:
        span += [j for j in after[2] if j > start + 2] if after else []
        pm = int(meridiem[:2]) >= 12
        meridiem = "pm" if pm else "am"
    key = hhmm(hour, f"{minutes:02d}", meridiem) if meridiem else f"{hour:02d}:{minutes:02d}"
    return "time", key, span


def hhmm(hour: int, minute: str | None, meridiem: str) -> str:
    pm = meridiem.startswith("p")
    if pm and hour < 12:
        hour += 12
    if not pm and hour == 12:
        hour = 0
    return f"{hour:02d}:{minute or '00'}"
