"""``/v1/log``: the change log (rows of the key's scope only) and undo."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from memfold.model import JSONDict
from memfold.server.auth import MemoryDep, owned_memory
from memfold.server.responses import LogRowOut, LogRowsOut, UndoOut
from memfold.server.routes.deps import ReadKey, RowId, WriteKey, page_size
from memfold.server.schemas import UndoRequest
from memfold.server.visibility import log_visible, owned_log, visible_log

router = APIRouter(prefix="/log", tags=["log"])


@router.get(
    "",
    summary="The newest log rows first (those of the key's scope)",
    response_model=LogRowsOut,
    response_model_exclude_unset=True,
)
def list_log(
    key: ReadKey,
    memory: MemoryDep,
    limit: Annotated[int, Query()] = 50,
    memory_id: Annotated[str | None, Query(description="only rows touching it")] = None,
) -> JSONDict:
    size = page_size(memory, limit)
    full = None if memory_id is None else owned_memory(key, memory, memory_id).id
    rows = visible_log(key, memory, limit=size, memory_id=full)
    return {"results": [r.to_dict() for r in rows]}


@router.get(
    "/{log_id}", summary="One log row", response_model=LogRowOut, response_model_exclude_unset=True
)
def get_log(log_id: RowId, key: ReadKey, memory: MemoryDep) -> JSONDict:
    return owned_log(key, memory, log_id).to_dict()


@router.post(
    "/{log_id}/undo",
    summary="Restore the state before a log row (logged)",
    response_model=UndoOut,
    response_model_exclude_unset=True,
)
def undo_log(
    log_id: RowId, key: WriteKey, memory: MemoryDep, body: UndoRequest | None = None
) -> JSONDict:
    owned_log(key, memory, log_id)
    cascade = body.cascade if body is not None else False
    # A cascade must not reach a row of another scope (a worker's row may span several).
    written = memory.undo(
        log_id, cascade=cascade, may_undo=lambda row: log_visible(key, memory, row)
    )
    return {"undo_log_ids": written}
