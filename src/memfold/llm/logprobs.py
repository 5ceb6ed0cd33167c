"""Token log-probabilities of a reply, and the probability of one value in it.

Where a server returns the log-probability of each generated token (OpenAI, vLLM,
llama.cpp with ``logprobs: true``), the probability the model gave a decision is the
product of the probabilities of the tokens that spell its value: for ``"action":
"DELETE"`` the tokens that overlap ``DELETE``. That is the model's own, calibratable
score, unlike the number it writes into a ``confidence`` field. Pure: no I/O.

The spans are found in the concatenated token texts themselves, not in the reply
string, so a token stream that differs from the reply in bytes elsewhere (a split
multi-byte character) still locates its values; a value whose text differs from the
parsed one gives None, and the caller falls back to the stated confidence.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class TokenLogprob:
    token: str
    logprob: float


def token_logprobs(choice: Any) -> tuple[TokenLogprob, ...] | None:
    """The generated tokens of an OpenAI ``choice`` with their log-probabilities, or
    None when the server sent none (not asked, not supported, or malformed)."""
    found = getattr(choice, "logprobs", None)
    content = getattr(found, "content", None)
    if not content:
        return None
    out: list[TokenLogprob] = []
    for entry in content:
        token, logprob = getattr(entry, "token", None), getattr(entry, "logprob", None)
        if not isinstance(token, str) or not isinstance(logprob, int | float):
            return None
        if math.isnan(logprob) or logprob > 0:
            return None
        out.append(TokenLogprob(token, float(logprob)))
    return tuple(out)


def value_probabilities(
    tokens: Sequence[TokenLogprob], key: str, values: Sequence[str]
) -> list[float | None]:
    """P of each string value of ``key``, in order of appearance: ``values[k]`` is what
    the k-th ``"key": "..."`` of the reply was parsed as. An occurrence that is missing
    or spells another value gives None."""
    text = "".join(t.token for t in tokens)
    starts: list[int] = []
    at = 0
    for t in tokens:
        starts.append(at)
        at += len(t.token)
    pattern = re.compile(r'"' + re.escape(key) + r'"\s*:\s*"([^"]*)"')
    spans = [(m.start(1), m.end(1), m.group(1)) for m in pattern.finditer(text)]
    out: list[float | None] = []
    for n, wanted in enumerate(values):
        if n >= len(spans) or spans[n][2] != wanted or spans[n][0] == spans[n][1]:
            out.append(None)
            continue
        begin, end, _ = spans[n]
        total = sum(
            t.logprob
            for t, start in zip(tokens, starts, strict=True)
            if start < end and start + len(t.token) > begin
        )
        out.append(math.exp(total))
    return out


def span_probability(
    tokens: Sequence[TokenLogprob], reply: str, span: tuple[int, int]
) -> float | None:
    """P of the tokens that overlap ``span`` (character offsets into ``reply``), or None
    when the tokens do not spell ``reply`` (their offsets would not line up) or the span
    is empty."""
    begin, end = span
    if begin >= end or "".join(t.token for t in tokens) != reply:
        return None
    total, at = 0.0, 0
    for t in tokens:
        if at < end and at + len(t.token) > begin:
            total += t.logprob
        at += len(t.token)
    return math.exp(total)


def token_at(tokens: Sequence[TokenLogprob], reply: str, start: int) -> TokenLogprob | None:
    """The token that begins the value at ``start`` in ``reply`` (with the space before
    it, as a tokenizer joins them), or None when the tokens do not spell ``reply`` or the
    token covering ``start`` also holds text before the value (``": DELETE"``)."""
    if "".join(t.token for t in tokens) != reply:
        return None
    at = 0
    for t in tokens:
        end = at + len(t.token)
        if at <= start < end:
            lead = reply[at:start]
            return t if not lead.strip() and t.token.strip() else None
        at = end
    return None
