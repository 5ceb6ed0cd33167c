"""The probability of the token after a reply prefix, from one ``/v1/completions`` token.

A chat reply read without log-probabilities can still be scored: the chat rendered in
the model's own template, followed by the reply up to a value (an action word), is the
prompt the server just evaluated, so a completion request of ``max_tokens`` 1 costs
only the prefix's new tokens and one scored token. llama-cpp-python builds a streamed
token's log-probabilities in Python over the whole vocabulary (~0.15 s a token on 2
cores), so scoring one token instead of a 17-token line cuts a decision from ~4.3 s to
~1.1 s with the same probability (docs/benchmarks.md, "What does work"). The template
must be the model's, and no OpenAI-compatible API exposes it: the client checks a
template against the streamed reply's own log-probabilities before it relies on it
(llm/template_check.py), so a wrong one costs speed, never a wrong confidence.
``llm.<role>.logprob_template`` names the one to check, or ``"auto"`` for each in turn.

The renderings leave out the begin-of-text token: a server adds it when it tokenizes a
completion prompt, as it does for a chat.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from memfold.llm.logprobs import TokenLogprob

# tried in this order by "auto": ChatML first (Qwen and many fine-tunes)
TEMPLATES = ("chatml", "llama3", "gemma")
# remembered per endpoint among the refused parameters when /v1/completions is refused
COMPLETIONS = "completions"


def render_chatml(messages: Sequence[dict[str, str]], reply_prefix: str) -> str:
    """The chat in ChatML with the assistant's turn opened and ``reply_prefix`` written;
    its trailing spaces are left off, so the next token is the value's own (`` DELETE``)."""
    turns = "".join(f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n" for m in messages)
    return f"{turns}<|im_start|>assistant\n{reply_prefix.rstrip(' ')}"


def render_llama3(messages: Sequence[dict[str, str]], reply_prefix: str) -> str:
    """Llama 3's header turns, the assistant's opened and ``reply_prefix`` written."""
    turns = "".join(
        f"<|start_header_id|>{m['role']}<|end_header_id|>\n\n{m['content']}<|eot_id|>"
        for m in messages
    )
    return f"{turns}<|start_header_id|>assistant<|end_header_id|>\n\n{reply_prefix.rstrip(' ')}"


def render_gemma(messages: Sequence[dict[str, str]], reply_prefix: str) -> str:
    """Gemma's turns (``user`` and ``model``; no system turn, so a system message opens
    the first user turn), the model's opened and ``reply_prefix`` written."""
    system = "\n\n".join(m["content"] for m in messages if m["role"] == "system")
    turns: list[str] = []
    for m in messages:
        if m["role"] == "system":
            continue
        content = m["content"]
        if system and not turns:
            content = f"{system}\n\n{content}"
        speaker = "model" if m["role"] == "assistant" else "user"
        turns.append(f"<start_of_turn>{speaker}\n{content}<end_of_turn>\n")
    return f"{''.join(turns)}<start_of_turn>model\n{reply_prefix.rstrip(' ')}"


_RENDERERS = {"chatml": render_chatml, "llama3": render_llama3, "gemma": render_gemma}


def render(template: str, messages: Sequence[dict[str, str]], reply_prefix: str) -> str:
    try:
        renderer = _RENDERERS[template]
    except KeyError:
        raise ValueError(
            f"unknown chat template {template!r}; known: {', '.join(TEMPLATES)}"
        ) from None
    return renderer(messages, reply_prefix)


def first_token(chunks: Sequence[Any]) -> TokenLogprob | None:
    """The first scored token of a streamed completion (OpenAI's legacy ``logprobs``
    shape: ``tokens`` and ``token_logprobs``), or None when none came back."""
    for chunk in chunks:
        for choice in getattr(chunk, "choices", None) or []:
            found = getattr(choice, "logprobs", None)
            tokens = getattr(found, "tokens", None) or []
            values = getattr(found, "token_logprobs", None) or []
            if tokens and values and isinstance(values[0], int | float):
                value = float(values[0])
                if math.isnan(value) or value > 0:
                    return None
                return TokenLogprob(str(tokens[0]), value)
    return None


def value_probability(scored: TokenLogprob | None, reply: str, start: int) -> float | None:
    """P of the value that starts at ``start`` in ``reply``, read from its first token;
    None when the scored token is not how that value begins (another word)."""
    if scored is None:
        return None
    word = scored.token.strip()
    if not word or not reply[start:].startswith(word):
        return None
    return math.exp(scored.logprob)
