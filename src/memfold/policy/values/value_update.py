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
import unicodedata
from collections.abc import Set
from dataclasses import dataclass

from memfold.policy import text as tx
from memfold.policy.subject import ENVIRONMENT_WORDS, RELATION_WORDS
from memfold.policy.values.leaving import left_concepts
from memfold.policy.wording import lexicon as lx
from memfold.policy.wording.concepts import TOKEN, concept_of
from memfold.policy.wording.paraphrase import Reading, read
from memfold.policy.wording.spelling import canonical_text

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
    # What the newer names as left ("left Deloitte", "from Admiral to", "no longer uses
    # Jenkins") and the older said: the old value, named, so gone from the newer too.
    left = left_concepts(newer) & a.concepts
    retracted_and_replaced = bool(left) and b.negated and tx.has_retraction_cue(newer)
    if a.question or b.question or (a.negated != b.negated and not retracted_and_replaced):
        return ""
    # "now also likes opera" adds a value beside the old one; it replaces nothing.
    if tx.has_phrase(newer, _ADDITIVE):
        return ""
    # Another owner ("Ian's car" / "Mia's car"); an owner the other text names in a
    # compound is the same one ("the Ember service's retention" / "Ember's retention").
    if (a.possessors - b.concepts) and (b.possessors - a.concepts):
        return ""
    if (a.concepts & _SUBJECT_WORDS) != (b.concepts & _SUBJECT_WORDS):
        return ""
    # A change verb counts only where the value it changes to is new: "increased to
    # 58.9" / "rose to 58.9" tell one change twice, "was 6,080,485" / "grew by 30.4
    # percent to 6,080,485" no change at all.
    cues = set(change_words(newer) - change_words(older) - _known_targets(newer, a.concepts))
    if tx.has_change_cue(newer) and not tx.has_change_cue(older):
        cues.add("now")
    every_cue = lx.CHANGE_STEMS | lx.CHANGE_STEMS_BEFORE_VALUE
    old = a.concepts - every_cue - cues
    new = b.concepts - every_cue - cues - left
    gone, came, shared = old - new, new - old, old & new
    # A named old value is evidence enough for a statement the newer words otherwise
    # ("drives a Fiat 500" / "sold her Fiat 500 and bought a Renault Zoe"): the subject
    # alone need be shared, and it must be the same one.
    min_shared = 1 if left and _same_subject(a, b) else limits.min_shared
    if not gone or not came or len(shared) < min_shared:
        return ""
    if len(gone) > limits.max_gone or len(came) > len(gone) + limits.max_extra:
        return ""
    if not left and len(shared) / len(old) < limits.min_kept:
        return ""
    # Several numbers changing at once is another statement ("paid 5 dollars for 2
    # tickets" / "paid 7 dollars for 3"), not one value updated. Years are the dating.
    if len({c for c in gone if c[:1].isdigit() and not _YEAR.match(c)}) > 1:
        return ""
    # A year alone changing is another event ("visited Rome in 2019" / "in 2023").
    if not gone - _years(gone):
        return ""
    if not cues and not left and not _later_year(old, new):
        return ""
    signs = sorted(cues) + ([f"named as left: {', '.join(sorted(left))}"] if left else [])
    sign = "; ".join(signs) if signs else "a later year"
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


def _known_targets(text: str, known: frozenset[str]) -> set[str]:
    """The weaker change words of ``text`` whose "to" names only what ``known`` holds
    ("grew by 30.4 percent to 6,080,485" when 6,080,485 was known): no change to it."""
    words = TOKEN.findall(canonical_text(unicodedata.normalize("NFKC", text)))
    out: set[str] = set()
    for i, word in enumerate(words):
        stem = tx.stem(word)
        if stem not in lx.CHANGE_STEMS_BEFORE_VALUE:
            continue
        reach = words[i + 1 : i + 1 + _TARGET_REACH]
        if "to" not in reach:
            continue
        target: set[str] = set()
        for follower in words[i + 1 + reach.index("to") + 1 :]:
            if follower in _TARGET_ENDS:
                break
            if concept_of(follower):
                target.add(concept_of(follower))
        if target and target <= known:
            out.add(stem)
    return out


# How far after a change verb its "to" is looked for among the canonical words (a few
# more than ``_VALUE_REACH``: "cut her monthly grocery budget to 320").
_TARGET_REACH = _VALUE_REACH + 3
# Where the value a change verb names ends ("to Node.js 20 in production").
_TARGET_ENDS = frozenset(["in", "on", "at", "from", "for", "after", "since", "and", ",", "by"])


def _same_subject(a: Reading, b: Reading) -> bool:
    """Both name the same first party (a name, "user"), or open with the same concept."""
    if a.entities and b.entities:
        return a.entities[0] == b.entities[0]
    return bool(a.first) and a.first == b.first


def _years(concepts: Set[str]) -> set[str]:
    return {c for c in concepts if _YEAR.match(c)}


def _later_year(old: Set[str], new: Set[str]) -> bool:
    """Both name a year, and the newer names a later one."""
    old_years, new_years = _years(old), _years(new)
    return bool(old_years and new_years) and max(new_years) > max(old_years)
