"""A line reply's action probabilities from one completion token each, and the checks
that let an endpoint's chat template do that (llm/template_check.py).

A line says where its action sits (``ACTION_SPAN``), so the reply up to it is a prefix
the client can score without streaming the whole reply with log-probabilities.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memfold.judge.reply_lines import ACTION_SPAN
from memfold.llm.client import LLMClient
from memfold.llm.formats import ChatMessage
from memfold.llm.logprobs import TokenLogprob, token_at
from memfold.llm.prefix_score import value_probability

TASK = "consolidation"


async def score_lines(
    client: LLMClient,
    messages: Sequence[ChatMessage],
    rows: Sequence[dict[str, Any]],
    reply: str,
) -> list[float | None]:
    """Each line's action probability from one completion token after the reply up to
    that action; None for a row read from JSON or a token that is not the action's."""
    out: list[float | None] = []
    for row in rows:
        span = row.get(ACTION_SPAN)
        if span is None:
            out.append(None)
            continue
        start = int(span[0])
        scored = await client.prefix_logprob(TASK, messages, reply[:start])
        out.append(value_probability(scored, reply, start))
    return out


async def check_template(
    client: LLMClient,
    messages: Sequence[ChatMessage],
    rows: Sequence[dict[str, Any]],
    reply: str,
    tokens: tuple[TokenLogprob, ...] | None,
) -> None:
    """Each line's streamed action token held against one completion token in the chat
    template under check, until one is adopted or none is left; a line whose action token
    also holds text before the action checks nothing."""
    for row in rows:
        span = row.get(ACTION_SPAN)
        if tokens is None or span is None:
            continue
        if not client.template_under_check(TASK):
            return
        start = int(span[0])
        streamed = token_at(tokens, reply, start)
        if streamed is not None:
            await client.check_template(TASK, messages, reply[:start], streamed)
