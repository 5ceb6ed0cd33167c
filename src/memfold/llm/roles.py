"""Role router: a task (consolidation, classification...) -> a role -> an endpoint.

Cheap mechanical tasks run on the "utility" role unless configured otherwise.
A role's own ``base_url`` / ``model`` / ``api_key`` override the top-level
ones, so one endpoint can serve both roles with different models. Missing
endpoint or model is a ``ConfigError`` when the client is built, not a SKIP
on every call later.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from memfold.config import LLMSettings, RoleSettings
from memfold.errors import ConfigError

TASKS = ("consolidation", "classification", "compression", "summary", "extraction")

# Backoff between retries, until RoleSettings carries these (see _setting).


@dataclass(frozen=True, slots=True)
class ResolvedRole:
    """Everything one call needs: endpoint, model, key, and the role's limits."""

    name: str
    base_url: str
    model: str
    api_key: str | None
    settings: RoleSettings

    @property
    def endpoint(self) -> str:
        """The key rate limits are shared on: one server, whatever the role."""
        return self.base_url.rstrip("/")

    @property
    def backoff_s(self) -> float:
        return self.settings.retry_backoff_s

    @property
    def backoff_max_s(self) -> float:
        return self.settings.retry_backoff_max_s

    @property
    def probe_timeout_s(self) -> float:
        return min(self.settings.probe_timeout_s, self.settings.timeout_s)


def role_name(settings: LLMSettings, task: str) -> str:
    try:
        return settings.task_roles[task]
    except KeyError:
        raise ConfigError(
            f"no LLM role for task {task!r}; known tasks: {sorted(settings.task_roles)}"
        ) from None


def resolve_role(settings: LLMSettings, task: str) -> ResolvedRole:
    """The endpoint and limits for ``task``; ``ConfigError`` if base_url or model is missing."""
    name = role_name(settings, task)
    role: RoleSettings = getattr(settings, name)
    base_url = role.base_url or settings.base_url
    model = role.model or settings.model
    if not base_url:
        raise ConfigError(
            f"LLM task {task!r} (role {name!r}) has no base_url: set MEMFOLD_LLM_BASE_URL "
            f"or llm.{name}.base_url"
        )
    if not model:
        raise ConfigError(
            f"LLM task {task!r} (role {name!r}) has no model: set MEMFOLD_LLM_MODEL "
            f"or llm.{name}.model"
        )
    return ResolvedRole(
        name=name,
        base_url=base_url,
        model=model,
        api_key=role.api_key or settings.api_key,
        settings=role,
    )


def resolve_all(settings: LLMSettings, tasks: Iterable[str]) -> dict[str, ResolvedRole]:
    """Resolve every task up front so a bad configuration fails at construction time."""
    return {task: resolve_role(settings, task) for task in tasks}
