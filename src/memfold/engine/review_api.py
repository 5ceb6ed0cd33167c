"""``Review``: batch review bound to one store and judge (what ``Memory.review`` returns)."""

from __future__ import annotations

from datetime import datetime, timedelta

from memfold.engine import feedback as feedback_mod
from memfold.engine import report as report_mod
from memfold.engine import review
from memfold.engine.context import Context
from memfold.engine.review_merge import StepHook
from memfold.engine.review_scan import ScanResult, scan
from memfold.errors import InvalidInput
from memfold.judge.base import Judge
from memfold.model import JSONDict, ReviewRun, Scope


def _item_id(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidInput(f"review item id must be an integer, got {value!r}")
    return value


class Review:
    """scan / run / status / pending / approve / reject / resume / report."""

    def __init__(self, ctx: Context, judge: Judge) -> None:
        self.ctx = ctx
        self.judge = judge

    def scan(self, scope: Scope, threshold: float | None = None) -> ScanResult:
        return scan(self.ctx, scope, threshold)

    def run(self, scope: Scope | None = None, *, hook: StepHook | None = None) -> ReviewRun:
        return review.run(self.ctx, self.judge, scope, hook=hook)

    def status(self) -> JSONDict:
        return review.status(self.ctx)

    def pending(self) -> JSONDict:
        return review.pending(self.ctx)

    def approve(self, item_id: int) -> int | None:
        return review.approve(self.ctx, _item_id(item_id))

    def reject(self, item_id: int, reason: str = "") -> None:
        review.reject(self.ctx, _item_id(item_id), reason)

    def resume(self) -> JSONDict:
        return review.resume(self.ctx)

    def report(self, since: datetime | timedelta | str | None = "7d", fmt: str = "md") -> str:
        return report_mod.report(self.ctx, since, fmt)

    def feedback(self, memory_id: str, kind: str, context: str | None = None) -> list[int]:
        return feedback_mod.feedback(self.ctx, memory_id, kind, context)
