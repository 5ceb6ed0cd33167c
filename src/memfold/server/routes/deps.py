"""Shared route parameters: the calling key at each role, paging, JSON query values."""

from __future__ import annotations

import json
from typing import Annotated, Any

from fastapi import Depends, Path, Query

from memfold.errors import InvalidInput
from memfold.memory import Memory
from memfold.model import ApiKey, Role
from memfold.policy.validate import INT64_MAX
from memfold.server.auth import require

ReadKey = Annotated[ApiKey, Depends(require(Role.READ))]
WriteKey = Annotated[ApiKey, Depends(require(Role.WRITE))]
AdminKey = Annotated[ApiKey, Depends(require(Role.ADMIN))]

# A row id in a path (log row, review item) and a count in a query (offset, position):
# past the largest integer the databases hold, 422 naming it, not a driver's OverflowError.
RowId = Annotated[int, Path(ge=1, le=INT64_MAX)]
Count = Annotated[int, Query(ge=0, le=INT64_MAX)]


def page_size(memory: Memory, limit: int, name: str = "limit") -> int:
    """A page size within 1..server.max_page_size."""
    cap = memory.settings.server.max_page_size
    if not 1 <= limit <= cap:
        raise InvalidInput(
            f"{name} must be between 1 and {cap} (server.max_page_size), got {limit}"
        )
    return limit


def json_query(raw: str | None, name: str) -> dict[str, Any] | None:
    """A JSON object given in a query parameter (``?filters={"topic": "food"}``)."""
    if raw is None:
        return None
    try:
        value = json.loads(raw)
    except ValueError as exc:
        raise InvalidInput(f"{name} is not valid JSON: {exc}") from None
    except RecursionError:  # some thousand nested brackets
        raise InvalidInput(f"{name} is nested too deep") from None
    if not isinstance(value, dict):
        raise InvalidInput(f"{name} must be a JSON object, got {type(value).__name__}")
    return value
