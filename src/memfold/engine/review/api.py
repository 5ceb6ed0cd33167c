"""``Review``: batch review bound to one store and judge (what ``Memory.review`` returns)."""

from __future__ import annotations

from datetime import datetime, timedelta

from memfold.engine import feedback as feedback_mod
from memfold.engine.context import Context
from memfold.engine.ids import resolve_id
from memfold.engine.review import report as report_mod
from memfold.engine.review import runs as review
from memfold.engine.review.merge import StepHook
from memfold.engine.review.scan import ScanResult, scan
from memfold.errors import InvalidInput
from memfold.judge.base import Judge
from memfold.model import JSONDict, ReviewRun, Scope
from memfold.policy.validate import clean_int, clean_scope, clean_string, clean_unit


def _item_id(value: object) -> int:
    return clean_int(value, "review item id", minimum=1)


class Review:
    """scan / run / status / pending / approve / reject / resume / report."""

    def __init__(self, ctx: Context, judge: Judge) -> None:
        self.ctx = ctx
        self.judge = judge

    def _scope(
        self, scope: object, user_id: object, agent_id: object, session_id: object
    ) -> Scope | None:
        """A checked scope from a ``Scope`` or the id keywords; None when neither is given."""
        ids = (user_id, agent_id, session_id)
        if scope is not None:
            if not isinstance(scope, Scope):
                raise InvalidInput(
                    f"scope must be a memfold Scope, got {type(scope).__name__}; "
                    "or pass user_id=, agent_id=, session_id="
                )
            if any(v is not None for v in ids):
                raise InvalidInput("pass either a scope or user_id/agent_id/session_id, not both")
            ids = (scope.user_id, scope.agent_id, scope.session_id)
        elif all(v is None for v in ids):
            return None
        default = self.ctx.settings.store.default_user_id
        return clean_scope(*ids, default_user_id=default)

    def scan(
        self,
        scope: Scope | None = None,
        threshold: float | None = None,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
    ) -> ScanResult:
        """Queue similar pairs of one scope (no ids: the default user, like ``add``)."""
        chosen = self._scope(scope, user_id, agent_id, session_id)
        if chosen is None:
            chosen = clean_scope(default_user_id=self.ctx.settings.store.default_user_id)
        bar = None if threshold is None else clean_unit(threshold, "threshold")
        return scan(self.ctx, chosen, bar)

    def run(
        self,
        scope: Scope | None = None,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        hook: StepHook | None = None,
    ) -> ReviewRun:
        """One review run over a scope; no scope and no ids: every scope in the store."""
        chosen = self._scope(scope, user_id, agent_id, session_id)
        return review.run(self.ctx, self.judge, chosen, hook=hook)

    def status(self) -> JSONDict:
        return review.status(self.ctx)

    def pending(self) -> JSONDict:
        return review.pending(self.ctx)

    def approve(self, item_id: int) -> int | None:
        return review.approve(self.ctx, _item_id(item_id))

    def reject(self, item_id: int, reason: str = "") -> int | None:
        """Refuse a held merge or a listed pair; a contradiction's link is removed (logged,
        undoable: returns that log id)."""
        why = clean_string(reason, "reason")
        return review.reject(self.ctx, _item_id(item_id), why)

    def resume(self) -> JSONDict:
        return review.resume(self.ctx)

    def report(self, since: datetime | timedelta | str | None = "7d", fmt: str = "md") -> str:
        return report_mod.report(self.ctx, since, fmt)

    def feedback(self, memory_id: str, kind: str, context: str | None = None) -> list[int]:
        full = resolve_id(
            self.ctx.store, memory_id, min_chars=self.ctx.settings.store.id_prefix_min_chars
        )
        return feedback_mod.feedback(self.ctx, full, kind, context)
