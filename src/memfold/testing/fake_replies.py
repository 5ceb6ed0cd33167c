"""Scripted replies and faults for the fake OpenAI-compatible server.

Kept apart from the server so tests and the ``memfold fake-llm`` command can
build scripts without starting anything. Token counts are a deterministic
heuristic (4 characters a token, plus 4 per chat message) so tests can
predict exactly what the server will report in ``usage``.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
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
    # A streamed reply stopped after its first content chunk, with no finish reason, as
    # llama-cpp-python's server cuts a stream when another request comes in (a request
    # that does not stream is answered whole).
    CUT = "cut"


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
    # Generated tokens with their log-probabilities (see ``logprob_tokens``), sent only
    # when the request asks ``logprobs: true``, as OpenAI / vLLM / llama.cpp send them.
    logprobs: tuple[tuple[str, float], ...] | None = None

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
    choice: dict[str, Any] = {"index": 0, "message": message, "finish_reason": finish_reason}
    if reply.logprobs is not None and body.get("logprobs"):
        choice["logprobs"] = {
            "content": [
                {"token": t, "logprob": lp, "bytes": None, "top_logprobs": []}
                for t, lp in reply.logprobs
            ]
        }
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
        choice["finish_reason"] = "tool_calls"
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 0,
        "model": body.get("model", "fake-model"),
        "choices": [choice],
        "usage": {
            "prompt_tokens": p_tokens,
            "completion_tokens": c_tokens,
            "total_tokens": p_tokens + c_tokens,
        },
    }


def chat_chunks(body: dict[str, Any], reply: Reply) -> list[dict[str, Any]]:
    """The same answer as ``chat_completion``, as the ``chat.completion.chunk`` objects of
    a streamed reply: the role, the content (one chunk per log-probability token when the
    request asks for them, else one chunk), the finish reason, then the usage when the
    request's ``stream_options`` ask for it."""
    whole = chat_completion(body, reply)
    choice = whole["choices"][0]
    text = choice["message"]["content"] or ""
    head = {"id": whole["id"], "object": "chat.completion.chunk", "created": 0}
    head["model"] = whole["model"]

    def chunk(delta: dict[str, Any], **extra: Any) -> dict[str, Any]:
        return {**head, "choices": [{"index": 0, "delta": delta, **extra}]}

    out = [chunk({"role": "assistant"})]
    lp = choice.get("logprobs")
    if lp is not None:  # token by token, as far as the (maybe truncated) text goes
        at = 0
        for t in lp["content"]:
            if at >= len(text):
                break
            out.append(chunk({"content": t["token"]}, logprobs={"content": [t]}))
            at += len(t["token"])
    elif text:
        out.append(chunk({"content": text}))
    if reply.fault is Fault.CUT:
        return out[:2]
    out.append(chunk({}, finish_reason=choice["finish_reason"]))
    if (body.get("stream_options") or {}).get("include_usage"):
        out.append({**head, "choices": [], "usage": whole["usage"]})
    return out


def logprob_tokens(text: str, probabilities: Mapping[str, float]) -> tuple[tuple[str, float], ...]:
    """``text`` cut into tokens for ``Reply.logprobs``: each string of ``probabilities``
    one token with log(p) (every occurrence), the rest in word-sized tokens at p = 1."""
    keys = sorted(probabilities, key=len, reverse=True)
    pattern = "|".join(re.escape(k) for k in keys) if keys else None
    out: list[tuple[str, float]] = []
    at = 0
    for m in re.finditer(pattern, text) if pattern else ():
        out += [(t, 0.0) for t in re.findall(r"\w+|\W", text[at : m.start()])]
        out.append((m.group(0), math.log(probabilities[m.group(0)])))
        at = m.end()
    out += [(t, 0.0) for t in re.findall(r"\w+|\W", text[at:])]
    return tuple(out)


def last_user_message(body: dict[str, Any]) -> str:
    """The content of the request's last user message (for responder functions)."""
    for message in reversed(body.get("messages") or []):
        if message.get("role") == "user":
            return str(message.get("content") or "")
    return ""


def _memory_text(shown: str) -> str:
    """A memory as listed: plain, or a JSON string when it holds line breaks."""
    if shown.startswith('"') and shown.endswith('"'):
        try:
            decoded = json.loads(shown)
        except json.JSONDecodeError:
            return shown
        return decoded if isinstance(decoded, str) else shown
    return shown


_NUMBERED = re.compile(r"^(\d+)\. (.*)$")
_CANDIDATE = re.compile(r"^(\d+): (.*?)(?: \((?:differs: .*|same words)\))?$")


def user_payload(body: dict[str, Any]) -> Any:
    """The last user message as data. Decisions and pair reviews are sent as numbered
    lines; they come back as ``{"items": [{"item": 1, "new": {"text": ...},
    "candidates": [{"id": "1", "text": ...}]}]}`` (a candidate's ``id`` is its number,
    which a reply may name in ``targets`` or ``target_ids``; the new one's is "0") or
    ``{"pairs": [{"pair": 1, "a": {"text": ...}, "b": {"text": ...}}]}``; a summary's
    originals (``Memories:`` then ``1. text`` lines) as ``{"memories": [{"id": "1",
    "text": ...}]}``. Anything else is parsed as JSON."""
    text = last_user_message(body)
    blocks = [b.splitlines() for b in text.split("\n\n")]
    if blocks and all(b and re.fullmatch(r"Item \d+", b[0]) for b in blocks):
        items = []
        for lines in blocks:
            found = [_CANDIDATE.match(line) for line in lines[2:]]
            items.append(
                {
                    "item": int(lines[0].split()[1]),
                    "new": {"id": "0", "text": _memory_text(lines[1].removeprefix("NEW: "))},
                    "candidates": [
                        {"id": m.group(1), "text": _memory_text(m.group(2))}
                        for m in found
                        if m is not None
                    ],
                }
            )
        return {"items": items}
    if blocks and all(len(b) == 3 and re.fullmatch(r"Pair \d+", b[0]) for b in blocks):
        return {
            "pairs": [
                {
                    "pair": int(b[0].split()[1]),
                    "a": {"text": _memory_text(b[1].removeprefix("A: "))},
                    "b": {"text": _memory_text(b[2].removeprefix("B: "))},
                }
                for b in blocks
            ]
        }
    lines = text.splitlines()
    if lines and lines[0] == "Memories:":  # a summary's originals (compress prompt)
        found = [_NUMBERED.match(line) for line in lines[1:]]
        return {
            "memories": [{"id": m.group(1), "text": _memory_text(m.group(2))} for m in found if m]
        }
    return json.loads(text)


_CHOICE = re.compile(r'"(?:action|label)"\s*:\s*"([^"]*)"')


def confident(content: str | dict[str, Any]) -> Reply:
    """A JSON decisions or verdicts reply whose action (or label) tokens carry the
    probability each row states as its ``confidence`` (1.0 where it states none): a
    scripted model whose token probabilities are what it says, for tests that need a
    confidence the judge counts (a stated number alone counts for nothing)."""
    text = content if isinstance(content, str) else json.dumps(content)
    value = json.loads(text)
    rows = value.get("decisions") or value.get("verdicts") or [] if isinstance(value, dict) else []
    out: list[tuple[str, float]] = []
    at = 0
    for n, match in enumerate(_CHOICE.finditer(text)):
        stated = rows[n].get("confidence") if n < len(rows) and isinstance(rows[n], dict) else None
        p = float(stated) if isinstance(stated, int | float) and 0 < stated <= 1 else 1.0
        out += [(text[at : match.start(1)], 0.0), (match.group(1), math.log(p))]
        at = match.end(1)
    out.append((text[at:], 0.0))
    return Reply(content=text, logprobs=tuple((t, lp) for t, lp in out if t))


def completion_chunks(
    body: Mapping[str, Any], token: str, probability: float
) -> list[dict[str, Any]]:
    """A streamed ``/v1/completions`` reply of one token scored at ``probability``, in
    OpenAI's legacy ``logprobs`` shape (what llama-cpp-python streams)."""
    head = {"id": "cmpl-fake", "object": "text_completion", "created": 0}
    head["model"] = str(body.get("model", "fake-model"))
    logprob = math.log(probability)
    scored = {
        "tokens": [token],
        "token_logprobs": [logprob],
        "top_logprobs": [{token: logprob}],
        "text_offset": [0],
    }
    first = {"index": 0, "text": token, "logprobs": scored, "finish_reason": None}
    last = {"index": 0, "text": "", "logprobs": None, "finish_reason": "length"}
    return [{**head, "choices": [first]}, {**head, "choices": [last]}]
