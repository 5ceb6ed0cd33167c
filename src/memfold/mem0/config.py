"""mem0's ``Memory.from_config`` dict read as memfold's settings. Pure.

What maps: ``llm`` with an OpenAI-compatible provider (openai, lmstudio, vllm:
model, api_key, base url), ``embedder`` with provider openai (model, api_key, base
url), ``vector_store`` with provider pgvector (a connection string or its parts:
memfold's PostgreSQL store), ``version`` ``v1.1``, and memfold's own ``path`` (the
SQLite file). Anything else is a ConfigError naming it: a setting memfold would not
honour is never accepted in silence.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from memfold.errors import ConfigError

_LLM_PROVIDERS = ("openai", "lmstudio", "vllm")
_BASE_URL_KEYS = ("openai_base_url", "lmstudio_base_url", "vllm_base_url", "base_url")


@dataclass(slots=True)
class Mapped:
    """What a mem0 config gives memfold: the store and the settings' overrides."""

    path: str | None = None
    url: str | None = None
    settings: dict[str, dict[str, Any]] = field(default_factory=dict)


def read(config: object) -> Mapped:
    if not isinstance(config, Mapping):
        raise ConfigError(f"config must be a dict, got {type(config).__name__}")
    out = Mapped()
    for key, value in config.items():
        if key == "llm":
            out.settings["llm"] = _llm(_section(value, "llm"))
        elif key == "embedder":
            out.settings["embed"] = _embedder(_section(value, "embedder"))
        elif key == "vector_store":
            out.url = _vector_store(_section(value, "vector_store"))
        elif key == "version":
            if value not in ("v1.1", None):
                raise ConfigError(f"version: memfold answers in mem0's v1.1 shape, not {value!r}")
        elif key == "path":
            if not isinstance(value, str):
                raise ConfigError("path must be a string (the SQLite file)")
            out.path = value
        elif key == "history_db_path":
            raise ConfigError(
                "history_db_path: memfold keeps every change in its store itself; "
                "give the store's file as 'path'"
            )
        else:
            raise ConfigError(f"{key}: no memfold equivalent (see docs/mem0.md)")
    if out.path is not None and out.url is not None:
        raise ConfigError("give either path (SQLite) or a pgvector vector_store, not both")
    return out


def _section(value: object, name: str) -> tuple[str, Mapping[str, Any]]:
    if not isinstance(value, Mapping):
        raise ConfigError(f"{name} must be a dict with provider and config")
    unknown = set(value) - {"provider", "config"}
    if unknown:
        raise ConfigError(f"{name}: unknown keys {', '.join(sorted(map(str, unknown)))}")
    provider = value.get("provider")
    if not isinstance(provider, str):
        raise ConfigError(f"{name}.provider must be a string")
    config = value.get("config") or {}
    if not isinstance(config, Mapping):
        raise ConfigError(f"{name}.config must be a dict")
    return provider, config


def _take(config: Mapping[str, Any], name: str, allowed: tuple[str, ...]) -> dict[str, Any]:
    unknown = [k for k in config if k not in allowed]
    if unknown:
        raise ConfigError(
            f"{name}.config: {', '.join(map(str, unknown))} has no memfold equivalent "
            f"(memfold takes {', '.join(allowed)})"
        )
    return {k: v for k, v in config.items() if v is not None}


def _base_url(given: Mapping[str, Any]) -> str | None:
    urls = {given[k] for k in _BASE_URL_KEYS if k in given}
    if len(urls) > 1:
        raise ConfigError("two different base urls given")
    return next(iter(urls), None)


def _llm(section: tuple[str, Mapping[str, Any]]) -> dict[str, Any]:
    provider, config = section
    if provider not in _LLM_PROVIDERS:
        raise ConfigError(
            f"llm.provider {provider!r}: memfold speaks to OpenAI-compatible servers "
            f"({', '.join(_LLM_PROVIDERS)}); point base_url at one"
        )
    given = _take(config, "llm", ("model", "api_key", *_BASE_URL_KEYS))
    out: dict[str, Any] = {k: given[k] for k in ("model", "api_key") if k in given}
    base_url = _base_url(given)
    if base_url is None and provider == "openai":
        base_url = "https://api.openai.com/v1"
    if base_url is None:
        raise ConfigError(f"llm: {provider} needs its base url ({provider}_base_url)")
    out["base_url"] = base_url
    return out


def _embedder(section: tuple[str, Mapping[str, Any]]) -> dict[str, Any]:
    provider, config = section
    if provider != "openai":
        raise ConfigError(
            f"embedder.provider {provider!r}: memfold embeds with its local model (leave "
            "embedder out) or an OpenAI-compatible endpoint (provider openai)"
        )
    given = _take(config, "embedder", ("model", "api_key", *_BASE_URL_KEYS))
    out: dict[str, Any] = {"provider": "openai"}
    out.update({k: given[k] for k in ("model", "api_key") if k in given})
    base_url = _base_url(given)
    if base_url is not None:
        out["base_url"] = base_url
    return out


def _vector_store(section: tuple[str, Mapping[str, Any]]) -> str:
    provider, config = section
    if provider != "pgvector":
        raise ConfigError(
            f"vector_store.provider {provider!r}: memfold stores in SQLite (give 'path') "
            "or PostgreSQL with pgvector (provider pgvector)"
        )
    parts = ("dbname", "user", "password", "host", "port")
    given = _take(config, "vector_store", ("connection_string", "collection_name", *parts))
    if "collection_name" in given:
        raise ConfigError(
            "vector_store.config.collection_name: memfold keeps one store per database; "
            "scope memories with user_id / agent_id / run_id"
        )
    if "connection_string" in given:
        if any(p in given for p in parts):
            raise ConfigError("give connection_string or its parts, not both")
        return str(given["connection_string"])
    user = quote(str(given.get("user", "postgres")), safe="")
    password = given.get("password")
    auth = user if password is None else f"{user}:{quote(str(password), safe='')}"
    host, port = given.get("host", "localhost"), given.get("port", 5432)
    return f"postgresql://{auth}@{host}:{port}/{given.get('dbname', 'postgres')}"
