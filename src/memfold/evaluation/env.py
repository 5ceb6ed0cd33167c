"""What every runner shares: data path, split, judge choice, cached embedder, progress."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)

from memfold.config import Settings
from memfold.embed.calibration import IDENTITY, SimilarityScale, scale_for
from memfold.evaluation.embed_cache import CachingEmbedder
from memfold.evaluation.scripted_judge import SCRIPTED
from memfold.evaluation.splits import Split
from memfold.judge.base import Judge
from memfold.llm.usage import UsageSink
from memfold.memory import Memory

JUDGES = ("rules", "llm", "default", *SCRIPTED)


def make_progress(console: Console | None = None) -> Progress:
    return Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console or Console(stderr=True),
        transient=True,
    )


def make_eval_judge(
    kind: str,
    settings: Settings,
    *,
    usage_sink: UsageSink | None = None,
    scale: SimilarityScale = IDENTITY,
) -> Judge:
    """``rules``: the offline RuleJudge. ``llm``: the LLM judge on the settings' endpoint.

    ``default``: what ``Memory`` builds with that endpoint: the rules settle what they
    are sure of, the LLM is asked the rest, the rules stand in when it fails.
    """
    from memfold.judge.rules import RuleJudge

    if kind == "rules":
        return RuleJudge(settings.consolidation, scale)
    if kind in ("llm", "default") and not settings.llm.configured:
        raise ValueError(
            f"--judge {kind} needs an endpoint: set MEMFOLD_LLM_BASE_URL and MEMFOLD_LLM_MODEL"
        )
    if kind == "default":
        from memfold.judge.select import make_judge

        return make_judge(settings, usage_sink=usage_sink, scale=scale)
    if kind == "llm":
        from memfold.judge.llm import LLMJudge

        # The LLM judge itself, with no rule fallback: the figure must be the model's.
        return LLMJudge(
            settings.llm,
            batch_size=settings.consolidation.batch_size,
            classify_batch=settings.review.classify_batch,
            usage_sink=usage_sink,
        )
    raise ValueError(f"--judge must be one of {', '.join(JUDGES)}, got {kind!r}")


@dataclass
class EvalEnv:
    data: Path
    split: Split
    judge_kind: str
    settings: Settings
    embedder: CachingEmbedder
    workdir: Path  # throwaway SQLite files live here
    progress: Progress
    limit: int | None = None  # pairs per data set
    max_convs: int | None = None  # LoCoMo conversations / BEAM chats
    scenario_path: Path | None = None  # a scenario file instead of the split's
    _opened: int = field(default=0, init=False)

    def memory(
        self,
        name: str,
        consolidate: str,
        *,
        settings: Settings | None = None,
        judge_kind: str | None = None,
    ) -> Memory:
        """A fresh store for one run; the LLM judge's usage lands in that store's table.
        ``settings`` and ``judge_kind`` replace the run's (a scripted judge's server)."""
        self._opened += 1
        path = self.workdir / f"{self._opened:03d}-{name}.db"
        chosen = settings or self.settings
        kind = judge_kind or self.judge_kind
        scale = scale_for(self.embedder.model_id)
        rules = make_eval_judge("rules", chosen, scale=scale)
        mem = Memory(
            path,
            settings=chosen,
            embedder=self.embedder,
            judge=rules,
            consolidate=consolidate,
        )
        if kind != "rules":
            mem.judge = make_eval_judge(kind, chosen, usage_sink=mem.store, scale=scale)
        return mem

    def task(self, description: str, total: int | None) -> TaskID:
        return self.progress.add_task(description, total=total)

    def embed_all(self, texts: list[str], what: str) -> None:
        """Warm the cache with a visible bar (the slow part of a first run)."""
        missing = self.embedder.missing(texts)
        if not missing:
            return
        task = self.task(f"embedding {what}", missing)
        self.embedder.progress = lambda n: self.progress.advance(task, n)
        try:
            self.embedder.embed(texts)
        finally:
            self.embedder.progress = None
            self.progress.remove_task(task)
        self.embedder.save()
