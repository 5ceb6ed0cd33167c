"""Tolerant reading of model replies: find the JSON, then validate it strictly.

Small and local models wrap JSON in code fences or prose ("Sure! Here is...")
even when told not to. We accept that wrapping, but not a reply whose JSON
does not validate: that raises ``LLMReplyInvalid`` and becomes a SKIP.
"""

from __future__ import annotations

import copy
import json
import re
from functools import lru_cache
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from memfold.errors import LLMReplyInvalid

T = TypeVar("T", bound=BaseModel)

_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.DOTALL)
_MAX_SHOWN = 200


def _shown(text: str) -> str:
    return text if len(text) <= _MAX_SHOWN else text[:_MAX_SHOWN] + "..."


def extract_json(text: str) -> Any:
    """The first JSON object (or array) in ``text``: bare, fenced, or inside prose."""
    stripped = text.strip()
    if not stripped:
        raise LLMReplyInvalid("empty reply")
    candidates = [stripped, *(m.group(1).strip() for m in _FENCE.finditer(text))]
    for candidate in candidates:
        try:
            return json.loads(candidate)
        except json.JSONDecodeError:
            continue
    decoder = json.JSONDecoder()
    for i, ch in enumerate(text):
        if ch not in "{[":
            continue
        try:
            value, _ = decoder.raw_decode(text, i)
        except json.JSONDecodeError:
            continue
        return value
    raise LLMReplyInvalid(f"reply holds no JSON object: {_shown(stripped)!r}")


def parse_reply(text: str, schema: type[T]) -> T:
    """``text`` -> a validated ``schema`` instance, or ``LLMReplyInvalid`` saying why.

    A bare list is accepted for a schema with a single list field (models
    often drop the wrapping object: ``[...]`` for ``{"decisions": [...]}``).
    """
    return validate(extract_json(text), schema)


def validate(value: Any, schema: type[T]) -> T:
    """A reply already read into JSON values -> a ``schema`` instance, or
    ``LLMReplyInvalid`` saying why (a bare list fills a schema's single list field)."""
    if isinstance(value, list):
        list_fields = [
            name
            for name, info in schema.model_fields.items()
            if getattr(info.annotation, "__origin__", None) is list
        ]
        if len(list_fields) == 1:
            value = {list_fields[0]: value}
    try:
        return schema.model_validate(value)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '<root>'}: {err['msg']}"
            for err in exc.errors()[:5]
        )
        raise LLMReplyInvalid(f"reply does not match {schema.__name__}: {problems}") from None


def json_schema_of(schema: type[BaseModel]) -> dict[str, Any]:
    """The JSON schema sent in ``response_format`` (non-strict: defaults are allowed)."""
    return copy.deepcopy(_schema_cached(schema))


@lru_cache(maxsize=64)
def _schema_cached(schema: type[BaseModel]) -> dict[str, Any]:
    # Generating a schema takes milliseconds; the schemas never change at run time.
    return schema.model_json_schema()
