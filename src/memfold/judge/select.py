"""Choosing the judge: the LLM judge when one is configured and reachable, else rules."""

from __future__ import annotations

import logging
from typing import Any

from memfold.config import Settings
from memfold.judge.base import Judge

log = logging.getLogger(__name__)


def make_judge(settings: Settings, *, usage_sink: Any = None) -> Judge:
    """The offline RuleJudge unless an LLM endpoint is configured."""
    from memfold.judge.rules import RuleJudge

    rules = RuleJudge(settings.consolidation)
    if not settings.llm.configured:
        return rules
    from memfold.judge.llm import make_llm_judge

    return make_llm_judge(settings, fallback=rules, usage_sink=usage_sink)
