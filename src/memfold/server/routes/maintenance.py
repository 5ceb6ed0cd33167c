"""``POST /v1/tick`` (admin): the lifecycle tick over the whole store."""

from __future__ import annotations

from fastapi import APIRouter

from memfold.errors import InvalidInput
from memfold.model import JSONDict, parse_time
from memfold.server.auth import MemoryDep
from memfold.server.responses_review import TickReportOut
from memfold.server.routes.deps import AdminKey
from memfold.server.schemas import TickRequest

router = APIRouter(tags=["lifecycle"])


@router.post(
    "/tick",
    summary="Run the lifecycle tick (admin): expiry, cold tier, compression",
    response_model=TickReportOut,
    response_model_exclude_unset=True,
)
def run_tick(key: AdminKey, memory: MemoryDep, body: TickRequest | None = None) -> JSONDict:
    raw = None if body is None else body.now
    try:
        when = parse_time(raw)
    except (TypeError, ValueError):
        raise InvalidInput(f"now is not an ISO date/time: {raw!r}") from None
    return memory.tick(when).to_dict()
