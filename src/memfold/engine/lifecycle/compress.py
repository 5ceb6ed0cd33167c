"""Compression of fading clusters (seed 004): one summary in the hot tier, originals cold.

The tick hands over its fading memories (retention below ``lifecycle.fading_retention``,
not core, not superseded); ``policy.clustering`` groups them. For each group:

- the judge writes a summary (``Judge.compress``: the LLM's compression prompt, or the
  rule judge's concatenation "Summary: a | b | c" offline);
- the summary passes the result check against every original
  (``policy.summary_check``); a summary that fails it, or none at all (an LLM error), is
  replaced by the concatenation, which keeps every original verbatim, and the reason is
  logged. A concatenation that fails it too (longer than the store allows, an original
  addressed to a model) leaves the group as it is;
- the summary memory inherits the group's scope, area and category, its highest
  importance, mean stability and highest access count, the union of its sources; it is
  embedded fresh and starts its retention clock at ``now``;
- association links of weight ``lifecycle.summary_link_weight`` go from the summary to
  each original; the originals become superseded by it and move to the cold tier, where
  deep search and ``get()`` still find them.

Each group is one ``ChangeSet`` committed in one transaction with its log row (before and
after state), so a crash leaves a cluster either compressed or untouched, and ``undo`` of
that row brings the originals back hot and active and removes the summary.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from statistics import fmean

import numpy as np

from memfold.engine import readings
from memfold.engine.changes import ChangeSet, commit, link
from memfold.engine.context import Context
from memfold.errors import ConflictError
from memfold.judge.base import Judge, TextResult
from memfold.model import CategorySource, LinkKind, MemoryRecord, Status, Tier, content_hash, new_id
from memfold.policy.clustering import cluster_fading
from memfold.policy.result_check import ResultLimits, Source
from memfold.policy.summary_check import check_summary, concatenation

PATH = "lifecycle"
ACTION = "COMPRESS"


@dataclass(slots=True)
class Compression:
    """What became of one group. ``log_id`` None: nothing was written (``skipped`` says
    why). ``fallback``: why the judge's summary was replaced by the concatenation."""

    original_ids: list[str]
    summary_id: str | None = None
    log_id: int | None = None
    text: str | None = None
    judge: str = ""
    fallback: str | None = None
    skipped: str | None = None
    problems: list[str] = field(default_factory=list)

    @property
    def applied(self) -> bool:
        return self.log_id is not None


def compress_fading(
    ctx: Context, judge: Judge, candidates: Sequence[MemoryRecord], now: datetime
) -> list[Compression]:
    """Compress every group of ``candidates`` (already filtered fading memories) that the
    clustering forms; one logged, undoable change set per group."""
    groups = cluster_fading(candidates, ctx.settings.lifecycle)
    readings.prime(ctx, [m for group in groups for m in group])  # the result check reads them
    return [_compress_group(ctx, judge, group, now) for group in groups]


def _summary_text(
    ctx: Context, judge: Judge, group: Sequence[MemoryRecord]
) -> tuple[TextResult, str | None, str | None, list[str]]:
    """(judge's result, text to write or None, fallback reason, problems)."""
    limits = ResultLimits.from_settings(ctx.settings)
    sources = [Source(m.id, m.text) for m in group]
    result = judge.compress(group)
    if result.text is None:
        fallback: str | None = f"the judge wrote no summary ({result.reasoning or 'no reason'})"
    else:
        problems = check_summary(result.text, sources, limits)
        if not problems:
            return result, result.text, None, []
        fallback = "the summary failed the result check: " + "; ".join(problems)
    plain = concatenation([m.text for m in group])
    problems = check_summary(plain, sources, limits)
    return result, (None if problems else plain), fallback, problems


def _compress_group(
    ctx: Context, judge: Judge, group: Sequence[MemoryRecord], now: datetime
) -> Compression:
    ids = [m.id for m in group]
    result, text, fallback, problems = _summary_text(ctx, judge, group)
    outcome = Compression(ids, judge=result.judge or judge.name, fallback=fallback)
    if text is None:
        outcome.skipped = "no summary passes the result check: " + "; ".join(problems)
        outcome.problems = problems
        return outcome
    change = plan_compression(ctx, group, text, now, result, fallback)
    try:
        outcome.log_id = commit(ctx, change)
    except ConflictError as exc:  # a member changed since the tick read it
        outcome.skipped = f"left for a later tick: {exc}"
        return outcome
    outcome.summary_id, outcome.text = change.creates[0].id, text
    return outcome


def plan_compression(
    ctx: Context,
    group: Sequence[MemoryRecord],
    text: str,
    now: datetime,
    result: TextResult,
    fallback: str | None = None,
) -> ChangeSet:
    """The change set that replaces ``group`` by a summary with ``text``."""
    first = group[0]
    summary = MemoryRecord(
        id=new_id(),
        scope=first.scope,
        text=text,
        area=first.area,
        category=first.category,
        category_source=CategorySource.LIFECYCLE,
        importance=max(m.importance for m in group),
        stability=fmean(m.stability for m in group),
        access_count=max(m.access_count for m in group),
        last_access_at=None,
        created_at=now,
        updated_at=now,
        valid_from=min((m.valid_from or m.created_at) for m in group),
        status=Status.ACTIVE,
        tier=Tier.HOT,
        consolidated_from=[m.id for m in group],
        sources=list(dict.fromkeys(s for m in group for s in m.sources)),
        content_hash=content_hash(text),
        embedding=ctx.embed_one(text),
        embedding_model=ctx.embedder.model_id,
    )
    weight = ctx.settings.lifecycle.summary_link_weight
    reasoning = result.reasoning if fallback is None else f"{fallback}; concatenation written"
    return ChangeSet(
        path=PATH,
        action=ACTION,
        input_ids=[m.id for m in group],
        expected={summary.id: None, **{m.id: m.version for m in group}},
        creates=[summary],
        writes=[
            m.copy(
                status=Status.SUPERSEDED,
                superseded_by=summary.id,
                tier=Tier.COLD,
                version=m.version + 1,
                updated_at=now,
            )
            for m in group
        ],
        add_links=[link(summary.id, m.id, LinkKind.ASSOCIATION, weight) for m in group],
        similarity=_min_cosine(group),
        reasoning=reasoning,
        judge=result.judge,
        model=result.model,
        prompt_version=result.prompt_version,
        prompt_tokens=result.prompt_tokens,
        completion_tokens=result.completion_tokens,
    )


def _min_cosine(group: Sequence[MemoryRecord]) -> float | None:
    """The lowest cosine between two members of the group (logged as its similarity)."""
    vectors = [m.embedding for m in group if m.embedding is not None]
    if len(vectors) < 2:
        return None
    matrix = np.stack(vectors).astype(np.float32)
    matrix /= np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
    sims = matrix @ matrix.T
    return float(np.min(sims[np.triu_indices(len(vectors), k=1)]))
