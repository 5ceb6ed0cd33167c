"""The values a text states, each with the words it is a value of.

"a deadline of April 1, 2024, for the first sprint" holds one value, a date ("apr 1
2024"), of a deadline; "the project gallery with 8 cards" a count (8) of cards; "the Zoom
call ... on April 21 at 3 PM" one moment ("apr 21 3 pm"). Each value (``Slot``) knows
its kind, the content words around it (``head``), whether a change cue governs it ("the
new April 25 deadline", "improved to 78%", "moving the call ... to April 22",
"has now reached 165"), whether it is a goal rather than a state ("achieve 100%
coverage", "targeting 1,200 words", "my weekly goal ... 1,350 words"), whether a verb
that sets values gives it ("adjusted to 1,350 words": ``set_before``) and whether it is
the old side of a change ("from 60% to 85%") or how long the change took ("over 2
weeks"). A year alone is the dating of a fact, not a value of it. Pure: no I/O.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from memfold.policy import text as tx
from memfold.policy.wording import lexicon as lx


def _words(spaced: str) -> frozenset[str]:
    return frozenset(spaced.split())


_DAY = re.compile(r"^(?:[1-9]|[12]\d|3[01])$")
_YEAR = re.compile(r"^(?:19|20|21)\d\d$")
# "1,21" is no number with a thousands comma (its groups are not of three): a list, an
# index, an annotation ("->-> 1,21"), never a value to compare.
_BAD_GROUPS = re.compile(r",(?!\d{3}(?:\D|$))")
_CLOCK = re.compile(r"^\d{1,2}(?::\d{2})?$")
_MERIDIEM = frozenset({"am", "pm"})
# Words that only frame a request ("I'm kinda worried", "can you help me make sure"):
# they say nothing about what a value is a value of.
FRAMING: frozenset[str] = frozenset(
    tx.stem(w)
    for w in _words("""trying try tried kinda kind worried worry help want wanted make sure need
    needs wondering wonder curious think know figure figuring struggling struggle feel
    feeling going get got able like please thanks thank ensure hoping hope also still
    already recently currently actually total""")
)
# Words before a value that make it a goal, not a state: "achieve 100% coverage".
_GOAL = frozenset(
    tx.stem(w) for w in _words("achieve achieving goal goals aim aiming target targeting")
)
# Change verbs besides the lexicon's (``lexicon.CHANGE_STEMS*``) that give a value a new
# state when "to" follows them: "improved to 78%", "adjusted to 1,350 words".
_CHANGE_TO = (
    frozenset(
        tx.stem(w)
        for w in _words("""improved adjusted extended rescheduled postponed moved moving grown grew
    rose risen boosted shifted revised""")
    )
    | lx.CHANGE_STEMS_BEFORE_VALUE
    | lx.CHANGE_STEMS
)
# Verbs that set a value rather than report one reached: "it was adjusted to 1,350
# words", "the estimate was revised to 6 weeks". What someone sets may be a goal
# ("targeting 1,200 words") as well as a state; "improved to 78%" is progress, and
# "changed" / "updated to 78%" report a state as often: neither is a new goal.
_SET_TO = frozenset(tx.stem(w) for w in _words("adjusted revised"))
# Words that mark the value right after them as the current one: "now", "has reached".
_NOW = frozenset({"now"})
_IRREGULAR_CHANGED = _words("grew grown rose risen became")
_REACHED = frozenset({tx.stem("reached"), tx.stem("reach")})
# How near "new" must stand before a value ("the new April 25 deadline", "the new sprint
# deadline of April 5"), and "reached" ("has now reached 165"; never "could reach").
_NEW_REACH = 4
# Words next to a number that make it a difference ("5 more problems", "an extra 2").
_DELTA = frozenset(
    _words("""more extra additional fewer less another over increase increases raise boost
    reduction cut discount off""")
)
# Units of measure: what a value is measured in, never what it is a value of ("250ms"
# of a page load and of a query are two facts).
_UNITS = frozenset(
    _words("""ms s sec secs second seconds min mins minute minutes h hr hrs hour hours day days
    week weeks month months year years kb mb gb tb px pt em km m cm mm mi ft kg g lb lbs
    k usd eur dollars euros cents percent thousand million billion trillion""")
)
# Words that qualify a value without saying what it is of: "around 150ms", "under 2.5MB".
_APPROXIMATE = frozenset(
    _words("""around approximately roughly nearly almost about over under below above least
    most up total last next ago per each every""")
)
# Words that stand for a noun phrase said before ("it's rescheduled", "which has now
# reached"), and the speaker's words that start a clause of their own.
_PRONOUNS = _words("it it's its which that's this they them these those")
_SPEAKER = _words("i i'm i've i'd i'll we we're we've and but so")
# Words that say how a value came or what one asks, never what it is a value of.
_NOT_HEAD = FRAMING | _CHANGE_TO | _NOW | _REACHED | _APPROXIMATE | {"new", "currently"}
_REACHED_REACH = 2
# "from 60% to 85% over 2 weeks": a duration right after a change is how long it took,
# part of the change, never a value of its own.
_SPAN_WORDS = frozenset({"over", "in", "within"})
_DURATIONS = frozenset(tx.stem(w) for w in _words("day days week weeks month months year years"))
_HEAD_WORDS = 3


@dataclass(frozen=True, slots=True)
class Slot:
    """One value of a text: its kind ("when", "percent", "number", "version"), its
    canonical form, its token span, the stems of the content words next to it."""

    @property
    def head(self) -> frozenset[str]:
        """Every word next to it."""
        return self.after | self.before

    kind: str
    value: str
    start: int
    end: int
    after: frozenset[str]  # the noun it counts: "cards" of "8 cards"
    before: frozenset[str]  # the noun phrase before it: "deadline" of "deadline of April 1"
    unit: str  # what it is measured in: "ms" of "250ms", "" for none
    goal: bool
    was: bool  # the old side of a change: "from 60% to 85%"
    delta: bool  # a difference, not a state: "5 more problems", "an extra 2 hours"
    span: bool  # how long a change took: "from 60% to 85% over 2 weeks"


def cue_before(words: list[str], start: int, reach: int) -> bool:
    """Does a change cue govern the value starting at token ``start`` of ``words``
    (lowercased)? "now" within ``reach`` tokens before it, "new" within a few, "reached"
    right before it, or "to" right before it with a change verb at most ``reach`` tokens
    before that ("moving the Zoom call with the creative director to April 22")."""
    if _NOW & set(words[max(0, start - reach) : start]):
        return True
    if "new" in words[max(0, start - _NEW_REACH) : start]:
        return True
    if "reached" in words[max(0, start - _REACHED_REACH) : start]:
        return True
    if start == 0 or words[start - 1] != "to":
        return False
    return any(_changed(w) for w in words[max(0, start - 1 - reach) : start - 1])


def set_before(words: list[str], start: int, reach: int) -> bool:
    """Is the value starting at token ``start`` of ``words`` (lowercased) set by a verb
    that sets values: "to" right before it, "adjusted" / "revised" at most ``reach``
    tokens before that ("it was adjusted to 1,350 words")?"""
    if start == 0 or words[start - 1] != "to":
        return False
    return any(
        w.endswith("ed") and tx.stem(w) in _SET_TO
        for w in words[max(0, start - 1 - reach) : start - 1]
    )


def _changed(word: str) -> bool:
    """A change verb as a verb, done or doing ("moved", "moving", "grew"), not the base
    form a noun shares ("the accounting change")."""
    if word in _IRREGULAR_CHANGED:
        return True
    return word.endswith(("ed", "ing")) and tx.stem(word) in _CHANGE_TO


def _is_month(token: str) -> bool:
    low = token.lower()
    return low in tx.MONTHS and (token[:1].isupper() or low not in {"may", "mar", "jan"})


def _moment(tokens: list[str], i: int) -> tuple[str, int] | None:
    """A date or time starting at token ``i`` ("April 1, 2024 at 3 PM"): its canonical
    form and the index after it."""
    low = [t.lower() for t in tokens]
    n = len(tokens)
    parts: list[str] = []
    j = i
    if _is_month(tokens[i]) and i + 1 < n and _DAY.match(low[i + 1]):
        parts = [low[i][:3], low[i + 1]]
        j = i + 2
        if j < n and _YEAR.match(low[j]):
            parts.append(low[j])
            j += 1
        if j + 1 < n and low[j] == "at" and _CLOCK.match(low[j + 1]):
            j += 1
    elif _DAY.match(low[i]) and i + 1 < n and _is_month(tokens[i + 1]):
        parts = [low[i + 1][:3], low[i]]
        j = i + 2
    if j < n and _CLOCK.match(low[j]) and j + 1 < n and low[j + 1] in _MERIDIEM:
        parts += [low[j], low[j + 1]]
        j += 2
    return (" ".join(parts), j) if parts else None


def _after(low: list[str], end: int) -> frozenset[str]:
    """The noun the value counts: content words right after it, up to a stopword, a
    unit or another value ("8 cards", "1,000 daily call limit"; none for "250ms")."""
    out: list[str] = []
    for w in low[end : end + _HEAD_WORDS]:
        if w[:1].isdigit() or w in tx.STOPWORDS or tx.is_negation(w) or w in _UNITS:
            break
        stem = tx.stem(w)
        if stem in _NOT_HEAD or w in tx.MONTHS:
            break
        out.append(stem)
    return frozenset(out)


def _skipped(w: str) -> bool:
    stem = tx.stem(w)
    return (
        w in tx.STOPWORDS
        or tx.is_negation(w)
        or stem in _NOT_HEAD
        or w in _UNITS
        or w in tx.MONTHS
        or w in _MERIDIEM
    )


def _before(low: list[str], start: int) -> frozenset[str]:
    """The noun phrase the value belongs to, read back from it: the nearest content
    words up to the stopword before them ("a deadline of April 1" -> deadline; "the
    dashboard API response time, which has now improved to 250ms" -> time, response,
    API), framing and change words skipped. Through a pronoun ("it's rescheduled to")
    only to the words right before it: past the speaker's own clause ("..., and I've
    improved it to 220ms") nothing is known of what "it" is."""
    out: list[str] = []
    through_pronoun = False
    for k in range(start - 1, -1, -1):
        w = low[k]
        if w[:1].isdigit():
            break
        if not out and w in _PRONOUNS:
            through_pronoun = True
            continue
        if not out and through_pronoun and w in _SPEAKER:
            return frozenset()
        if _skipped(w):
            if out and w in tx.STOPWORDS:
                break  # the noun phrase started after this word
            continue
        out.append(tx.stem(w))
        if len(out) >= _HEAD_WORDS:
            break
    return frozenset(out)


def _unit(low: list[str], end: int) -> str:
    """The unit the value is measured in, if one follows it ("250 ms", "4 hours")."""
    return tx.stem(low[end]) if end < len(low) and low[end] in _UNITS else ""


@functools.lru_cache(maxsize=4096)
def read_slots(text: str) -> tuple[Slot, ...]:
    """The values ``text`` states, in order (see the module docstring)."""
    tokens = tx.tokens(text)
    low = [t.lower() for t in tokens]
    out: list[Slot] = []
    i = 0
    while i < len(tokens):
        moment = _moment(tokens, i)
        if moment is not None:
            value, end = moment
            kind = "when"
        elif low[i][:1].isdigit() and not _BAD_GROUPS.search(low[i]):
            end = i + 1
            value = low[i].replace(",", "")
            if value.endswith("%"):
                kind = "percent"
            elif value.count(".") >= 2 or (i > 0 and low[i - 1] in {"v", "version"}):
                kind = "version"
            elif _YEAR.match(value):
                i += 1  # a year alone dates a fact; it is no value of it
                continue
            else:
                kind = "number"
        else:
            i += 1
            continue
        before = {tx.stem(w) for w in low[max(0, i - 3) : i]}
        phrase = _before(low, i)
        span = (
            len(out) >= 2
            and out[-2].was
            and out[-1].end == i - 1
            and low[i - 1] in _SPAN_WORDS
            and _unit(low, end) in _DURATIONS
        )
        out.append(
            Slot(
                kind=kind,
                value=value,
                start=i,
                end=end,
                after=_after(low, end),
                before=phrase,
                unit=_unit(low, end),
                # "targeting 1,200 words", or a goal its noun phrase names ("my weekly
                # goal was adjusted to 1,350 words").
                goal=bool((before | phrase) & _GOAL),
                was=i > 0 and low[i - 1] == "from",
                delta=bool(_DELTA & {*low[end : end + 2], *low[max(0, i - 1) : i]}),
                span=span,
            )
        )
        i = end
    return tuple(out)


def context_words(text: str) -> frozenset[str]:
    """Content stems of ``text`` less its values, change cues and framing words: what
    its statement is about."""
    values = {s for slot in read_slots(text) for s in slot.value.split()}
    return frozenset(
        stem
        for stem in tx.content_sequence(text)
        if stem not in values
        and not stem[:1].isdigit()
        and stem not in _NOT_HEAD
        and stem not in _MERIDIEM
        and stem not in tx.MONTHS
    )
