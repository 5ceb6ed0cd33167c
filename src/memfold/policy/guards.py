"""Deterministic rules the engine enforces whatever a judge proposed.

Prime Directive: a missed merge is recoverable, a bad merge is not. Every check here can
only make a decision safer: a destructive action falls back to KEEP_SEPARATE (both
memories stay), a malformed one to SKIP (nothing happens, logged). Pure: no I/O.

- Ids: targets come from the candidate set, in the new memory's scope.
- UPDATE and MERGE fold texts: cosine gates (``update_threshold``, ``destructive_threshold``),
  sources that state the same fact (``policy.evidence.combine_problems``) and a text
  that passes the one result check (``policy.result_check``).
- REPLACE and DELETE retire a target: never when the parse reads the two texts as about
  another thing (``memfold.reading.difference.supersede_conflicts``). A REPLACE whose
  readings agree is a restatement, on the destructive threshold read on the embedder's
  calibrated similarity (``memfold.embed.calibration``); one the older word rules align
  (``policy.wording.paraphrase``) has the lower ``paraphrase_min_similarity`` gate; any
  other needs evidence the rules can see (``policy.evidence.supersede_evidence``). A
  negation with no sign of change stays a contradiction: KEEP_SEPARATE, linked.
- Folds (UPDATE, MERGE) are refused on a difference of fact between the readings
  (``fold_conflicts``), and their text must keep every source's bindings
  (``memfold.reading.bindings``, inside the result check).
- A memory holding an instruction addressed to a model is never consolidated.
- An update-channel candidate (``Candidate.via == "update"``) may only be superseded:
  DELETE, with evidence, on ``update_channel_min_similarity``; anything else naming it
  becomes KEEP_SEPARATE.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

from memfold.config import ConsolidationSettings
from memfold.embed.calibration import IDENTITY, SimilarityScale
from memfold.model import Action, Candidate, Decision, MemoryRecord
from memfold.policy.evidence import combine_problems, supersede_evidence
from memfold.policy.result_check import (
    ResultLimits,
    Source,
    check_result,
    dropped,
    instruction_like,
)
from memfold.policy.values.fact_update import FactLimits, fact_update
from memfold.policy.values.value_update import value_update
from memfold.policy.wording.elaboration import elaboration
from memfold.policy.wording.paraphrase import paraphrase
from memfold.reading.difference import (
    WORDING,
    additions,
    fold_conflicts,
    same_fact,
    supersede_conflicts,
)

_NEEDS_TARGETS = (Action.UPDATE, Action.MERGE, Action.REPLACE, Action.DELETE)


def apply_guards(
    decision: Decision,
    new: MemoryRecord,
    candidates: Sequence[Candidate],
    settings: ConsolidationSettings,
    limits: ResultLimits | None = None,
    scale: SimilarityScale = IDENTITY,
) -> Decision:
    """A copy of ``decision``, downgraded if it breaks a rule, with the reasons recorded.
    ``scale`` is the embedder's calibrated similarity, on which a restatement's REPLACE
    meets the destructive threshold (``memfold.embed.calibration``)."""
    limits = limits or ResultLimits.from_parts(consolidation=settings)
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
    verdict = _Verdict()
    channel = [t.memory.id for t in targets if t.via == "update"]
    if channel and action is not Action.DELETE:
        # An update-channel candidate was found for a change, below the discovery cosine:
        # it may be superseded (DELETE, with evidence), never folded or replaced.
        verdict.problems.append(
            f"{action.value} of update-channel candidate(s) {', '.join(channel)}: "
            "they may only be superseded"
        )
    elif any(instruction_like(m.text) for m in (new, *(t.memory for t in targets))):
        verdict.problems.append("a memory holding an instruction to a model is not consolidated")
    elif action in (Action.UPDATE, Action.MERGE):
        _check_fold(guarded, new, targets, settings, limits, verdict)
    elif action is Action.REPLACE:
        scale = scale if settings.calibrate_similarity else IDENTITY
        for target in targets:
            _check_replace(new, target, settings, scale, verdict)
    else:  # DELETE
        _check_delete(guarded, new, targets, settings, verdict)
    if verdict.problems:
        out = _downgrade(guarded, Action.KEEP_SEPARATE, verdict.problems, keep_targets=True)
        out.contradicts = verdict.contradicts
        return out
    return guarded


class _Verdict:
    """Problems found so far, and whether the pair is a contradiction to link."""

    def __init__(self) -> None:
        self.problems: list[str] = []
        self.contradicts = False


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


def _check_fold(
    decision: Decision,
    new: MemoryRecord,
    targets: Sequence[Candidate],
    settings: ConsolidationSettings,
    limits: ResultLimits,
    verdict: _Verdict,
) -> None:
    """UPDATE and MERGE write one text in place of several: the same fact, told better."""
    floor = (
        settings.update_threshold
        if decision.action is Action.UPDATE
        else settings.destructive_threshold
    )
    verdict.problems += _below(decision.action, targets, floor)
    sources = [new, *(t.memory for t in targets)]
    for target in targets:
        verdict.problems += [
            f"{decision.action.value} of {target.memory.id}: not one fact ({d})"
            for d in fold_conflicts(target.memory.text, new.text)
        ]
    verdict.problems += combine_problems([s.text for s in sources])
    text = decision.text
    if decision.action is Action.UPDATE and text is None:
        text = targets[0].memory.text  # an UPDATE without text keeps the target's own
    verdict.problems += check_result(text, [Source(s.id, s.text) for s in sources], limits)


def _check_replace(
    new: MemoryRecord,
    target: Candidate,
    settings: ConsolidationSettings,
    scale: SimilarityScale,
    verdict: _Verdict,
) -> None:
    """REPLACE retires the target in favour of the new memory: the destructive gate, and
    either the new memory says all the target says (a fold) or the rules see evidence
    that it changes it; never when the parse reads the two as about different things."""
    old = target.memory
    conflicts = supersede_conflicts(old.text, new.text)
    if conflicts:
        verdict.problems += [f"REPLACE of {old.id}: another thing ({c})" for c in conflicts]
        return
    differences = same_fact(old.text, new.text, cover="newer")
    if not differences and additions(old.text, new.text) <= settings.rules_elaboration_max_extra:
        # The readings agree (the new memory says all the old one says, nothing that
        # differs, and at most a detail or two more): a restatement, on the destructive
        # threshold as the seeds state it, or on the older word rules' own gates.
        below = _below_calibrated(Action.REPLACE, target, settings, scale)
        by_words = _Verdict()
        if below:
            _check_replace_by_words(new, target, settings, by_words)
        if below and by_words.problems:
            verdict.problems += below
        return
    # Wording alone the older word rules may still read as a restatement; any other
    # difference changes the fact.
    hard = [d for d in differences if d.kind not in WORDING]
    if hard:
        # Not a restatement, whatever the older word rules read: only a supersede with
        # evidence may retire the target.
        verdict.problems += _below(Action.REPLACE, [target], settings.destructive_threshold)
        _check_supersede(new, target, settings, verdict, str(hard[0]))
        return
    _check_replace_by_words(new, target, settings, verdict)


def _check_replace_by_words(
    new: MemoryRecord, target: Candidate, settings: ConsolidationSettings, verdict: _Verdict
) -> None:
    """The older word rules: an aligned paraphrase or elaboration on its own gate, a fold
    that keeps the words, or a supersede with evidence."""
    old = target.memory
    if paraphrase(old.text, new.text):
        # Every concept aligned: the alignment, not the cosine, is the evidence.
        verdict.problems += _below(Action.REPLACE, [target], settings.paraphrase_min_similarity)
        return
    more = elaboration(old.text, new.text, settings.rules_elaboration_max_extra)
    if more is not None and more.newer_is_longer:
        # The new memory says all the old one says and a modifier more: its own gate.
        verdict.problems += _below(Action.REPLACE, [target], settings.elaboration_min_similarity)
        return
    verdict.problems += _below(Action.REPLACE, [target], settings.destructive_threshold)
    _check_supersede(new, target, settings, verdict, "", folds_allowed=True)


def _check_supersede(
    new: MemoryRecord,
    target: Candidate,
    settings: ConsolidationSettings,
    verdict: _Verdict,
    difference: str,
    folds_allowed: bool = False,
) -> None:
    """A REPLACE that is no restatement supersedes the target: the rules' evidence of a
    change (or, from the word rules' path, a fold that keeps the target's words).
    ``difference`` is what the readings saw, for the log."""
    old = target.memory
    folds = (
        folds_allowed
        and not combine_problems([new.text, old.text])
        and not dropped(new.text, Source(old.id, old.text), settings.min_content_word_recall)
    )
    if folds:
        return
    facts = FactLimits.from_settings(settings)
    evidence = supersede_evidence(new.text, old.text, settings.supersede_min_overlap, facts)
    if not evidence.found:
        seen = f" ({difference})" if difference else ""
        verdict.problems.append(f"REPLACE of {old.id} without evidence{seen}: {evidence.reason}")
        verdict.contradicts |= evidence.contradiction


def _check_delete(
    decision: Decision,
    new: MemoryRecord,
    targets: Sequence[Candidate],
    settings: ConsolidationSettings,
    verdict: _Verdict,
) -> None:
    """DELETE supersedes a contradicted or retracted target: the rules must see why, and
    the parse must read both as about the same thing."""
    facts = FactLimits.from_settings(settings)
    for target in targets:
        verdict.problems += [
            f"DELETE of {target.memory.id}: another thing ({c})"
            for c in supersede_conflicts(target.memory.text, new.text)
        ]
    for target in targets:
        # A new value the rules read word for word has its own, lower cosine gate, and so
        # has an update-channel candidate (the evidence below is required all the same).
        floors = [settings.delete_threshold]
        older = target.memory.text
        if value_update(older, new.text) or fact_update(older, new.text, facts):
            floors.append(settings.value_update_min_similarity)
        if target.via == "update":
            floors.append(settings.update_channel_min_similarity)
        verdict.problems += _below(Action.DELETE, [target], min(floors))
    if decision.confidence < settings.delete_min_confidence:
        verdict.problems.append(
            f"DELETE needs confidence >= {settings.delete_min_confidence:.2f}, "
            f"got {decision.confidence:.2f}"
        )
    for target in targets:
        evidence = supersede_evidence(
            new.text, target.memory.text, settings.supersede_min_overlap, facts
        )
        if not evidence.found:
            verdict.problems.append(
                f"DELETE of {target.memory.id} without evidence: {evidence.reason}"
            )
            verdict.contradicts |= evidence.contradiction


def _below_calibrated(
    action: Action, target: Candidate, settings: ConsolidationSettings, scale: SimilarityScale
) -> list[str]:
    floor = settings.destructive_threshold
    if scale.is_identity:
        return _below(action, [target], floor)
    calibrated = scale.calibrate(target.similarity)
    if calibrated >= floor:  # NaN fails
        return []
    return [
        f"{action.value} needs calibrated similarity >= {floor:.2f}; {target.memory.id} has "
        f"{calibrated:.3f} (cosine {target.similarity:.3f} on {scale.model})"
    ]


def _below(action: Action, targets: Sequence[Candidate], floor: float) -> list[str]:
    return [
        f"{action.value} needs cosine >= {floor:.2f} with every target; "
        f"{t.memory.id} has {t.similarity:.3f}"
        for t in targets
        if not t.similarity >= floor  # NaN fails too
    ]


def refuse(decision: Decision, reasons: list[str]) -> Decision:
    """``decision`` turned into KEEP_SEPARATE for ``reasons`` (a check outside the guards,
    such as the embedding drift of a result text)."""
    return _downgrade(decision, Action.KEEP_SEPARATE, reasons, keep_targets=True)


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
