"""API keys of the service (memfold.server): who may call it, for which scope, with
which role. The secret itself is never stored, only its hash (store: api_keys)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from memfold.model.records import JSONDict, Scope


class Role(StrEnum):
    """What a key may do: read (get, list, search, history, log), write (also add,
    update, delete, undo, feedback, conversations, review approve/reject/run) or admin
    (everything, in any scope the request names; review resume, tick, keys)."""

    READ = "read"
    WRITE = "write"
    ADMIN = "admin"

    def allows(self, needed: Role) -> bool:
        order = (Role.READ, Role.WRITE, Role.ADMIN)
        return order.index(self) >= order.index(needed)


@dataclass(slots=True)
class ApiKey:
    """One key. ``user_id``/``agent_id`` bind it to a scope (an admin key may have
    none); ``prefix`` is the public start of the token, shown in listings."""

    id: str
    prefix: str
    role: Role
    user_id: str | None
    agent_id: str | None
    label: str
    created_at: datetime
    revoked_at: datetime | None = None

    @property
    def active(self) -> bool:
        return self.revoked_at is None

    @property
    def scope(self) -> Scope:
        return Scope(self.user_id, self.agent_id, None)

    def to_dict(self) -> JSONDict:
        return {
            "id": self.id,
            "prefix": self.prefix,
            "role": self.role.value,
            "user_id": self.user_id,
            "agent_id": self.agent_id,
            "label": self.label,
            "created_at": self.created_at.isoformat(),
            "revoked_at": None if self.revoked_at is None else self.revoked_at.isoformat(),
        }
