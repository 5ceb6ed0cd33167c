"""Does a newer memory give a known fact a new value?

"The worker concurrency is set to 8" / "Worker concurrency was raised to 16", "The
repo's default branch is master" / "...was renamed to main", "In 2024 the Basic plan
cost $9 per month" / "In 2025 the Basic plan costs $12 per month". Read with the same
alignment as paraphrases (``policy.wording.paraphrase.read``): the newer text carries a sign of
change (a change word the older lacks, or a later year with another value changed too),
both are about the same subject (the same relatives and environments, no owner
swapped), most of the older statement is still there, and what is gone is a value the
newer one replaces. A year alone changing is another event ("ran the marathon in 2022"
/ "in 2023"), not an update. Pure: no I/O.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Set
from dataclasses import dataclass

from memfold.policy import text as tx
from memfold.policy.subject import ENVIRONMENT_WORDS, RELATION_WORDS
from memfold.policy.wording import lexicon as lx
from memfold.policy.wording.paraphrase import read

_YEAR = re.compile(r"^(19|20|21)\d\d$")
_ADDITIVE = ("also", "too", "as well", "additionally", "in addition", "another", "besides")
_SUBJECT_WORDS = frozenset(RELATION_WORDS) | ENVIRONMENT_WORDS


@dataclass(frozen=True, slots=True)
class UpdateLimits:
    """How much of a statement an update may change (from ConsolidationSettings)."""

    # Concepts of the older statement the newer one may drop (the old value).
    max_gone: int = 3
    # Concepts the newer one may add beyond as many as it dropped ("in May").
    max_extra: int = 3
    # Share of the older statement's concepts the newer one keeps (the attribute).
    min_kept: float = 0.5
    # Concepts both must share, at the least.
    min_shared: int = 2


def value_update(older: str, newer: str, limits: UpdateLimits | None = None) -> str:
    """Why ``newer`` updates ``older`` to a new value (a reason), or "" if it does not."""
    limits = limits or UpdateLimits()
    a, b = read(older), read(newer)
    if a.question or b.question or a.negated != b.negated:
        return ""
    # "now also likes opera" adds a value beside the old one; it replaces nothing.
    if tx.has_phrase(newer, _ADDITIVE):
        return ""
    if a.possessors and b.possessors and a.possessors != b.possessors:
        return ""
    if (a.concepts & _SUBJECT_WORDS) != (b.concepts & _SUBJECT_WORDS):
        return ""
    cues = (change_words(newer) - change_words(older)) | (
        {"now"} if tx.has_change_cue(newer) and not tx.has_change_cue(older) else set()
    )
    every_cue = lx.CHANGE_STEMS | lx.CHANGE_STEMS_BEFORE_VALUE
    old = a.concepts - every_cue - cues
    new = b.concepts - every_cue - cues
    gone, came, shared = old - new, new - old, old & new
    if not gone or not came or len(shared) < limits.min_shared:
        return ""
    if len(gone) > limits.max_gone or len(came) > len(gone) + limits.max_extra:
        return ""
    if len(shared) / len(old) < limits.min_kept:
        return ""
    # Several numbers changing at once is another statement ("paid 5 dollars for 2
    # tickets" / "paid 7 dollars for 3"), not one value updated. Years are the dating.
    if len({c for c in gone if c[:1].isdigit() and not _YEAR.match(c)}) > 1:
        return ""
    # A year alone changing is another event ("visited Rome in 2019" / "in 2023").
    if not gone - _years(gone):
        return ""
    if not cues and not _later_year(old, new):
        return ""
    sign = ", ".join(sorted(cues)) if cues else "a later year"
    return (
        f"a new value for the same statement ({', '.join(sorted(gone))} -> "
        f"{', '.join(sorted(came))}; sign of change: {sign})"
    )


# How far after a change verb its "to" / "from" may stand ("cut down to").
_VALUE_REACH = 3


@functools.lru_cache(maxsize=8192)
def change_words(text: str) -> frozenset[str]:
    """The change words a text uses, as stems ("raised" -> "rais"); the weaker ones
    ("raised", "moved") only with a "to" / "from" after them. Remembered per text (a
    save is read against each candidate): a frozenset, nothing to change in place."""
    words = [t.lower() for t in tx.tokens(text)]
    found: set[str] = set()
    for i, word in enumerate(words):
        stem = tx.stem(word)
        followed = words[i + 1 : i + 1 + _VALUE_REACH]
        weak = stem in lx.CHANGE_STEMS_BEFORE_VALUE and bool(lx.CHANGE_VALUE_WORDS & set(followed))
        if stem in lx.CHANGE_STEMS or weak:
            found.add(stem)
    return frozenset(found)


def _years(concepts: Set[str]) -> set[str]:
    return {c for c in concepts if _YEAR.match(c)}


def _later_year(old: Set[str], new: Set[str]) -> bool:
    """Both name a year, and the newer names a later one."""
    old_years, new_years = _years(old), _years(new)
    return bool(old_years and new_years) and max(new_years) > max(old_years)
