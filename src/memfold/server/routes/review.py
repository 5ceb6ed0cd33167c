"""``/v1/review``: status, pending, approve, reject, run (write) and resume (admin).

A key bound to a user sees and acts on the items whose two memories lie in its scope;
its status counts those items only, and shows of the store-wide breaker only whether
it is open (its history may name other scopes).
"""

from __future__ import annotations

from collections import Counter

from fastapi import APIRouter

from memfold.memory import Memory
from memfold.model import ApiKey, JSONDict, QueueItem, Scope
from memfold.server.auth import MemoryDep, may_see, request_scope
from memfold.server.responses_review import (
    ResumedOut,
    ReviewLogIdOut,
    ReviewPendingOut,
    ReviewRunOut,
    ReviewStatusOut,
)
from memfold.server.routes.deps import AdminKey, ReadKey, RowId, WriteKey
from memfold.server.schemas import RejectRequest, ReviewRunRequest
from memfold.server.visibility import item_visible, owned_item, visible_memory_ids

router = APIRouter(prefix="/review", tags=["review"])


def _visible_items(key: ApiKey, memory: Memory) -> list[QueueItem]:
    # The item's scope first (no query), then its two memories.
    items = [i for i in memory.store.queue_items() if may_see(key, Scope.from_key(i.scope_key))]
    return [i for i in items if item_visible(key, memory, i)]


@router.get(
    "/status",
    summary="Queue counts, the breaker, the kill switch",
    response_model=ReviewStatusOut,
    response_model_exclude_unset=True,
)
def review_status(key: ReadKey, memory: MemoryDep) -> JSONDict:
    status = memory.review.status()
    if key.user_id is None:
        return status
    items = _visible_items(key, memory)
    by_status = Counter(i.status for i in items)
    by_label = Counter(i.label.value for i in items if i.label is not None)
    return {
        "queue": {"by_status": dict(by_status), "by_label": dict(by_label)},
        "breaker": {"open": bool(status["breaker"].get("open"))},
        "kill_switch": status["kill_switch"],
        "daily_merge_cap": status["daily_merge_cap"],
    }


@router.get(
    "/pending",
    summary="What waits for a person: held merges, contradictions, ...",
    response_model=ReviewPendingOut,
    response_model_exclude_unset=True,
)
def review_pending(key: ReadKey, memory: MemoryDep) -> JSONDict:
    pending = memory.review.pending()
    if key.user_id is None:
        return pending
    shown: JSONDict = {}
    for name in ("held", "contradictions", "supersedes"):
        shown[name] = [it for it in pending[name] if item_visible(key, memory, it)]
    flagged = [str(m) for m in pending["flagged_by_feedback"]]
    mine = visible_memory_ids(key, memory, flagged)
    shown["flagged_by_feedback"] = [m for m in flagged if m in mine]
    return shown


@router.post(
    "/items/{item_id}/approve",
    summary="Apply a held merge or supersede",
    response_model=ReviewLogIdOut,
    response_model_exclude_unset=True,
)
def approve_item(item_id: RowId, key: WriteKey, memory: MemoryDep) -> JSONDict:
    owned_item(key, memory, item_id)
    return {"log_id": memory.review.approve(item_id)}


@router.post(
    "/items/{item_id}/reject",
    summary="Refuse a held merge or a listed pair",
    response_model=ReviewLogIdOut,
    response_model_exclude_unset=True,
)
def reject_item(
    item_id: RowId, key: WriteKey, memory: MemoryDep, body: RejectRequest | None = None
) -> JSONDict:
    owned_item(key, memory, item_id)
    reason = "" if body is None else body.reason
    return {"log_id": memory.review.reject(item_id, reason)}


@router.post(
    "/run",
    summary="One review run over a scope (an unbound admin key: every scope)",
    response_model=ReviewRunOut,
    response_model_exclude_unset=True,
)
def run_review(key: WriteKey, memory: MemoryDep, body: ReviewRunRequest | None = None) -> JSONDict:
    ids = body or ReviewRunRequest()
    if (
        key.user_id is None
        and ids.user_id is None
        and ids.agent_id is None
        and ids.session_id is None
    ):
        return memory.review.run().to_dict()
    scope = request_scope(key, memory, ids.user_id, ids.agent_id, ids.session_id)
    return memory.review.run(scope).to_dict()


@router.post(
    "/resume",
    summary="Close the breaker by hand (admin)",
    response_model=ResumedOut,
    response_model_exclude_unset=True,
)
def resume_review(key: AdminKey, memory: MemoryDep) -> JSONDict:
    return memory.review.resume()
