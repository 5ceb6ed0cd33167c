"""RuleJudge: the offline default judge. No model beyond the embedder's cosines.

It only proposes what the words prove: an exact or contained restatement folds into the
older memory (UPDATE, the older text kept) or, when it says more, supersedes it (REPLACE:
the older memory keeps its own text, never the newer one's extra words); a retraction or
a value changed with a change cue ("no longer", "moved to", "now") becomes DELETE of the
older memory when confident; a negation with no such cue is a contradiction, kept and
linked. Everything is gated again by the guards. Everything else is left alone.
Being unsure always means KEEP_SEPARATE / ADD: a missed merge is recoverable.
"""

from __future__ import annotations

from collections.abc import Sequence

from memfold.config import ConsolidationSettings
from memfold.judge.base import PairInput, PairVerdict, SaveItem, TextResult
from memfold.judge.rules_area import area_for
from memfold.judge.rules_compare import Comparison, Relation, RuleThresholds, compare, is_exact
from memfold.model import (
    Action,
    Area,
    Candidate,
    Category,
    Decision,
    MemoryRecord,
    PairLabel,
)
from memfold.policy import text as tx
from memfold.policy.values.fact_update import FactLimits

JUDGE_NAME = "rules"

# Calibrated-ish confidences: how sure each rule is that it read the pair right.
_CONFIDENCE = {
    Relation.EXACT: 0.99,
    Relation.SAME_WORDS: 0.95,
    Relation.CONTAINS: 0.92,
    Relation.SUBSUMES: 0.8,
    Relation.PARAPHRASE: 0.9,
    Relation.ELABORATES: 0.85,
    Relation.OTHER: 0.6,
}


def thresholds_from_settings(settings: ConsolidationSettings) -> RuleThresholds:
    """The rule judge's thresholds, from the one settings object."""
    return RuleThresholds(
        flip_min_overlap=settings.rules_flip_min_overlap,
        value_max_other_diff=settings.rules_value_max_other_diff,
        value_min_shared=settings.rules_value_min_shared,
        merge_min_similarity=settings.rules_merge_min_similarity,
        fragment_max_words=settings.rules_fragment_max_words,
        elaboration_max_extra=settings.rules_elaboration_max_extra,
        fact=FactLimits.from_settings(settings),
    )


def conflict_confidence(comparison: Comparison) -> float:
    """Negation flips grow surer with overlap; a change cue ("moved to", "now") adds."""
    if comparison.relation is Relation.NEGATION_FLIP:
        base = 0.5 + 0.45 * comparison.overlap
        return round(min(0.97, base + (0.1 if comparison.change_cue else 0.0)), 3)
    # Another number, date or name without a change cue is as often a different event
    # ("headlines on Sept 30" / "on Nov 21") as an update: stay under the DELETE bar.
    return 0.9 if comparison.change_cue else 0.7


class RuleJudge:
    """Implements ``memfold.judge.base.Judge`` with deterministic rules."""

    def __init__(
        self,
        settings: ConsolidationSettings | None = None,
        thresholds: RuleThresholds | None = None,
    ) -> None:
        self._settings = settings or ConsolidationSettings()
        self._limits = thresholds or thresholds_from_settings(self._settings)

    @property
    def name(self) -> str:
        return JUDGE_NAME

    # -- on save -------------------------------------------------------------------------

    def decide(self, items: Sequence[SaveItem]) -> list[Decision]:
        return [self._decide_one(item) for item in items]

    def _decide_one(self, item: SaveItem) -> Decision:
        new = item.new
        area = area_for(new.text, self._limits.fragment_max_words)
        # An exact duplicate anywhere in the list beats any weaker rule on a better
        # candidate: exact ones first, each group in list order. Which pairs ``compare``
        # reads as EXACT is known before comparing (``is_exact``), so a candidate after
        # the first that decides is never compared (the costly part of the judge).
        exact = [is_exact(c.memory.text, new.text) for c in item.candidates]
        ordered = [c for c, same in zip(item.candidates, exact, strict=True) if same]
        ordered += [c for c, same in zip(item.candidates, exact, strict=True) if not same]
        for candidate in ordered:
            comparison = compare(candidate.memory.text, new.text, self._limits)
            decision = self._from_comparison(new, candidate, comparison)
            if decision is not None:
                decision.area = decision.area or area
                return decision
        return _decision(Action.ADD, [], None, 0.6, "no candidate says the same thing", area)

    def _from_comparison(
        self, new: MemoryRecord, candidate: Candidate, cmp: Comparison
    ) -> Decision | None:
        target = candidate.memory
        why = f"{cmp.detail} (cosine {candidate.similarity:.3f})"
        core = target.category is Category.CORE
        relation = cmp.relation
        if relation in (Relation.EXACT, Relation.SAME_WORDS, Relation.CONTAINS):
            return self._fold(target, cmp, _CONFIDENCE[relation], why, core)
        if relation is Relation.PARAPHRASE:
            return self._restated(target, candidate.similarity, why, core, cmp.newer_is_general)
        if relation is Relation.SUBSUMES:
            if core or candidate.similarity < self._limits.merge_min_similarity:
                return _keep(target, f"{why}; words inserted, not similar enough to merge")
            return self._fold(target, cmp, _CONFIDENCE[relation], why, core)
        if relation is Relation.ELABORATES:
            if core or candidate.similarity < self._settings.elaboration_min_similarity:
                return _keep(target, f"{why}; says a little more, not similar enough to fold")
            return self._fold(target, cmp, _CONFIDENCE[relation], why, core)
        if relation in (Relation.NEGATION_FLIP, Relation.VALUE_CHANGE, Relation.UPDATED):
            return self._supersede(target, candidate.similarity, cmp, why, core, candidate.via)
        return None

    def _fold(
        self, target: MemoryRecord, cmp: Comparison, confidence: float, why: str, core: bool
    ) -> Decision:
        """The two say the same. The older memory is never rewritten with the newer one's
        extra words: if the newer says more, it supersedes the older (REPLACE), which keeps
        its own text; else the newer folds into the older (UPDATE, the older's text)."""
        says_more = cmp.newer_is_longer and cmp.relation is not Relation.EXACT
        if says_more and core:
            return _keep(target, f"{why}; a core memory is not superseded by rules")
        if says_more:
            return _decision(Action.REPLACE, [target.id], None, confidence, why)
        return _decision(Action.UPDATE, [target.id], target.text, confidence, why)

    def _restated(
        self, target: MemoryRecord, similarity: float, why: str, core: bool, general: bool
    ) -> Decision:
        """The newer memory says what the older says in other words: it takes the older's
        place (REPLACE: no text is written; the older stays as history, undoable), unless
        it says in a general word what the older says specifically ("a person" for "a
        man"): replacing would leave the vaguer text active, and the older's text cannot
        hold the newer's other words, so both stay."""
        if core:
            return _keep(target, f"{why}; a core memory is not superseded by rules")
        if similarity < self._settings.paraphrase_min_similarity:
            return _keep(target, f"{why}; not similar enough to fold")
        if general:
            return _keep(target, f"{why}; the older says it more specifically")
        return _decision(Action.REPLACE, [target.id], None, _CONFIDENCE[Relation.PARAPHRASE], why)

    def _supersede(
        self,
        target: MemoryRecord,
        similarity: float,
        cmp: Comparison,
        why: str,
        core: bool,
        via: str = "similar",
    ) -> Decision:
        confidence = conflict_confidence(cmp)
        settings = self._settings
        if core:
            return _keep(target, f"{why}; conflicts with a core memory, left for review")
        if not cmp.change_cue:
            # No sign of time or change: a contradiction. Both stay visible, linked.
            keep = _keep(target, f"{why}; no sign of change: kept as a contradiction")
            keep.contradicts = cmp.relation is Relation.NEGATION_FLIP
            return keep
        # A new value the alignment reads has its own, lower cosine gate (the reading is
        # the evidence); a plain value swap needs the delete gate.
        floor = (
            settings.value_update_min_similarity
            if cmp.relation is Relation.UPDATED
            else settings.delete_threshold
        )
        if via == "update":
            # Found by the update channel (same subject, change cue, shared attribute):
            # its own floor; the guards still want the supersede evidence.
            floor = min(floor, settings.update_channel_min_similarity)
        if confidence < settings.delete_min_confidence or similarity < floor:
            return _keep(target, f"{why}; possible conflict, not sure enough to supersede")
        reason = f"newer memory supersedes the older one: {why}"
        return _decision(Action.DELETE, [target.id], None, confidence, reason)

    # -- batch review --------------------------------------------------------------------

    def classify(self, pairs: Sequence[PairInput]) -> list[PairVerdict]:
        return [self._classify_one(pair) for pair in pairs]

    def _classify_one(self, pair: PairInput) -> PairVerdict:
        cmp = compare(pair.a.text, pair.b.text, self._limits)
        relation = cmp.relation
        why = f"{cmp.detail} (cosine {pair.similarity:.3f})"
        core = Category.CORE in (pair.a.category, pair.b.category)
        if relation is Relation.NEGATION_FLIP:
            newer_retracts = tx.negated(pair.b.text) and tx.has_change_cue(pair.b.text)
            label = PairLabel.SUPERSEDED if newer_retracts else PairLabel.CONTRADICTION
            return _verdict(label, conflict_confidence(cmp), why)
        if relation in (Relation.VALUE_CHANGE, Relation.UPDATED):
            return _verdict(PairLabel.SUPERSEDED, conflict_confidence(cmp), why)
        folded = (Relation.EXACT, Relation.SAME_WORDS, Relation.CONTAINS, Relation.PARAPHRASE)
        duplicate = (
            relation in folded
            or (
                relation is Relation.SUBSUMES
                and pair.similarity >= self._limits.merge_min_similarity
            )
            or (
                relation is Relation.ELABORATES
                and pair.similarity >= self._settings.elaboration_min_similarity
            )
        )
        if duplicate and core:
            return _verdict(PairLabel.RELATED, 0.7, f"{why}; a core memory is never merged")
        if duplicate:
            return _verdict(PairLabel.DUPLICATE, _CONFIDENCE[relation], why)
        return _verdict(PairLabel.RELATED, _CONFIDENCE[Relation.OTHER], why)

    # -- text ----------------------------------------------------------------------------

    def merge_text(self, memories: Sequence[MemoryRecord]) -> TextResult:
        """Sentence-level union, oldest memory first, each sentence once."""
        ordered = sorted(memories, key=lambda m: m.created_at)
        seen: set[str] = set()
        kept: list[str] = []
        for memory in ordered:
            for sentence in tx.sentences(memory.text):
                key = tx.normalized(sentence)
                if key and key not in seen:
                    seen.add(key)
                    kept.append(_terminated(sentence))
        text = " ".join(kept) or None
        return TextResult(text, f"union of {len(kept)} distinct sentences", JUDGE_NAME)

    def compress(self, memories: Sequence[MemoryRecord]) -> TextResult:
        """The seed's fallback summary, "Summary: a | b | c", without repeated texts."""
        seen: set[str] = set()
        parts: list[str] = []
        for memory in memories:
            key = tx.normalized(memory.text)
            if key and key not in seen:
                seen.add(key)
                parts.append(memory.text.strip())
        text = "Summary: " + " | ".join(parts) if parts else None
        return TextResult(text, f"concatenation of {len(parts)} distinct memories", JUDGE_NAME)


def _decision(
    action: Action,
    targets: list[str],
    text: str | None,
    confidence: float,
    reasoning: str,
    area: Area | None = None,
) -> Decision:
    return Decision(
        action=action,
        target_ids=targets,
        text=text,
        area=area,
        confidence=confidence,
        reasoning=reasoning,
        judge=JUDGE_NAME,
        model=None,
    )


def _keep(target: MemoryRecord, reasoning: str) -> Decision:
    return _decision(Action.KEEP_SEPARATE, [target.id], None, 0.7, reasoning)


def _verdict(label: PairLabel, confidence: float, reasoning: str) -> PairVerdict:
    return PairVerdict(label=label, confidence=confidence, reasoning=reasoning, judge=JUDGE_NAME)


def _longer(a: str, b: str) -> str:
    return b if len(b.strip()) > len(a.strip()) else a


def _terminated(sentence: str) -> str:
    return sentence if sentence.endswith((".", "!", "?", "…")) else f"{sentence}."
