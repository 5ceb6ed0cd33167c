"""Choosing the judge: the LLM judge when one is configured (rules behind it), else rules."""

from __future__ import annotations

from typing import Any

from memfold.config import Settings
from memfold.embed.calibration import IDENTITY, SimilarityScale
from memfold.judge.base import Judge
from memfold.judge.rules import RuleJudge


def make_judge(
    settings: Settings, *, usage_sink: Any = None, scale: SimilarityScale = IDENTITY
) -> Judge:
    """The offline RuleJudge unless an LLM endpoint is configured. ``scale``: the
    embedder's calibrated similarity (``memfold.embed.calibration.scale_for``).

    A configured but incomplete endpoint (no model) raises ConfigError here, at
    configuration time, not at the first call.
    """
    rules = RuleJudge(settings.consolidation, scale)
    if not settings.llm.configured:
        return rules
    from memfold.judge.fallback import FallbackJudge
    from memfold.judge.llm import LLMJudge

    llm = LLMJudge(
        settings.llm,
        batch_size=settings.consolidation.batch_size,
        classify_batch=settings.review.classify_batch,
        usage_sink=usage_sink,
    )
    return FallbackJudge(
        llm,
        rules,
        recheck_after_s=settings.llm.recheck_after_s,
        rules_first_confidence=settings.llm.rules_first_confidence,
        fail_after=settings.llm.fallback_after_failures,
    )
