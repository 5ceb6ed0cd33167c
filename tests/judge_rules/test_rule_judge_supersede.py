"""RuleJudge's supersede gates: the delete threshold read on the embedder's calibrated
scale (as the guards read it), and the update channel's floors (texts written for these
tests)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Literal

from memfold.config import ConsolidationSettings
from memfold.embed.calibration import IDENTITY, SimilarityScale
from memfold.judge.base import SaveItem
from memfold.judge.rules import RuleJudge
from memfold.model import Action, Candidate, Decision, MemoryRecord, Scope
from memfold.policy.guards import apply_guards

SETTINGS = ConsolidationSettings()
T0 = datetime(2024, 1, 1, tzinfo=UTC)
# A model whose raw 0.60 is the calibrated 0.75 (the delete threshold).
SCALE = SimilarityScale("test-model", ((0.0, 0.0), (0.60, 0.75), (1.0, 1.0)))
OLDER = "Wen works at Shopify as a data analyst."
NEWER = "Wen left Shopify and joined Canva as a data scientist."


def _decide(
    older: str,
    newer: str,
    similarity: float,
    scale: SimilarityScale,
    via: Literal["similar", "update"] = "similar",
) -> tuple[Decision, Decision]:
    old = MemoryRecord(id="old", scope=Scope(user_id="u"), text=older, created_at=T0)
    new = MemoryRecord(
        id="new", scope=Scope(user_id="u"), text=newer, created_at=T0 + timedelta(days=1)
    )
    candidates = [Candidate(old, similarity, via=via)]
    raw = RuleJudge(SETTINGS, scale).decide([SaveItem(new, candidates)])[0]
    return raw, apply_guards(raw, new, candidates, SETTINGS, scale=scale)


def test_the_delete_threshold_is_read_on_the_calibrated_scale() -> None:
    # Raw 0.65 is below the delete threshold (0.75) but above it calibrated.
    raw, guarded = _decide(OLDER, NEWER, 0.65, SCALE)
    assert raw.action is Action.DELETE and guarded.action is Action.DELETE
    raw, _ = _decide(OLDER, NEWER, 0.65, IDENTITY)
    assert raw.action is Action.KEEP_SEPARATE and "not similar enough" in raw.reasoning


def test_the_update_channel_needs_more_for_a_change_told_in_other_words() -> None:
    below = SETTINGS.rules_reworded_change_min_similarity - 0.05
    raw, _ = _decide(OLDER, NEWER, below, IDENTITY, via="update")
    assert raw.action is Action.KEEP_SEPARATE
    above = SETTINGS.rules_reworded_change_min_similarity + 0.01
    raw, guarded = _decide(OLDER, NEWER, above, IDENTITY, via="update")
    assert raw.action is Action.DELETE and guarded.action is Action.DELETE
    # A new value in the older's own words keeps the channel's low floor.
    rent = ("The user's rent is $1,200 a month.", "The user's rent is now $1,350 a month.")
    raw, guarded = _decide(*rent, below, IDENTITY, via="update")
    assert raw.action is Action.DELETE and guarded.action is Action.DELETE
