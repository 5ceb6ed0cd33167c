"""A streamed chat completion gathered back into one completion.

Why stream at all: llama-cpp-python's server computes log-probabilities of a plain
(non-streamed) reply over every position of the prompt and the reply (a log-softmax of
a prompt-length x vocabulary matrix in NumPy: about 10-15 s a judge call on 2 cores with
a 2,500-token prompt), but for a streamed reply only over the generated tokens, one at a
time. OpenAI and vLLM send the same log-probabilities either way. So the client streams
whenever it asks for log-probabilities, and this module turns the chunks back into what
a plain call returns: the content, the finish reason, each token with its
log-probability, and the usage (counted from the chunks when the server sends none, as
llama-cpp-python does). A server that answers a streamed request with no events at all
(a plain JSON body: it ignores ``stream``) is treated as refusing the parameter, so the
client asks again at once without it and remembers that for the endpoint. A stream
that ends without a finish reason was cut (``StreamCut``) and is retried.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from openai.types.chat import ChatCompletion, ChatCompletionChunk, ChatCompletionTokenLogprob
from openai.types.chat.chat_completion import Choice, ChoiceLogprobs
from openai.types.chat.chat_completion_message import ChatCompletionMessage
from openai.types.completion_usage import CompletionUsage

from memfold.llm.call_errors import STREAM, ParamRefused, StreamCut


async def gather_stream(
    chunks: AsyncIterator[ChatCompletionChunk], *, prompt_estimate: int
) -> ChatCompletion:
    """The completion the chunks of one streamed reply spell; ``prompt_estimate`` stands
    in for the prompt tokens when the server reports no usage. (A connection that breaks
    mid-stream raises the SDK's ``APIConnectionError``, retried like any other.)"""
    parts: list[str] = []
    tokens: list[ChatCompletionTokenLogprob] = []
    finish: str | None = None
    usage: CompletionUsage | None = None
    model, ident, created, chunk_count, events = "", "", 0, 0, 0
    async for chunk in chunks:
        events += 1
        model, ident, created = chunk.model or model, chunk.id or ident, chunk.created
        if chunk.usage is not None:
            usage = chunk.usage
        for choice in chunk.choices:
            if choice.index != 0:
                continue
            if choice.delta.content:
                parts.append(choice.delta.content)
                chunk_count += 1
            if choice.logprobs is not None and choice.logprobs.content:
                tokens.extend(choice.logprobs.content)
            if choice.finish_reason is not None:
                finish = choice.finish_reason
    if events == 0:
        raise ParamRefused(STREAM, 200, "the server answered a streamed request with no events")
    if finish is None:
        raise StreamCut(f"the stream ended after {chunk_count} content chunk(s), unfinished")
    if usage is None:
        generated = len(tokens) or chunk_count
        usage = CompletionUsage(
            prompt_tokens=prompt_estimate,
            completion_tokens=generated,
            total_tokens=prompt_estimate + generated,
        )
    choice_fields: dict[str, Any] = {
        "index": 0,
        "finish_reason": finish or "stop",
        "message": ChatCompletionMessage(role="assistant", content="".join(parts)),
        "logprobs": ChoiceLogprobs(content=tokens) if tokens else None,
    }
    return ChatCompletion(
        id=ident or "stream",
        object="chat.completion",
        created=created,
        model=model,
        choices=[Choice.model_construct(**choice_fields)],
        usage=usage,
    )
