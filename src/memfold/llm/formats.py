"""How a reply is held to its schema, and what a server's refusal of a format looks like.

Strictest first: the server enforces the schema (``json_schema``), the server enforces
JSON and the prompt carries the schema (``json_object``), or the prompt alone asks for
it (``prompt``). Pure: no I/O.
"""

from __future__ import annotations

import json
from typing import Any

import openai
from pydantic import BaseModel

from memfold.llm.parsing import json_schema_of

ChatMessage = dict[str, str]

JSON_SCHEMA, JSON_OBJECT, PROMPT_ONLY = "json_schema", "json_object", "prompt"
FORMATS = (JSON_SCHEMA, JSON_OBJECT, PROMPT_ONLY)
# A server that cannot do a response_format answers one of these statuses with a message
# that names it (llama.cpp: HTTP 500 "response_format ... Input should be 'text' or
# 'json_object'"); any other error is an ordinary failure, retried as usual.
_FORMAT_REFUSALS = frozenset({400, 415, 422, 500, 501})
_FORMAT_WORDS = ("response_format", "json_schema", "json_object", "grammar")


def refuses_format(exc: BaseException) -> bool:
    if not isinstance(exc, openai.APIStatusError) or exc.status_code not in _FORMAT_REFUSALS:
        return False
    said = f"{exc.message} {exc.body}".lower()
    return any(word in said for word in _FORMAT_WORDS)


class FormatRefused(Exception):
    """The server answered a status that may mean it cannot do this response_format."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def json_instruction(schema: type[BaseModel]) -> str:
    return (
        "\n\nReply with one JSON object only, no prose, matching this JSON schema:\n"
        + json.dumps(json_schema_of(schema), separators=(",", ":"))
    )


def with_format(
    messages: list[ChatMessage], schema: type[BaseModel], fmt: str
) -> list[ChatMessage]:
    """The messages, with the schema spelled out in the first one unless the server
    enforces it (``json_object`` also needs the word JSON in the prompt)."""
    if fmt == JSON_SCHEMA:
        return messages
    first = {**messages[0], "content": messages[0]["content"] + json_instruction(schema)}
    return [first, *messages[1:]]


def response_format_body(schema: type[BaseModel], fmt: str) -> dict[str, Any]:
    if fmt == JSON_OBJECT:
        return {"type": "json_object"}
    return {
        "type": "json_schema",
        "json_schema": {
            "name": schema.__name__,
            "schema": json_schema_of(schema),
            "strict": False,
        },
    }
