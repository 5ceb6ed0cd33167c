"""How two memory texts relate, by rules alone: the evidence the rule judge decides on.

Embedding similarity cannot tell "likes coffee" from "doesn't like coffee" (cosine 0.83),
so the relation is read from the words: normalized equality, ordered containment of
content words, scoped negation flips and one value swapped for another.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from memfold.policy import text as tx
from memfold.policy.values.fact_update import FactLimits, fact_update
from memfold.policy.values.value_update import value_update
from memfold.policy.wording.elaboration import elaboration, qualifies_owned_or_role
from memfold.policy.wording.paraphrase import newer_generalizes, paraphrase

# What ``compare`` reads of one text, remembered per text: a save is compared with
# several candidates, and a drain compares the same texts again when it judges a save
# anew. The functions are pure, so a remembered answer is the answer (tuples and
# frozensets: nothing handed out can be changed in place).
_TEXT_CACHE = 8192
_cue = functools.lru_cache(maxsize=_TEXT_CACHE)(tx.has_change_cue)
_normalized = functools.lru_cache(maxsize=_TEXT_CACHE)(tx.normalized)
_negated = functools.lru_cache(maxsize=_TEXT_CACHE)(tx.negated)
_question = functools.lru_cache(maxsize=_TEXT_CACHE)(tx.is_question)


@functools.lru_cache(maxsize=_TEXT_CACHE)
def _core(text: str) -> tuple[str, ...]:
    return tuple(tx.core_sequence(text))


@functools.lru_cache(maxsize=_TEXT_CACHE)
def _strict(text: str) -> tuple[str, ...]:
    return tuple(tx.strict_sequence(text))


@functools.lru_cache(maxsize=_TEXT_CACHE)
def _numbers(text: str) -> frozenset[str]:
    return frozenset(tx.numbers(text))


@functools.lru_cache(maxsize=_TEXT_CACHE)
def _slot_values(text: str) -> frozenset[str]:
    return frozenset(tx.slot_values(text))


class Relation(StrEnum):
    EXACT = "exact"  # same text after case/space/punctuation normalization
    SAME_WORDS = "same_words"  # same words in the same order, articles aside
    CONTAINS = "contains"  # the longer says all the shorter says, as one block, and more
    SUBSUMES = "subsumes"  # the longer keeps every word of the shorter, in order
    PARAPHRASE = "paraphrase"  # the same concepts in other words (policy.wording.paraphrase)
    ELABORATES = "elaborates"  # the same and a modifier more (policy.wording.elaboration)
    NEGATION_FLIP = "negation_flip"  # one negates or retracts what the other states
    VALUE_CHANGE = "value_change"  # same statement, another number / date / name
    UPDATED = "updated"  # a new value with a sign of change (policy.values.value_update)
    OTHER = "other"


@dataclass(frozen=True, slots=True)
class RuleThresholds:
    """Rule-judge thresholds, read from ConsolidationSettings (``rules_*``), where the
    defaults live (see ``memfold.judge.rules.thresholds_from_settings``)."""

    # Share of content words (Dice, cue words removed) two texts must share for a negation
    # flip to count as a contradiction of the same statement.
    flip_min_overlap: float
    # Content words (besides the swapped values) allowed to differ in a value change.
    value_max_other_diff: int
    # Content words both texts must share for a value change.
    value_min_shared: int
    # Cosine above which content-word subsumption (words inserted) may become a MERGE.
    merge_min_similarity: float
    # A text with this many content words or fewer is filed under "fragments".
    fragment_max_words: int
    # Concepts (manner adverbs, modifiers) one text may say more and still fold.
    elaboration_max_extra: int = 2
    # How a new value for one fact is read (``policy.values.fact_update``).
    fact: FactLimits = field(default_factory=FactLimits.default)


@dataclass(frozen=True, slots=True)
class Comparison:
    relation: Relation
    # Dice overlap of content words with cue phrases removed (0..1).
    overlap: float
    # True when the newer text ("b") carries a change or retraction cue.
    change_cue: bool
    # True when "b" is the longer (containing) text; meaningful for containment relations.
    newer_is_longer: bool
    detail: str
    # True when a restatement puts a general word for the older's specific one.
    newer_is_general: bool = False


def is_exact(older: str, newer: str) -> bool:
    """Whether ``compare`` reads the pair as EXACT (it tests this before any other rule)."""
    return _normalized(older) == _normalized(newer)


def compare(older: str, newer: str, limits: RuleThresholds) -> Comparison:
    """Relation between an older memory text and a newer one."""
    # A cue counts only if it is new: "we're now fighting" in both texts updates nothing.
    cue = _cue(newer) and not _cue(older)
    seq_a, seq_b = _core(older), _core(newer)
    overlap = _dice(set(seq_a), set(seq_b))
    newer_longer = len(_strict(newer)) >= len(_strict(older))

    def result(relation: Relation, detail: str, longer: bool = newer_longer) -> Comparison:
        return Comparison(relation, overlap, cue, longer, detail)

    if is_exact(older, newer):
        return result(Relation.EXACT, "identical after normalization")

    # Before the value and negation rules: "$85k" / "$85,000" and "does not like" /
    # "dislikes" are one value and one polarity once spelled alike.
    restated = paraphrase(older, newer)
    if restated:
        general = newer_generalizes(older, newer)
        return Comparison(Relation.PARAPHRASE, overlap, cue, newer_longer, restated, general)
    more = elaboration(older, newer, limits.elaboration_max_extra)
    if more is not None:
        return result(Relation.ELABORATES, more.reason, more.newer_is_longer)

    flip = _negation_flip(older, newer, overlap, limits)
    if flip:
        return result(Relation.NEGATION_FLIP, flip)

    updated = value_update(older, newer) or fact_update(older, newer, limits.fact)
    if updated:
        return Comparison(Relation.UPDATED, overlap, True, newer_longer, updated)

    swap = _value_change(older, newer, limits, cue)
    if swap:
        return result(Relation.VALUE_CHANGE, swap)

    full_a, full_b = _strict(older), _strict(newer)
    if not full_a or not full_b or not _same_polarity_or_outside(older, newer):
        return result(Relation.OTHER, "no rule matched")
    if _question(older) != _question(newer):
        return result(Relation.OTHER, "a question and a statement")
    if full_a == full_b:
        return result(Relation.SAME_WORDS, "same words in the same order")
    short, long = (full_a, full_b) if len(full_a) <= len(full_b) else (full_b, full_a)
    longer_is_newer = long is full_b
    if not (_numbers(older) | _numbers(newer)) <= _numbers(newer if longer_is_newer else older):
        return result(Relation.OTHER, "numbers differ")
    if _is_block(short, long):
        return result(Relation.CONTAINS, "one text contains the other", longer_is_newer)
    longer_text, shorter_text = (newer, older) if longer_is_newer else (older, newer)
    if _is_subsequence(short, long) and not qualifies_owned_or_role(shorter_text, longer_text):
        return result(Relation.SUBSUMES, "one text keeps every word of the other", longer_is_newer)
    return result(Relation.OTHER, "no rule matched")


def _negation_flip(older: str, newer: str, overlap: float, limits: RuleThresholds) -> str:
    neg_a, neg_b = _negated(older), _negated(newer)
    if neg_a == neg_b or overlap < limits.flip_min_overlap:
        return ""
    negated_text, plain_text = (older, newer) if neg_a else (newer, older)
    scope = tx.negated_terms(negated_text)
    plain_words = set(_core(plain_text))
    # "anymore" retracts the whole statement, wherever it stands.
    whole = tx.has_phrase(negated_text, ("anymore", "any more", "not anymore"))
    hit = scope & plain_words
    if not hit and not whole:
        return ""
    side = "older" if neg_a else "newer"
    return f'the {side} memory negates "{plain_text}" (content overlap {overlap:.2f})'


def _value_change(older: str, newer: str, limits: RuleThresholds, cue: bool) -> str:
    values_a, values_b = _slot_values(older), _slot_values(newer)
    gone, came = values_a - values_b, values_b - values_a
    # Exactly one slot swapped: several values changing at once is another statement.
    if len(gone) != 1 or len(came) != 1:
        return ""
    stemmed_values = {tx.stem(v) for v in values_a | values_b} | values_a | values_b
    core_a = {w for w in _core(older) if w not in stemmed_values}
    core_b = {w for w in _core(newer) if w not in stemmed_values}
    shared = core_a & core_b
    other_diff = len(core_a ^ core_b)
    # A change cue ("moved to Berlin") stands in for one shared word ("lives in Paris").
    min_shared = limits.value_min_shared - (1 if cue else 0)
    if len(shared) < min_shared or other_diff > limits.value_max_other_diff:
        return ""
    return (
        f"same statement with another value: {', '.join(sorted(gone))} -> {', '.join(sorted(came))}"
    )


def _same_polarity_or_outside(older: str, newer: str) -> bool:
    """Containment is allowed when both have the same polarity, or the negation only
    covers words the other text never said ("likes coffee" / "likes coffee, not tea")."""
    neg_a, neg_b = _negated(older), _negated(newer)
    if neg_a == neg_b:
        return True
    negated_text, plain_text = (older, newer) if neg_a else (newer, older)
    if tx.has_retraction_cue(negated_text):
        return False
    return not (tx.negated_terms(negated_text) & set(tx.content_sequence(plain_text)))


def _dice(a: set[str], b: set[str]) -> float:
    if not a and not b:
        return 1.0
    return 2.0 * len(a & b) / (len(a) + len(b))


def _is_block(short: Sequence[str], long: Sequence[str]) -> bool:
    n = len(short)
    return any(long[i : i + n] == short for i in range(len(long) - n + 1))


def _is_subsequence(short: Sequence[str], long: Sequence[str]) -> bool:
    remaining = iter(long)
    return all(word in remaining for word in short)
