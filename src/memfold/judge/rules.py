"""RuleJudge: the offline default judge. No model beyond the embedder's cosines.

It proposes from the readings of the two texts (``memfold.reading.relation``): the same
fact in other words supersedes the older memory (REPLACE: the older stays as history);
a newer memory that says all the older says and a detail more does too; one that says
less folds into the older (UPDATE, the older's text kept); a newer memory that says the
fact changed ("no longer", "moved to", "now", a later date) retires the older (DELETE);
a negation with no sign of change is a contradiction, kept and linked. Everything is
gated again by the guards; what the readings cannot tell is left alone. Being unsure
always means KEEP_SEPARATE / ADD: a missed merge is recoverable.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from memfold.config import ConsolidationSettings
from memfold.embed.calibration import IDENTITY, SimilarityScale
from memfold.judge.base import PairInput, PairVerdict, SaveItem, TextResult
from memfold.judge.rules_area import area_for
from memfold.model import (
    Action,
    Area,
    Candidate,
    Category,
    Decision,
    MemoryRecord,
    PairLabel,
    plain_words,
)
from memfold.reading.facts import Facts, facts
from memfold.reading.parser import read_ahead
from memfold.reading.relation import Limits, PairReading, Relation, relate, same_words
from memfold.reading.supersede import subjects_and_owners

JUDGE_NAME = "rules"

# How sure each reading is that it read the pair right.
_CONFIDENCE = {
    Relation.SAME: 0.95,
    Relation.SAYS_MORE: 0.9,
    Relation.SAYS_LESS: 0.9,
    Relation.CHANGED: 0.9,
    Relation.CONTRADICTS: 0.8,
    Relation.OTHER: 0.6,
}
_EXACT = 0.99
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def limits_from_settings(settings: ConsolidationSettings) -> Limits:
    """The readings' limits, from the one settings object."""
    return Limits(
        max_additions=settings.rules_elaboration_max_extra,
        swap_max=settings.swap_max_words,
        min_overlap=settings.supersede_min_overlap,
        max_reworded=settings.rules_max_reworded_words,
        told_overlap=settings.rules_retold_change_min_overlap,
    )


class RuleJudge:
    """Implements ``memfold.judge.base.Judge`` on the readings of the texts."""

    def __init__(
        self, settings: ConsolidationSettings | None = None, scale: SimilarityScale = IDENTITY
    ) -> None:
        self._settings = settings or ConsolidationSettings()
        self._limits = limits_from_settings(self._settings)
        # The embedder's calibrated similarity, on which the guards read the delete
        # threshold: the judge proposes on the same scale (``memfold.embed.calibration``).
        self._scale = scale if self._settings.calibrate_similarity else IDENTITY

    @property
    def name(self) -> str:
        return JUDGE_NAME

    # -- on save -------------------------------------------------------------------------

    def decide(self, items: Sequence[SaveItem]) -> list[Decision]:
        # Every candidate may be read: parse them all in one batch.
        read_ahead(t for item in items for t in (item.new.text, *_texts(item.candidates)))
        return [self._decide_one(item) for item in items]

    def _decide_one(self, item: SaveItem) -> Decision:
        new = item.new
        area = area_for(new.text, self._settings.rules_fragment_max_words)
        # An exact duplicate anywhere in the list beats a reading of a better candidate.
        exact = [same_words(c.memory.text, new.text) for c in item.candidates]
        ordered = [c for c, same in zip(item.candidates, exact, strict=True) if same]
        ordered += [c for c, same in zip(item.candidates, exact, strict=True) if not same]
        read = [facts(c.memory.text) for c in ordered]
        for n, candidate in enumerate(ordered):
            reading = self._read(candidate.memory.text, new.text, candidate.similarity)
            others = read[:n] + read[n + 1 :]
            if reading.relation is Relation.CHANGED and _named_by_another(
                facts(new.text), read[n], others
            ):
                continue
            decision = self._from_reading(candidate, reading)
            if decision is not None:
                decision.area = decision.area or area
                return decision
        return _decision(Action.ADD, [], None, 0.6, "no candidate says the same thing", area)

    def _read(self, older: str, newer: str, similarity: float) -> PairReading:
        """The strict reading of the pair; where it reads no more than that the older says
        it all and the embedder is near certain, the guards' own reading: the same fact,
        with no clause more and at most ``rules_reworded_max_extra_words`` words more,
        though the tables know no synonym for each word told another way ("prefers tabs"
        / "favors tabs")."""
        reading = relate(older, newer, self._limits)
        settings = self._settings
        if reading.relation not in (Relation.OTHER, Relation.SAYS_LESS):
            return reading
        if self._scale.calibrate(similarity) < settings.rules_reworded_min_similarity:
            return reading
        longer = len(newer.split()) - len(older.split())
        if longer > settings.rules_reworded_max_extra_words:
            return reading
        if len(facts(newer).clauses) != len(facts(older).clauses):
            return reading
        loose = relate(older, newer, replace(self._limits, max_reworded=None))
        return loose if loose.relation is Relation.SAME else reading

    def _from_reading(self, candidate: Candidate, reading: PairReading) -> Decision | None:
        target = candidate.memory
        why = f"{reading.detail} (cosine {candidate.similarity:.3f})"
        core = target.category is Category.CORE
        relation = reading.relation
        confidence = _CONFIDENCE[relation]
        if relation is Relation.OTHER:
            return None
        if core and relation is not Relation.SAYS_LESS:
            return _keep(target, f"{why}; a core memory is not superseded by rules")
        if reading.exact:
            return _decision(Action.UPDATE, [target.id], target.text, _EXACT, why)
        if relation in (Relation.SAME, Relation.SAYS_MORE):
            return _decision(Action.REPLACE, [target.id], None, confidence, why)
        if relation is Relation.SAYS_LESS:
            return _decision(Action.UPDATE, [target.id], target.text, confidence, why)
        if relation is Relation.CONTRADICTS:
            keep = _keep(target, f"{why}; no sign of change: kept as a contradiction")
            keep.contradicts = True
            return keep
        return self._supersede(candidate, reading, why)

    def _supersede(self, candidate: Candidate, reading: PairReading, why: str) -> Decision:
        """The newer memory says the fact changed: retire the older (DELETE) from the
        delete threshold up (lower for a new value in the same words, or an update-channel
        candidate), as the guards will check."""
        settings = self._settings
        floors = [self._scale.to_raw(settings.delete_threshold)]
        if reading.value_only:
            floors.append(settings.value_update_min_similarity)
        if candidate.via == "update":
            # Found below the discovery cosine by a keyword: a change told in other
            # words needs more than a new value or a retraction does.
            floor = settings.update_channel_min_similarity
            if not reading.slot_value:
                floor = max(floor, settings.rules_reworded_change_min_similarity)
            floors.append(floor)
        if candidate.similarity < min(floors):
            return _keep(candidate.memory, f"{why}; a change, not similar enough to supersede")
        reason = f"newer memory supersedes the older one: {why}"
        return _decision(
            Action.DELETE, [candidate.memory.id], None, _CONFIDENCE[Relation.CHANGED], reason
        )

    # -- batch review --------------------------------------------------------------------

    def classify(self, pairs: Sequence[PairInput]) -> list[PairVerdict]:
        read_ahead(t for pair in pairs for t in (pair.a.text, pair.b.text))
        return [self._classify_one(pair) for pair in pairs]

    def _classify_one(self, pair: PairInput) -> PairVerdict:
        reading = self._read(pair.a.text, pair.b.text, pair.similarity)
        relation = reading.relation
        why = f"{reading.detail} (cosine {pair.similarity:.3f})"
        core = Category.CORE in (pair.a.category, pair.b.category)
        if relation is Relation.CHANGED:
            return _verdict(PairLabel.SUPERSEDED, _CONFIDENCE[relation], why)
        if relation is Relation.CONTRADICTS:
            return _verdict(PairLabel.CONTRADICTION, _CONFIDENCE[relation], why)
        if relation is Relation.OTHER:
            return _verdict(PairLabel.RELATED, _CONFIDENCE[relation], why)
        if core:
            return _verdict(PairLabel.RELATED, 0.7, f"{why}; a core memory is never merged")
        return _verdict(PairLabel.DUPLICATE, _CONFIDENCE[relation], why)

    # -- text ----------------------------------------------------------------------------

    def merge_text(self, memories: Sequence[MemoryRecord]) -> TextResult:
        """Sentence-level union, oldest memory first, each sentence once."""
        ordered = sorted(memories, key=lambda m: m.created_at)
        seen: set[str] = set()
        kept: list[str] = []
        for memory in ordered:
            for sentence in _SENTENCE_END.split(memory.text.strip()):
                key = plain_words(sentence)
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
            key = plain_words(memory.text)
            if key and key not in seen:
                seen.add(key)
                parts.append(memory.text.strip())
        text = "Summary: " + " | ".join(parts) if parts else None
        return TextResult(text, f"concatenation of {len(parts)} distinct memories", JUDGE_NAME)


def _named_by_another(new: Facts, candidate: Facts, others: list[Facts]) -> bool:
    """A newer memory names none of a candidate's names and one of another candidate's
    about the same subject: "the user closed the Wells Fargo account and now banks with
    a credit union" is about the user's memory that names Wells Fargo, not "the user has
    a credit card with Chase"; "the app moved off Heroku" about "the app is deployed on
    Heroku", not "the app's domain is registered with Namecheap" (not so "Ana moved to
    Berlin" for "Sam moved to Berlin": another subject)."""
    if new.names & candidate.names:
        return False
    subjects = subjects_and_owners(new)
    return any(new.names & o.names for o in others if subjects_and_owners(o) & subjects)


def _texts(candidates: Sequence[Candidate]) -> list[str]:
    return [c.memory.text for c in candidates]


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


def _terminated(sentence: str) -> str:
    return sentence if sentence.endswith((".", "!", "?", "…")) else f"{sentence}."
