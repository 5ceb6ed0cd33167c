"""What a failed chat-completion call means: the typed ``LLMError`` callers see, a
format or parameter the endpoint refuses (tried again at once without it), or a
failure worth a retry. Used by ``LLMClient._send`` (llm/client.py)."""

from __future__ import annotations

import re
from dataclasses import dataclass

import openai

from memfold.errors import (
    LLMError,
    LLMRateLimited,
    LLMReplyInvalid,
    LLMTimeout,
    LLMUnavailable,
)
from memfold.llm import usage as outcomes
from memfold.llm.formats import FormatRefused, refuses_format

# Request parameters a server may refuse, each dropped for that endpoint once refused.
MAX_TOKENS, MAX_COMPLETION_TOKENS, LOGPROBS = "max_tokens", "max_completion_tokens", "logprobs"
STREAM = "stream"
_REFUSABLE = (LOGPROBS, STREAM, MAX_TOKENS, MAX_COMPLETION_TOKENS)


class StreamCut(Exception):
    """A streamed reply that ended before its finish reason: llama-cpp-python's server
    cuts a stream when another request arrives (``interrupt_requests``, on by default).
    Retried like a dropped connection."""


class ParamRefused(Exception):
    """The server refused a request parameter it was sent (it names it in its 4xx)."""

    def __init__(self, param: str, status: int, message: str) -> None:
        super().__init__(message)
        self.param = param
        self.status = status


@dataclass(frozen=True, slots=True)
class CallFailure:
    """A failed call as the caller reports it: the error, its usage outcome, and whether
    the endpoint is now known to be unreachable."""

    error: LLMError
    outcome: str
    down: bool = False


def refused_param(err: openai.APIStatusError, sent: set[str]) -> str | None:
    """The droppable parameter a 400/422 names, if it was sent."""
    if err.status_code not in (400, 422):
        return None
    said = f"{err.message} {err.body}".lower()
    for param in _REFUSABLE:
        if param in sent and re.search(rf"\b(top_)?{param}\b", said):
            return param
    return None


def retryable(exc: BaseException) -> bool:
    """429, 5xx and connection errors may pass on a retry; other 4xx will not."""
    return isinstance(
        exc,
        openai.RateLimitError | openai.InternalServerError | openai.APIConnectionError | StreamCut,
    )


def classify_failure(
    err: Exception,
    *,
    endpoint: str,
    attempts: int,
    timeout_s: float,
    probing: bool,
    sent: set[str],
) -> CallFailure:
    """The typed failure of one call. Raises ``FormatRefused`` (a format still being
    probed on this endpoint) or ``ParamRefused`` (a parameter it refuses) instead, since
    those are asked again at once; anything unknown is raised unchanged."""
    if isinstance(err, StreamCut):
        return CallFailure(
            LLMUnavailable(f"{endpoint} cut the streamed reply {attempts} time(s): {err}"),
            outcomes.UNAVAILABLE,
        )
    if isinstance(err, TimeoutError):
        return CallFailure(
            LLMTimeout(f"{endpoint} did not answer within {timeout_s:g} s ({attempts} attempt(s))"),
            outcomes.TIMEOUT,
        )
    if isinstance(err, openai.RateLimitError):
        return CallFailure(
            LLMRateLimited(f"{endpoint} rate-limited the call (429): {err.message}"),
            outcomes.RATE_LIMITED,
        )
    if isinstance(err, openai.APITimeoutError):  # before its parent APIConnectionError
        return CallFailure(
            LLMTimeout(f"{endpoint} timed out after {attempts} attempt(s)"), outcomes.TIMEOUT
        )
    if isinstance(err, openai.APIConnectionError):
        return CallFailure(
            LLMUnavailable(f"{endpoint} unreachable: {err}"), outcomes.UNAVAILABLE, down=True
        )
    if isinstance(err, openai.APIStatusError):
        if probing and refuses_format(err):
            raise FormatRefused(err.status_code, err.message) from None
        param = refused_param(err, sent)
        if param is not None:
            raise ParamRefused(param, err.status_code, err.message) from None
        return CallFailure(
            LLMUnavailable(f"{endpoint} answered HTTP {err.status_code}: {err.message}"),
            outcomes.UNAVAILABLE,
        )
    if isinstance(err, openai.APIResponseValidationError | ValueError):
        return CallFailure(
            LLMReplyInvalid(f"{endpoint} sent a malformed response: {err}"), outcomes.INVALID
        )
    raise err
