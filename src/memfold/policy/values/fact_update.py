"""Does a newer fact give one value of an older, single fact a new state?

"I have a deadline of April 1, 2024, for the first sprint" / "...to reflect the new
sprint deadline of April 5, 2024"; "a Zoom call with the creative director on April 21
at 3 PM" / "moving the Zoom call with the creative director to April 22 at 11 AM". The
two embed far apart (other words around the value) and ``policy.values.value_update``'s
alignment fails on the framing words, yet the value reading (``policy.values.slots``)
sees the same statement with a new value:

- the newer text has a value a change cue governs ("new", "now", "improved to",
  "moving ... to", "reached") and is no question;
- the older text has exactly one value of the same kind (a date or time, a percentage, a
  count, a version), a state if the newer's is (a goal such as "achieve 100%" is kept
  beside a progress figure such as "improved to 78%"; only a verb that sets a value
  gives a goal a new one: "targeting 1,200 words" / "it was adjusted to 1,350 words"),
  whose words are those of the newer's value ("8 cards" / "10 cards", "deadline of
  April 1" / "new April 25 deadline");
- both share ``min_shared`` words of what the statement is about, framing and values
  aside, and name the same people and environments (``policy.subject``);
- the values differ and the newer one does not still state the old one (unless as
  "from ..."), no other value of that kind changes with it ("paid 5 dollars for 2
  tickets" / "now paid 7 dollars for 3"); nothing additive ("also", "another") and no
  negation of the value;
- the older text is one fact: at most ``max_older_values`` values (a change's old side
  and how long it took aside: "improved from 60% to 85% over 2 weeks" states one) and
  ``max_older_words`` content words. A memory of many facts is never superseded whole
  because one of them changed: that needs it split into facts first
  (``policy.values.fact_split``).

Only the supersede is read here; the guards decide (``policy.evidence``). Pure: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass

from memfold.config import ConsolidationSettings
from memfold.policy import text as tx
from memfold.policy.subject import markers
from memfold.policy.values.slots import Slot, context_words, cue_before, read_slots, set_before

# How far before a value a negation denies it ("is not April 25").
_DENIAL_REACH = 2
_ADDITIVE = ("also", "too", "as well", "additionally", "in addition", "another", "besides")


@dataclass(frozen=True, slots=True)
class FactLimits:
    """How one fact's value update is read (``ConsolidationSettings.fact_update_*``; the
    values live there alone: ``default()`` reads the settings' defaults)."""

    # Words of what the statement is about both must share (values and framing aside).
    min_shared: int
    # An older text with more values, or more content words, is not one fact.
    max_older_values: int
    max_older_words: int
    # How far before a value "now" or a change verb ("moving the call ... to") may stand.
    cue_reach: int

    @classmethod
    def default(cls) -> FactLimits:
        return _DEFAULT

    @classmethod
    def from_settings(cls, settings: ConsolidationSettings) -> FactLimits:
        return cls(
            min_shared=settings.fact_update_min_shared,
            max_older_values=settings.fact_update_max_older_values,
            max_older_words=settings.fact_update_max_older_words,
            cue_reach=settings.fact_update_cue_reach,
        )


def fact_update(older: str, newer: str, limits: FactLimits | None = None) -> str:
    """Why ``newer`` gives a value of ``older`` a new state (a reason), or "" if it does
    not (see the module docstring)."""
    limits = limits or FactLimits.default()
    if tx.is_question(newer) or tx.is_question(older) or tx.has_phrase(newer, _ADDITIVE):
        return ""
    old_slots = read_slots(older)
    states = [o for o in old_slots if not (o.was or o.span)]
    if not states or len(states) > limits.max_older_values:
        return ""
    if len(tx.content_sequence(older)) > limits.max_older_words:
        return ""
    if not _same_owner(older, newer):
        return ""
    about_old, about_new = context_words(older), context_words(newer)
    shared = about_old & about_new
    if len(shared) < limits.min_shared:
        return ""
    words = [t.lower() for t in tx.tokens(newer)]
    new_slots = read_slots(newer)
    stated = {s.value for s in new_slots if not s.was}
    old_words = [t.lower() for t in tx.tokens(older)]
    for slot in new_slots:
        if slot.was or slot.delta or not cue_before(words, slot.start, limits.cue_reach):
            continue
        if _denied(words, slot):
            continue
        sets = set_before(words, slot.start, limits.cue_reach)
        matched = [
            o for o in old_slots if _same_attribute(o, slot, about_old, about_new, sets=sets)
        ]
        if len(matched) != 1:
            continue  # none, or two values it could be: not one fact's value
        old = matched[0]
        if old.value in stated or _denied(old_words, old):
            continue
        gone = [
            o
            for o in old_slots
            if o.kind == slot.kind and not (o.was or o.span) and o.value not in stated
        ]
        if len(gone) > 1:
            continue  # several values of a kind changing at once: another statement

        return (
            f"a new value for the same fact ({old.value} -> {slot.value}; "
            f"about {', '.join(sorted(shared))})"
        )
    return ""


def _same_attribute(
    old: Slot, new: Slot, about_old: frozenset[str], about_new: frozenset[str], *, sets: bool
) -> bool:
    """Are ``old`` and ``new`` values of one attribute? The same kind and unit, both
    states or both goals (or an older goal given a value by a verb that sets one,
    ``sets``: "targeting 1,200 words" / "it was adjusted to 1,350 words"; progress such
    as "improved to 78%" is no new goal); then either two counted nouns, one naming the
    other ("cards" / "cards"; "daily call limit" / "calls", never "coin toss" /
    "conditional" problems), or the noun phrase of the new value all found in the older
    text and that of the old one in the newer ("the dashboard API response time" is not
    "the response time" of another page)."""
    if old.kind != new.kind or old.unit != new.unit:
        return False
    if old.goal != new.goal and not (old.goal and sets):
        return False
    if old.was or old.delta or old.span:
        return False
    if old.after and new.after:
        return old.after <= new.after or new.after <= old.after
    if not new.before or not new.before <= about_old:
        return False
    return bool((old.before | old.after) & about_new)


def has_value_cue(text: str, limits: FactLimits | None = None) -> bool:
    """Does a change cue govern one of ``text``'s values ("the new April 25 deadline")?"""
    limits = limits or FactLimits.default()
    words = [t.lower() for t in tx.tokens(text)]
    return any(
        not s.was and not s.delta and cue_before(words, s.start, limits.cue_reach)
        for s in read_slots(text)
    )


def _denied(words: list[str], slot: Slot) -> bool:
    """Is the value itself negated ("not April 25", "isn't 8")? A negation elsewhere
    ("I won't meet the new April 25 deadline") still states it."""
    return any(tx.is_negation(w) for w in words[max(0, slot.start - _DENIAL_REACH) : slot.start])


def _same_owner(older: str, newer: str) -> bool:
    """The same people; environments and possessives may differ only where one text
    names none ("my first draft" / "my final draft ... production meetings")."""
    a, b = markers(older), markers(newer)
    if a.relations != b.relations:
        return False
    for left, right in ((a.environments, b.environments), (a.possessives, b.possessives)):
        if left and right and left != right:
            return False
    return True


_DEFAULT = FactLimits.from_settings(ConsolidationSettings())
