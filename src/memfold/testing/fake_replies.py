"""Scripted replies and faults for the fake OpenAI-compatible server.

Kept apart from the server so tests and the ``memfold fake-llm`` command can
build scripts without starting anything. Token counts are a deterministic
heuristic (4 characters a token, plus 4 per chat message) so tests can
predict exactly what the server will report in ``usage``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

MESSAGE_OVERHEAD_TOKENS = 4


class Fault(StrEnum):
    """What can go wrong with one chat completion, on demand."""

    DELAY = "delay"  # answer only after ``delay_s`` (default: long past any test timeout)
    RATE_LIMIT = "429"  # HTTP 429 with an OpenAI-style error body
    SERVER_ERROR = "500"  # HTTP 500
    DROP = "drop"  # headers sent, then the connection closes mid-body
    MALFORMED = "malformed"  # HTTP 200 whose body is not JSON
    TRUNCATED = "truncated"  # content cut in half, ``finish_reason: "length"``
    WRONG_SCHEMA = "wrong_schema"  # valid JSON content with unrelated fields


@dataclass(frozen=True, slots=True)
class Reply:
    """One scripted answer: content (str, or JSON-dumped object), or a fault."""

    content: str | dict[str, Any] | list[Any] | None = None
    fault: Fault | None = None
    delay_s: float | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    # Function calls the assistant makes: (name, arguments as a dict), answered as
    # OpenAI ``tool_calls`` with ``finish_reason: "tool_calls"``.
    tool_calls: tuple[tuple[str, dict[str, Any]], ...] = ()

    @property
    def text(self) -> str:
        if self.content is None:
            return ""
        if isinstance(self.content, str):
            return self.content
        return json.dumps(self.content)


ReplyLike = Reply | str | dict[str, Any] | list[Any]
Responder = Callable[[dict[str, Any]], ReplyLike]
Script = Sequence[ReplyLike] | Responder

DEFAULT_FAULT_DELAY_S = 30.0
WRONG_SCHEMA_CONTENT = '{"unexpected": true, "answer": 42}'


def count_tokens(text: str) -> int:
    """4 characters a token, rounded up; the same rule the client uses to estimate."""
    return math.ceil(len(text) / 4)


def prompt_tokens(body: dict[str, Any]) -> int:
    """Tokens of a chat request's messages, as the fake server reports them."""
    total = 0
    for message in body.get("messages") or []:
        content = message.get("content") if isinstance(message, dict) else None
        total += MESSAGE_OVERHEAD_TOKENS + count_tokens(content if isinstance(content, str) else "")
    return total


def as_reply(item: ReplyLike) -> Reply:
    if isinstance(item, Reply):
        return item
    return Reply(content=item)


def reply_from_json(entry: Any) -> Reply:
    """One script-file entry -> a Reply (see ``run_from_script_file`` for the format)."""
    if isinstance(entry, dict) and ("content" in entry or "fault" in entry):
        usage = entry.get("usage") or {}
        return Reply(
            content=entry.get("content"),
            fault=None if entry.get("fault") is None else Fault(str(entry["fault"])),
            delay_s=None if entry.get("delay_s") is None else float(entry["delay_s"]),
            prompt_tokens=usage.get("prompt_tokens"),
            completion_tokens=usage.get("completion_tokens"),
        )
    if isinstance(entry, str | dict | list):
        return Reply(content=entry)
    raise ValueError(f"script entry must be a string or an object, got {type(entry).__name__}")


def load_script(path: Path) -> list[Reply]:
    """Replies from a JSON array file, or a JSONL file of one entry per line."""
    text = path.read_text(encoding="utf-8")
    stripped = text.lstrip()
    if stripped.startswith("["):
        entries = json.loads(stripped)
    else:
        entries = [json.loads(line) for line in text.splitlines() if line.strip()]
    return [reply_from_json(e) for e in entries]


def chat_completion(body: dict[str, Any], reply: Reply, *, finish_reason: str = "stop") -> Any:
    """An OpenAI ``chat.completion`` object for ``reply``, with a ``usage`` field."""
    text = reply.text
    if reply.fault is Fault.TRUNCATED:
        text = text[: max(1, len(text) // 2)] if text else '{"decisions": [{"item": 1, "act'
        finish_reason = "length"
    elif reply.fault is Fault.WRONG_SCHEMA:
        text = WRONG_SCHEMA_CONTENT
    p_tokens = reply.prompt_tokens if reply.prompt_tokens is not None else prompt_tokens(body)
    c_tokens = (
        reply.completion_tokens if reply.completion_tokens is not None else count_tokens(text)
    )
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if reply.tool_calls:
        message["content"] = text or None
        message["tool_calls"] = [
            {
                "id": f"call_{n}",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(arguments)},
            }
            for n, (name, arguments) in enumerate(reply.tool_calls)
        ]
        finish_reason = "tool_calls"
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 0,
        "model": body.get("model", "fake-model"),
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
        "usage": {
            "prompt_tokens": p_tokens,
            "completion_tokens": c_tokens,
            "total_tokens": p_tokens + c_tokens,
        },
    }


def last_user_message(body: dict[str, Any]) -> str:
    """The content of the request's last user message (for responder functions)."""
    for message in reversed(body.get("messages") or []):
        if message.get("role") == "user":
            return str(message.get("content") or "")
    return ""


def user_payload(body: dict[str, Any]) -> Any:
    """The last user message parsed as JSON (memfold's judge sends JSON payloads)."""
    return json.loads(last_user_message(body))
