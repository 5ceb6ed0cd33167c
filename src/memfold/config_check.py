"""Checks behind ``memfold.config``: unknown keys and bad values are a ``ConfigError``.

A typo in an environment variable (``MEMFOLD_CONSOLIDATON__MODE``) or in the TOML
file (``destructive_treshold``) would otherwise be ignored without a word, and a
bad value would surface as a multi-line pydantic traceback. Here both become one
readable line naming the key and its section.
"""

from __future__ import annotations

import tomllib
import types
import typing
from collections.abc import Iterable, Mapping, Sequence
from itertools import pairwise
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from memfold.errors import ConfigError

ENV_PREFIX = "MEMFOLD_"
# Short names the README documents (read by Settings._flat_env_aliases and
# config_file_path), accepted beside the MEMFOLD_<SECTION>__<NAME> form.
# MEMFOLD_API_KEY is no setting: `memfold mcp` reads it as its --key (cli/mcp.py).
# Variables that are no setting's path but are read by name (EVAL_DATA: the folder
# ``memfold eval`` reads its public data sets from).
ENV_ALIASES = frozenset(
    {"PATH", "URL", "CONFIG", "LLM_BASE_URL", "LLM_MODEL", "LLM_API_KEY", "API_KEY", "EVAL_DATA"}
)
_SECRET_HINTS = ("api_key", "password", "token")
Anchor = tuple[float, float]


class SettingError(ConfigError, ValueError):
    """Unknown keys or bad values in one settings object.

    Also a ``ValueError``, so a section built inside another one (``llm.utility``
    inside ``llm``) reaches the outer object as a located error and the message
    names the full key (``llm.utility.timeout_s``).
    """

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        super().__init__("; ".join(_format(p) for p in problems))


# (kind: "unknown" | "invalid", key path, what was wrong)
Problem = tuple[str, tuple[str, ...], str]


class Section(BaseModel):
    """A settings section: unknown keys are refused, bad values raise ``ConfigError``."""

    model_config = ConfigDict(extra="forbid")

    def __init__(self, **values: Any) -> None:
        try:
            super().__init__(**values)
        except ValidationError as exc:
            raise SettingError(problems(exc)) from None


def problems(exc: ValidationError) -> list[Problem]:
    """Each error of ``exc`` as (kind, full key path, detail)."""
    found: list[Problem] = []
    for err in exc.errors():
        loc = tuple(str(p) for p in err["loc"])
        inner = err.get("ctx", {}).get("error")
        if isinstance(inner, SettingError):
            found.extend((kind, loc + sub, what) for kind, sub, what in inner.problems)
        elif err["type"] == "extra_forbidden":
            found.append(("unknown", loc, ""))
        else:
            what = str(inner) if isinstance(inner, ValueError) else err["msg"]
            given = err.get("input")
            if not (_secret(loc) or isinstance(given, Mapping)):
                what += f" (got {_short(given)})"
            found.append(("invalid", loc, what))
    return found


def _format(problem: Problem) -> str:
    kind, loc, what = problem
    if kind == "unknown":
        section = ".".join(loc[:-1])
        return f"unknown setting {loc[-1]!r}" + (f" in section [{section}]" if section else "")
    return f"invalid setting {'.'.join(loc)}: {what}"


def _secret(loc: tuple[str, ...]) -> bool:
    return any(hint in part.lower() for part in loc for hint in _SECRET_HINTS)


def _short(value: object, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _model_of(annotation: Any) -> type[BaseModel] | None:
    """The model class a field holds (``Foo`` or ``Foo | None``), else None."""
    candidates = [annotation]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        candidates = list(typing.get_args(annotation))
    for c in candidates:
        if isinstance(c, type) and issubclass(c, BaseModel):
            return c
    return None


def _is_mapping(annotation: Any) -> bool:
    return typing.get_origin(annotation) in (dict, Mapping)


def unknown_key(model: type[BaseModel], path: Iterable[str]) -> str | None:
    """Why ``path`` (section, key, ...) names no setting of ``model``; None if it does."""
    section: list[str] = []
    current: type[BaseModel] | None = model
    for name in path:
        if current is None:
            return f"[{'.'.join(section)}] is a value, not a section (no key {name!r})"
        field = current.model_fields.get(name)
        if field is None:
            if not section:
                known = ", ".join(model.model_fields)
                return f"no section [{name}] (sections: {known})"
            return f"section [{'.'.join(section)}] has no key {name!r}"
        if _is_mapping(field.annotation):
            return None  # free keys (llm.task_roles): its validator checks them
        section.append(name)
        current = _model_of(field.annotation)
    return None


def check_env(model: type[BaseModel], environ: Mapping[str, str]) -> None:
    """Every ``MEMFOLD_*`` variable must be an alias or name a real setting."""
    for var in sorted(environ):
        upper = var.upper()
        if not upper.startswith(ENV_PREFIX):
            continue
        rest = upper[len(ENV_PREFIX) :]
        if rest in ENV_ALIASES:
            continue
        path = rest.lower().split("__")
        why = unknown_key(model, path) if all(path) else "empty name between '__'"
        if why is not None:
            aliases = ", ".join(ENV_PREFIX + a for a in sorted(ENV_ALIASES))
            raise ConfigError(
                f"unknown environment variable {var}: {why}; use "
                f"{ENV_PREFIX}<SECTION>__<KEY> or one of {aliases}"
            )


def read_config_file(model: type[BaseModel], path: Path, *, explicit: bool) -> None:
    """Refuse a config file that does not parse or holds a key no setting has."""
    if not path.exists():
        if explicit:
            raise ConfigError(f"MEMFOLD_CONFIG names no file: {path}")
        return
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"config file {path} cannot be read: {exc}") from None
    for keys in _key_paths(data):
        why = unknown_key(model, keys)
        if why is not None:
            raise ConfigError(f"unknown setting in config file {path}: {why}")


def _key_paths(data: Mapping[str, Any], prefix: tuple[str, ...] = ()) -> Iterable[list[str]]:
    for key, value in data.items():
        path = (*prefix, key)
        if isinstance(value, Mapping) and value:
            yield from _key_paths(value, path)
        else:
            yield list(path)


def merged_task_roles(value: Any, defaults: Mapping[str, str]) -> Any:
    """``llm.task_roles``: the given tasks change their role, the others keep theirs."""
    if not isinstance(value, Mapping):
        return value  # pydantic reports the type
    unknown = sorted(set(value) - set(defaults))
    if unknown:
        raise ValueError(f"unknown task {unknown[0]!r} (tasks: {', '.join(defaults)})")
    return {**defaults, **value}


def check_anchors(anchors: Sequence[Sequence[float]]) -> list[Anchor]:
    """The anchors as (raw, calibrated) pairs; ``ValueError`` unless both coordinates lie
    in [0, 1], raw strictly increases and calibrated never decreases (a higher
    probability must never mean a lower confidence)."""
    points: list[Anchor] = []
    for point in anchors:
        if len(point) != 2:
            raise ValueError(f"an anchor is a (raw, calibrated) pair, got {point!r}")
        raw, cal = float(point[0]), float(point[1])
        if not (0.0 <= raw <= 1.0 and 0.0 <= cal <= 1.0):
            raise ValueError(f"anchor {point!r} lies outside [0, 1]")
        points.append((raw, cal))
    for (r0, c0), (r1, c1) in pairwise(points):
        if not (r0 < r1 and c0 <= c1):
            raise ValueError(f"anchors must rise in raw and never fall in calibrated: {points}")
    return points
