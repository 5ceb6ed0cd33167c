"""What the rules can see about two memories before one may absorb or retire the other.

Two gates, both pure:

- ``combine_problems``: may these texts be folded into one (UPDATE, MERGE, a REPLACE
  that keeps everything)? Only if they state the same fact: the same subject (no
  relation, possessive, environment or year that differs), no value or word swapped
  for another ("work laptop" / "personal laptop"), no words turned around ("video
  calls over phone calls" / "phone calls over video calls") and no statement one
  denies and the other makes.
- ``supersede_evidence``: may a newer memory retire an older one (DELETE, REPLACE)?
  Only with evidence the rules can see: the same subject, and a change or retraction
  cue in the newer text ("no longer", "moved to", "now") about the same statement (most
  of its words, values aside). A plain negation with no cue is a
  contradiction: both stay visible, linked. Two facts that differ only by a year, a
  relative or an environment are never retired. A new value the alignment reads
  (``policy.values.value_update``: "set to 8" / "was raised to 16") is evidence too, and so is
  a new value for one fact (``policy.values.fact_update``: "my April 20 deadline" / "the new
  April 25 deadline").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from itertools import combinations

from memfold.policy import text as tx
from memfold.policy.subject import subject_difference
from memfold.policy.values.fact_update import FactLimits, fact_update
from memfold.policy.values.value_update import value_update
from memfold.policy.wording.paraphrase import turned_around


@dataclass(frozen=True, slots=True)
class Evidence:
    """The verdict on a supersede: ``found`` or not, why, and whether it is a contradiction
    (a negation with no cue: keep both, link them as contradicting)."""

    found: bool
    reason: str
    contradiction: bool = False


def combine_problems(texts: Sequence[str]) -> list[str]:
    """Why these texts are not one fact told twice (empty: they may be folded)."""
    problems: list[str] = []
    for a, b in combinations(texts, 2):
        difference = subject_difference(a, b)
        if difference:
            problems.append(f"different subject ({difference})")
        swapped = swapped_values(a, b)
        if swapped:
            problems.append(f"another value ({swapped})")
        else:
            word = swapped_words(a, b)
            if word:
                problems.append(f"another word in the same place ({word})")
        if turned_around(a, b):
            problems.append("the same words turned around")
        denied = denied_terms(a, b) | denied_terms(b, a)
        if denied:
            problems.append(f"one denies what the other states ({', '.join(sorted(denied))})")
    return problems


def supersede_evidence(
    newer: str, older: str, min_overlap: float, facts: FactLimits | None = None
) -> Evidence:
    """May ``newer`` retire ``older``? See the module docstring. ``facts``: how a new
    value for one fact is read (``policy.values.fact_update``; its defaults when None)."""
    updated = value_update(older, newer) or fact_update(older, newer, facts)
    if updated:
        return Evidence(True, updated)
    difference = subject_difference(older, newer)
    if difference:
        return Evidence(False, f"different subject ({difference})")
    denied = denied_terms(newer, older)
    swapped = swapped_values(older, newer)
    retraction = tx.has_retraction_cue(newer) and not tx.has_retraction_cue(older)
    change = retraction or (tx.has_change_cue(newer) and not tx.has_change_cue(older))
    if not change:
        if denied:
            return Evidence(False, "a negation with no sign of change: a contradiction", True)
        return Evidence(False, "no change or retraction cue in the newer memory")
    overlap = core_overlap(older, newer)
    if overlap < min_overlap:
        return Evidence(False, f"a change cue about something else (overlap {overlap:.2f})")
    if denied:
        return Evidence(True, f"the newer memory retracts {', '.join(sorted(denied))}")
    if swapped:
        return Evidence(True, f"the newer memory changes a value ({swapped})")
    return Evidence(True, f"a change cue about the same statement (overlap {overlap:.2f})")


def denied_terms(denier: str, stater: str) -> set[str]:
    """Words ``denier`` negates that ``stater`` states without negating them. A denial
    wrapped around the whole statement ("It is false that ...") negates all it shares."""
    if tx.denies(denier) and not tx.denies(stater):
        return tx.content_words(denier) & tx.content_words(stater)
    return (tx.negated_terms(denier) - tx.negated_terms(stater)) & tx.content_words(stater)


def swapped_values(a: str, b: str) -> str:
    """A number, date or name each text has and the other lacks ("" when none is swapped).
    A value only one text adds enriches the fact ("since 2026", "near the Spree"); one
    swapped for another of the same kind changes it ("2019" -> "2023")."""
    for kind in ("numbers", "dates", "names"):
        va, vb = _slots(a, kind), _slots(b, kind)
        gone, came = va - vb, vb - va
        if gone and came:
            return f"{', '.join(sorted(gone))} -> {', '.join(sorted(came))}"
    return ""


# The most words on either side of a swap: "older" -> "younger", "data engineers" ->
# "data scientists". A longer rewording is left to the other checks.
_SWAP_SPAN = 2


def swapped_words(a: str, b: str, known: frozenset[str] = frozenset()) -> str:
    """A content word of ``a`` standing where ``b`` has another, the words around them
    aligned ("studied at" / "taught at"): one slot told two ways, so two facts or an
    update, never one fact twice ("" when none). A swap whose new words are all in
    ``known`` (the words of the sources of a merge) is a rewording and passes."""
    sa, sb = tx.core_sequence(a), tx.core_sequence(b)
    # A value (number, date, name) for a value is ``swapped_values``' business, and one
    # text adding "since 2026" at its end where the other adds "near the Spree" enriches,
    # it does not swap; nor does a number where the other has a word ("at nine" /
    # "weekly": a detail each adds). A word for a name between aligned words is a swap
    # here: "the data team" / "the ML team".
    values = {tx.stem(v) for v in tx.slot_values(a) | tx.slot_values(b)}
    names = {tx.stem(n.lower()) for n in tx.name_tokens_in_order(a) + tx.name_tokens_in_order(b)}
    matcher = SequenceMatcher(a=sa, b=sb, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "replace" or max(i2 - i1, j2 - j1) > _SWAP_SPAN:
            continue
        if set(sb[j1:j2]) <= known:
            continue
        va, vb = values & set(sa[i1:i2]), values & set(sb[j1:j2])
        inside = i1 > 0 and j1 > 0 and i2 < len(sa) and j2 < len(sb)
        if (va and vb) or ((va or vb) and not (inside and (va | vb) <= names)):
            continue
        return f"{' '.join(sa[i1:i2])} -> {' '.join(sb[j1:j2])}"
    return ""


def _slots(text: str, kind: str) -> set[str]:
    if kind == "numbers":
        return tx.numbers(text)
    if kind == "dates":
        return tx.dates(text) - tx.RELATIVE_DAYS
    return {n.lower() for n in tx.name_tokens_in_order(text)} - _month_and_day_names(text)


def _month_and_day_names(text: str) -> set[str]:
    return {t.lower() for t in tx.tokens(text) if t.lower() in tx.MONTHS | tx.WEEKDAYS}


def core_overlap(a: str, b: str) -> float:
    """Dice overlap of content words, change and retraction phrases and the values
    themselves (numbers, dates, names) left out: what the statement is about."""
    values = {tx.stem(v) for v in tx.slot_values(a) | tx.slot_values(b)}
    sa = set(tx.core_sequence(a)) - values
    sb = set(tx.core_sequence(b)) - values
    if not sa and not sb:
        return 1.0
    return 2.0 * len(sa & sb) / (len(sa) + len(sb))
