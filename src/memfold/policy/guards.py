"""Deterministic rules the engine enforces whatever a judge proposed.

Prime Directive: a missed merge is recoverable, a bad merge is not. Every check here can
only make a decision safer: a destructive action falls back to KEEP_SEPARATE (both
memories stay), a malformed one to SKIP (nothing happens, logged). Pure: no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

from memfold.config import ConsolidationSettings
from memfold.model import Action, Candidate, Decision, MemoryRecord
from memfold.policy.text import Facts, facts, word_set

_NEEDS_TARGETS = (Action.UPDATE, Action.MERGE, Action.REPLACE, Action.DELETE)
_WRITES_TEXT = (Action.UPDATE, Action.MERGE)


def apply_guards(
    decision: Decision,
    new: MemoryRecord,
    candidates: Sequence[Candidate],
    settings: ConsolidationSettings,
) -> Decision:
    """A copy of ``decision``, downgraded if it breaks a rule, with the reasons recorded."""
    guarded = replace(
        decision,
        target_ids=list(decision.target_ids),
        downgrade_reasons=list(decision.downgrade_reasons),
        confidence=_clamp01(decision.confidence),
        importance=None if decision.importance is None else _clamp01(decision.importance),
    )
    action = guarded.action
    if action in (Action.SKIP, Action.ADD, Action.KEEP_SEPARATE):
        return guarded

    skip_reasons = _structural_problems(guarded, new, candidates)
    if skip_reasons:
        # Malformed, not uncertain: retrying the same answer would not help.
        return _downgrade(guarded, Action.SKIP, skip_reasons, keep_targets=False)

    by_id = {c.memory.id: c for c in candidates}
    targets = [by_id[t] for t in _unique(guarded.target_ids)]
    reasons = _similarity_problems(guarded, targets, settings)
    if action in _WRITES_TEXT:
        reasons += _text_problems(guarded.text, new, [t.memory for t in targets], settings)
    if reasons:
        return _downgrade(guarded, Action.KEEP_SEPARATE, reasons, keep_targets=True)
    return guarded


def _structural_problems(
    decision: Decision, new: MemoryRecord, candidates: Sequence[Candidate]
) -> list[str]:
    action = decision.action
    ids = _unique(decision.target_ids)
    if action in _NEEDS_TARGETS and not ids:
        return [f"{action.value} names no target"]
    by_id = {c.memory.id: c for c in candidates}
    problems: list[str] = []
    for target_id in ids:
        candidate = by_id.get(target_id)
        if candidate is None:
            problems.append(f"target {target_id!r} is not among the candidates")
        elif candidate.memory.scope != new.scope:
            problems.append(f"target {target_id!r} is in another scope")
        elif target_id == new.id:
            problems.append(f"target {target_id!r} is the new memory itself")
    if action is Action.UPDATE and len(ids) != 1:
        problems.append(f"UPDATE needs exactly one target, got {len(ids)}")
    return problems


def _similarity_problems(
    decision: Decision, targets: Sequence[Candidate], settings: ConsolidationSettings
) -> list[str]:
    action = decision.action
    if action in (Action.MERGE, Action.REPLACE):
        floor = settings.destructive_threshold
        return [
            f"{action.value} needs cosine >= {floor:.2f} with every target; "
            f"{t.memory.id} has {t.similarity:.3f}"
            for t in targets
            if not t.similarity >= floor  # NaN fails too
        ]
    if action is Action.DELETE:
        problems = [
            f"DELETE needs cosine >= {settings.delete_threshold:.2f}; "
            f"{t.memory.id} has {t.similarity:.3f}"
            for t in targets
            if not t.similarity >= settings.delete_threshold
        ]
        if decision.confidence < settings.delete_min_confidence:
            problems.append(
                f"DELETE needs confidence >= {settings.delete_min_confidence:.2f}, "
                f"got {decision.confidence:.2f}"
            )
        return problems
    return []


def _text_problems(
    text: str | None,
    new: MemoryRecord,
    targets: Sequence[MemoryRecord],
    settings: ConsolidationSettings,
) -> list[str]:
    if text is None or not text.strip():
        return ["result text is empty"]
    problems: list[str] = []
    kept = facts(text)
    kept_words = word_set(text)
    for source in (new, *targets):
        problems += information_loss(
            facts(source.text), kept, kept_words, source.id, settings.min_content_word_recall
        )
    return problems


def information_loss(
    source: Facts, result: Facts, result_words: set[str], source_id: str, min_recall: float
) -> list[str]:
    """What a result drops of one source: numbers, dates, names, too many content words."""
    problems: list[str] = []
    for number in sorted(source.numbers - result.numbers):
        problems.append(f"result drops number {number!r} of {source_id}")
    for date in sorted(source.dates - result.dates):
        problems.append(f"result drops date {date!r} of {source_id}")
    for name in sorted(n for n in source.names if n not in result_words):
        problems.append(f"result drops name {name!r} of {source_id}")
    if source.content:
        kept = len(source.content & result.content) / len(source.content)
        if kept < min_recall:
            missing = ", ".join(sorted(source.content - result.content)[:8])
            problems.append(
                f"result keeps {kept:.0%} of the content words of {source_id} "
                f"(< {min_recall:.0%}); missing: {missing}"
            )
    return problems


def _downgrade(
    decision: Decision, to: Action, reasons: list[str], *, keep_targets: bool
) -> Decision:
    return replace(
        decision,
        action=to,
        # KEEP_SEPARATE may still link the (validated) targets as related; SKIP names none.
        target_ids=_unique(decision.target_ids) if keep_targets else [],
        text=None,
        downgraded_from=decision.downgraded_from or decision.action,
        downgrade_reasons=[*decision.downgrade_reasons, *reasons],
        transient=False,
    )


def _unique(ids: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(ids))


def _clamp01(value: float) -> float:
    if math.isnan(value):
        return 0.0
    return min(1.0, max(0.0, value))
