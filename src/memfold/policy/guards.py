"""Deterministic rules the engine enforces whatever a judge proposed.

Prime Directive: a missed merge is recoverable, a bad merge is not. Every check here can
only make a decision safer: a destructive action falls back to KEEP_SEPARATE (both
memories stay), a malformed one to SKIP (nothing happens, logged). Pure: no I/O.

- Ids: targets come from the candidate set, in the new memory's scope.
- Everything else reads the parse of both texts (``memfold.reading``). UPDATE and MERGE
  fold texts: gates on the calibrated scale (``update_threshold``,
  ``destructive_threshold``), no
  difference of fact between the readings (``fold_conflicts``) and no word swapped in
  place (``substitutions``), and a text that keeps every source's bindings (the one
  result check, ``policy.result_check``).
- REPLACE retires a target: never when the readings are about another thing
  (``supersede_conflicts``). A restatement (``restatement_differences`` finds nothing)
  meets the destructive threshold on the embedder's calibrated similarity
  (``memfold.embed.calibration``); a newer memory that says less than its target
  folds into it instead (an UPDATE keeping the target's text: the destructive
  threshold, then UPDATE's checks);
  any other REPLACE, and every DELETE, is a supersede:
  the delete threshold (lower for a new value in the same words or an update-channel
  candidate) and evidence of a change the parse reads (``memfold.reading.supersede``:
  a change cue or a later date about the same statement). A negation with no sign of
  change stays a contradiction: KEEP_SEPARATE, linked.
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
from memfold.policy.result_check import ResultLimits, Source, check_result, instruction_like
from memfold.reading.converse import as_told_by_older
from memfold.reading.difference import fold_conflicts, supersede_conflicts
from memfold.reading.predicate_nouns import as_shaped_by_older
from memfold.reading.restatement import (
    new_value_only,
    restatement_differences,
    substitutions,
)
from memfold.reading.supersede import supersede_evidence

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
    scale = scale if settings.calibrate_similarity else IDENTITY
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
        _check_fold(guarded, new, targets, settings, limits, scale, verdict)
    elif action is Action.REPLACE:
        for target in targets:
            _check_replace(new, target, settings, scale, verdict)
        if verdict.problems and len(targets) == 1:
            folded = _into_older(guarded, new, targets[0], settings, limits, scale)
            if folded is not None:
                why = "the newer says less: folded into the older, whose text stays"
                reasons = [*guarded.downgrade_reasons, *verdict.problems, why]
                return replace(folded, downgraded_from=Action.REPLACE, downgrade_reasons=reasons)
    else:  # DELETE
        _check_delete(guarded, new, targets, settings, scale, verdict)
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
    scale: SimilarityScale,
    verdict: _Verdict,
) -> None:
    """UPDATE and MERGE write one text in place of several: the same fact, told better.
    A MERGE meets the destructive threshold on the calibrated scale, as a REPLACE does
    (seed 000's one 0.90 for both); an UPDATE its own gate, on the same scale, so that it
    sits between discovery and the destructive threshold whatever the embedder."""
    floor = settings.destructive_threshold
    if decision.action is Action.UPDATE:
        floor = settings.update_threshold
    for target in targets:
        verdict.problems += _below_calibrated(decision.action, target, floor, scale)
    sources = [new, *(t.memory for t in targets)]
    for target in targets:
        older = target.memory.text
        verdict.problems += [
            f"{decision.action.value} of {target.memory.id}: not one fact ({d})"
            for d in [
                *fold_conflicts(older, new.text),
                *substitutions(older, new.text, settings.swap_max_words),
            ]
        ]
    text = decision.text
    if decision.action is Action.UPDATE and text is None:
        text = targets[0].memory.text  # an UPDATE without text keeps the target's own
    verdict.problems += check_result(text, [Source(s.id, s.text) for s in sources], limits)


def _into_older(
    decision: Decision,
    new: MemoryRecord,
    target: Candidate,
    settings: ConsolidationSettings,
    limits: ResultLimits,
    scale: SimilarityScale,
) -> Decision | None:
    """A REPLACE whose newer memory says less than its one target, where the target says
    all the newer says (the strict reading, ``rules_max_reworded_words``): the fold the
    judge asked for, without the detail it would retire, is the newer folded into the
    target, whose text stays: an UPDATE with the target's own text, on the REPLACE's
    destructive gate and the result check ("Noor drinks green tea every morning before
    work" is not retired for "Every morning Noor drinks green tea")."""
    if _below_calibrated(Action.REPLACE, target, settings.destructive_threshold, scale):
        return None  # seed 000: a REPLACE below the destructive gate folds nothing
    older = target.memory.text
    strict = (
        settings.rules_elaboration_max_extra,
        settings.swap_max_words,
        settings.rules_max_reworded_words,
    )
    if restatement_differences(new.text, older, *strict):
        return None
    folded = replace(decision, action=Action.UPDATE, text=older)
    verdict = _Verdict()
    _check_fold(folded, new, [target], settings, limits, scale, verdict)
    return None if verdict.problems else folded


def _check_replace(
    new: MemoryRecord,
    target: Candidate,
    settings: ConsolidationSettings,
    scale: SimilarityScale,
    verdict: _Verdict,
) -> None:
    """REPLACE retires the target in favour of the new memory: a restatement (the readings
    agree, at most a detail or two more) on the destructive threshold, read on the
    embedder's calibrated similarity; anything else is a supersede, with a supersede's
    gates; never when the parse reads the two as about different things."""
    old = target.memory
    # "Clara is Hugo's mother" read as the older tells it ("Hugo is Clara's son"), and
    # "Accra is the user's birthplace" as "The user was born in Accra"
    told = as_shaped_by_older(old.text, as_told_by_older(old.text, new.text))
    conflicts = supersede_conflicts(old.text, told)
    if conflicts:
        verdict.problems += [f"REPLACE of {old.id}: another thing ({c})" for c in conflicts]
        return
    differences = restatement_differences(
        old.text, told, settings.rules_elaboration_max_extra, settings.swap_max_words
    )
    if not differences:
        floor = settings.destructive_threshold
        verdict.problems += _below_calibrated(Action.REPLACE, target, floor, scale)
        return
    # Not a restatement: only a supersede with evidence may retire the target.
    _check_supersede(Action.REPLACE, new, target, settings, scale, verdict, str(differences[0]))


def _check_delete(
    decision: Decision,
    new: MemoryRecord,
    targets: Sequence[Candidate],
    settings: ConsolidationSettings,
    scale: SimilarityScale,
    verdict: _Verdict,
) -> None:
    """DELETE supersedes a contradicted or retracted target: the parse must read both as
    about the same thing, and the newer must say that the fact changed."""
    for target in targets:
        conflicts = supersede_conflicts(target.memory.text, new.text)
        verdict.problems += [
            f"DELETE of {target.memory.id}: another thing ({c})" for c in conflicts
        ]
        if not conflicts:
            _check_supersede(Action.DELETE, new, target, settings, scale, verdict, "")
    if decision.confidence < settings.delete_min_confidence:
        verdict.problems.append(
            f"DELETE needs confidence >= {settings.delete_min_confidence:.2f}, "
            f"got {decision.confidence:.2f}"
        )


def _check_supersede(
    action: Action,
    new: MemoryRecord,
    target: Candidate,
    settings: ConsolidationSettings,
    scale: SimilarityScale,
    verdict: _Verdict,
    difference: str,
) -> None:
    """The newer memory retires the target as changed: the delete threshold (lower for a
    new value in the same words, or an update-channel candidate) and evidence of a change
    the parse can read. ``difference`` is what the readings saw, for the log."""
    old = target.memory
    evidence = supersede_evidence(
        old.text, new.text, settings.supersede_min_overlap, settings.swap_max_words
    )
    floors = []
    if evidence.value or new_value_only(old.text, new.text, settings.swap_max_words):
        floors.append(settings.value_update_min_similarity)
    if target.via == "update":
        floors.append(settings.update_channel_min_similarity)
    if not (floors and target.similarity >= min(floors)):
        verdict.problems += _below_calibrated(action, target, settings.delete_threshold, scale)
    if not evidence.found:
        seen = f" ({difference})" if difference else ""
        verdict.problems.append(
            f"{action.value} of {old.id} without evidence{seen}: {evidence.reason}"
        )
        verdict.contradicts |= evidence.contradiction


def _below_calibrated(
    action: Action, target: Candidate, floor: float, scale: SimilarityScale
) -> list[str]:
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
