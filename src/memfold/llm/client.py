"""The LLM client: one structured call to an OpenAI-compatible chat endpoint.

Every call goes through the same path, in this order: mask secrets, check the
daily budget and rate windows (fail at once when used up), send with bounded
retries inside the role's timeout, check the reply for leaked placeholders,
parse and validate it, record its cost. A server that refuses ``response_format:
json_schema`` (llama.cpp's server answers HTTP 500) is asked again at once with
``json_object``, then with the schema in the prompt only, and the format that worked is
remembered for that endpoint. Output is bounded by ``max_tokens`` as well as
``max_completion_tokens`` (llama.cpp's server reads only the first, OpenAI's reasoning
models refuse it), and token log-probabilities are asked for where the role wants them
(``logprobs``), on a streamed reply (``llm/streaming.py`` says why); a server that refuses
one of these parameters is asked again at once without it, and that too is remembered
per endpoint. A prompt that defines its own reply format passes ``read`` instead of
holding the model to a JSON schema. Each failure is a typed ``LLMError``
carrying the call's usage (``usage_of(exc)``), so callers can SKIP and still
log what was spent. An ``LLMClient`` must be used from one event loop.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Generic, TypeVar

import openai
from openai import AsyncOpenAI
from pydantic import BaseModel
from tenacity import (
    AsyncRetrying,
    retry_if_exception,
    stop_after_attempt,
    wait_exponential,
    wait_random,
)

from memfold.config import LLMSettings
from memfold.errors import (
    BudgetExhausted,
    LLMError,
    LLMReplyInvalid,
    LLMReplyTruncated,
    SecretLeak,
)
from memfold.llm import usage as outcomes
from memfold.llm.call_errors import (
    LOGPROBS,
    MAX_COMPLETION_TOKENS,
    MAX_TOKENS,
    STREAM,
    ParamRefused,
    StreamCut,
    classify_failure,
)
from memfold.llm.call_errors import retryable as retryable_error
from memfold.llm.completion_scoring import CompletionScorer
from memfold.llm.endpoints import EndpointKnowledge
from memfold.llm.formats import (
    FORMATS,
    JSON_SCHEMA,
    PROMPT_ONLY,
    ChatMessage,
    FormatRefused,
    json_instruction,
    refuses_format,
    response_format_body,
    with_format,
)
from memfold.llm.limits import RateLimits, check_daily_budget, estimate_tokens
from memfold.llm.logprobs import TokenLogprob, token_logprobs
from memfold.llm.parsing import parse_reply, validate
from memfold.llm.roles import ResolvedRole, resolve_all, resolve_role
from memfold.llm.secrets import MaskSession
from memfold.llm.streaming import gather_stream
from memfold.llm.usage import CallUsage, InMemoryUsageSink, UsageSink, attach_usage

log = logging.getLogger("memfold.llm")

T = TypeVar("T", bound=BaseModel)


@dataclass(frozen=True, slots=True)
class LLMResult(Generic[T]):
    """A validated reply, its cost, the raw (still masked) text, and the log-probability
    of each generated token where the server sent them."""

    value: T
    usage: CallUsage
    raw: str
    logprobs: tuple[TokenLogprob, ...] | None = None


class LLMClient:
    """Structured calls with limits, retries, masking and accounting.

    ``tasks`` are resolved at construction (default: every task in
    ``settings.task_roles``), so a missing base_url or model is a
    ``ConfigError`` here rather than a SKIP on every call.
    """

    def __init__(
        self,
        settings: LLMSettings,
        *,
        usage_sink: UsageSink | None = None,
        tasks: Iterable[str] | None = None,
        knowledge: EndpointKnowledge | None = None,
    ) -> None:
        self._settings = settings
        names = list(settings.task_roles) if tasks is None else list(tasks)
        self._roles = resolve_all(settings, names)
        self._sink: UsageSink = usage_sink if usage_sink is not None else InMemoryUsageSink()
        self._limits = RateLimits(list(self._roles.values()))
        self._clients: dict[tuple[str, str | None], AsyncOpenAI] = {}
        self._down: set[str] = set()
        # Per endpoint: the format in use, confirmed or not; parameters it refused.
        self._knowledge = knowledge if knowledge is not None else EndpointKnowledge()
        self._formats = self._knowledge.formats
        self._confirmed = self._knowledge.confirmed
        self._dropped = self._knowledge.dropped
        self._scorer = CompletionScorer(
            self._knowledge, self._limits, self._openai, lambda usage: self._record(usage, None)
        )

    def response_format(self, task: str = "consolidation") -> str:
        """The way ``task``'s endpoint is held to the schema now: ``json_schema``,
        ``json_object`` or ``prompt`` (after a refusal, or ``llm.<role>.json_schema``
        false)."""
        return self._format_of(self.role(task))

    @property
    def knowledge(self) -> EndpointKnowledge:
        """What the endpoints have shown (lent to clients on other event loops)."""
        return self._knowledge

    @property
    def usage_sink(self) -> UsageSink:
        return self._sink

    @property
    def settings(self) -> LLMSettings:
        """The endpoints and roles this client was built with."""
        return self._settings

    def role(self, task: str) -> ResolvedRole:
        """The role serving ``task`` (``ConfigError`` for an unknown or unconfigured task)."""
        found = self._roles.get(task)
        if found is None:
            found = self._roles[task] = resolve_role(self._settings, task)
        return found

    def _openai(self, role: ResolvedRole) -> AsyncOpenAI:
        key = (role.endpoint, role.api_key)
        client = self._clients.get(key)
        if client is None:
            client = AsyncOpenAI(
                base_url=role.base_url,
                # Local servers (Ollama, llama.cpp) need no key; the SDK insists on one.
                api_key=role.api_key or "not-needed",
                max_retries=0,  # tenacity retries, inside our own timeout
                timeout=role.settings.timeout_s,
            )
            self._clients[key] = client
        return client

    async def complete(
        self,
        task: str,
        messages: Sequence[ChatMessage],
        schema: type[T],
        *,
        send_schema: type[BaseModel] | None = None,
        masking: MaskSession | None = None,
        premasked: bool = False,
        max_tokens: int | None = None,
        read: Callable[[str], Any] | None = None,
        scored: bool = False,
        prefix_scored: bool = False,
    ) -> LLMResult[T]:
        """Send ``messages`` for ``task``; the reply validated against ``schema``.

        ``send_schema`` is the schema advertised to the model (default
        ``schema``); a looser ``schema`` lets batch callers validate items one
        by one. Pass ``masking`` to unmask the reply with the same session, and
        ``premasked`` when every text in ``messages`` already went through it (the
        judges mask each memory text; rescanning a batch's whole JSON costs ms).
        ``max_tokens`` bounds the reply below the role's ``max_completion_tokens``.
        ``read`` is for a prompt that defines its own reply format (the judge's one line
        per item): it turns the reply text into the value validated against ``schema``
        (``LLMReplyInvalid`` for a reply it cannot read), and no response_format or
        JSON schema is sent. ``scored``: the caller reads token log-probabilities from
        the reply (a decision or a label), so they are asked for where the role allows;
        a text no one scores is not streamed token by token for nothing.
        ``prefix_scored``: the caller can score the reply itself with ``prefix_logprob``;
        where the role allows that (a ``logprob_template`` that passed its checks), the
        reply comes plain.
        """
        if not messages:
            raise ValueError("complete() needs at least one message")
        role = self.role(task)
        session = masking if masking is not None else MaskSession()
        advertised = send_schema or schema
        if premasked and masking is not None:
            masked = [{"role": m["role"], "content": m["content"]} for m in messages]
        else:
            masked = [{"role": m["role"], "content": session.mask(m["content"])} for m in messages]
        estimate = sum(estimate_tokens(m["content"]) for m in masked)
        if read is None and self._format_of(role) != JSON_SCHEMA:
            estimate += estimate_tokens(json_instruction(advertised))
        bound = role.settings.max_completion_tokens
        bound = bound if max_tokens is None else max(1, min(bound, max_tokens))
        base = CallUsage(task=task, role=role.name, model=role.model)
        started = time.perf_counter()
        try:
            check_daily_budget(role, self._sink, estimate)
            await self._limits.take(role, estimate + bound)
        except BudgetExhausted as exc:
            raise self._fail(exc, replace(base, outcome=outcomes.BUDGET), started) from None
        streamed = scored and not (prefix_scored and self._scorer.ready(role))
        completion, attempts = await self._send_in_a_format(
            role, base, masked, None if read is not None else advertised, started, bound, streamed
        )
        used = completion.usage
        usage = replace(
            base,
            prompt_tokens=used.prompt_tokens if used else 0,
            completion_tokens=used.completion_tokens if used else 0,
            attempts=attempts,
        )
        self._mark_up(role)
        choice = completion.choices[0] if completion.choices else None
        content = (choice.message.content if choice else None) or ""
        try:
            session.check(content)
            value = (
                parse_reply(content, schema) if read is None else validate(read(content), schema)
            )
        except SecretLeak as exc:
            raise self._fail(exc, replace(usage, outcome=outcomes.LEAK), started) from None
        except LLMReplyInvalid as exc:
            if choice is not None and choice.finish_reason == "length":
                exc = LLMReplyTruncated(f"reply truncated at max_completion_tokens: {exc}")
            raise self._fail(exc, replace(usage, outcome=outcomes.INVALID), started) from None
        usage = replace(usage, latency_ms=(time.perf_counter() - started) * 1000)
        self._record(usage, None)
        return LLMResult(value=value, usage=usage, raw=content, logprobs=token_logprobs(choice))

    async def _send_in_a_format(
        self,
        role: ResolvedRole,
        base: CallUsage,
        messages: list[ChatMessage],
        schema: type[BaseModel] | None,
        started: float,
        bound: int,
        scored: bool = False,
    ) -> tuple[Any, int]:
        """``_send`` in the endpoint's response format; on a refusal of a format no reply
        has confirmed yet, the next looser one at once (logged once), remembered. A
        refused parameter is dropped the same way. No ``schema``: the messages go as they
        are, without any response_format (the prompt defines the reply)."""
        endpoint = role.endpoint
        fmt = self._format_of(role) if schema is not None else PROMPT_ONLY
        while True:
            sent = messages if schema is None else with_format(messages, schema, fmt)
            try:
                completion, attempts = await self._send(
                    role, base, sent, schema, started, fmt, bound, scored
                )
            except ParamRefused as refused:
                log.warning(
                    "%s refused %s (HTTP %d: %s); not sending it from now on",
                    endpoint,
                    refused.param,
                    refused.status,
                    refused,
                )
                self._dropped.setdefault(endpoint, set()).add(refused.param)
                continue
            except FormatRefused as refused:
                looser = FORMATS[FORMATS.index(fmt) + 1]
                log.warning(
                    "%s refused response_format %s (HTTP %d: %s); using %s from now on",
                    endpoint,
                    fmt,
                    refused.status,
                    refused,
                    looser,
                )
                fmt = self._formats[endpoint] = looser
                continue
            if schema is not None:  # a plain call says nothing of the formats it can do
                self._formats[endpoint] = fmt
                self._confirmed.add(endpoint)
            return completion, attempts

    def refused_params(self, task: str = "consolidation") -> set[str]:
        """Request parameters ``task``'s endpoint refused, no longer sent to it."""
        return set(self._dropped.get(self.role(task).endpoint, set()))

    def _format_of(self, role: ResolvedRole) -> str:
        if not role.settings.json_schema:
            return PROMPT_ONLY
        return self._formats.get(role.endpoint, JSON_SCHEMA)

    async def _send(
        self,
        role: ResolvedRole,
        base: CallUsage,
        messages: list[ChatMessage],
        schema: type[BaseModel] | None,
        started: float,
        fmt: str = PROMPT_ONLY,
        bound: int | None = None,
        scored: bool = False,
    ) -> tuple[Any, int]:
        """The HTTP call with retries; every failure mapped to a typed ``LLMError``, or to
        ``FormatRefused`` while ``fmt`` is still untried on this endpoint, or to
        ``ParamRefused`` for a parameter the endpoint refuses."""
        dropped = self._dropped.get(role.endpoint, set())
        sent = {MAX_TOKENS, MAX_COMPLETION_TOKENS} - dropped
        if scored and role.settings.logprobs and LOGPROBS not in dropped:
            sent.add(LOGPROBS)
        limit = role.settings.max_completion_tokens if bound is None else bound
        kwargs: dict[str, Any] = {
            "model": role.model,
            "messages": messages,
            "temperature": role.settings.temperature,
            **{param: limit for param in (MAX_TOKENS, MAX_COMPLETION_TOKENS) if param in sent},
        }
        if LOGPROBS in sent:
            # top_logprobs 1: llama-cpp-python returns no log-probabilities without it.
            kwargs.update(logprobs=True, top_logprobs=1)
            if STREAM not in dropped:
                # Streamed, llama-cpp-python scores only the reply's tokens, not the prompt's
                # (llm/streaming.py): the log-probabilities then cost ~0.1 s a token, not ~10 s.
                sent.add(STREAM)
                kwargs.update(stream=True, stream_options={"include_usage": True})
        if fmt != PROMPT_ONLY and schema is not None:
            # Sent as extra_body: the SDK would otherwise walk the whole schema through its
            # typed-dict transform on every call (about 2 ms), for a dict that is already JSON.
            kwargs["extra_body"] = {"response_format": response_format_body(schema, fmt)}
        # A format no reply has confirmed yet may be what the server refuses: that refusal
        # is not retried but answered with a looser format.
        probing = fmt != PROMPT_ONLY and role.endpoint not in self._confirmed

        def retryable(exc: BaseException) -> bool:
            return retryable_error(exc) and not (probing and refuses_format(exc))

        client = self._openai(role)
        attempts = 0
        retrying = AsyncRetrying(
            stop=stop_after_attempt(role.settings.max_retries + 1),
            wait=wait_exponential(multiplier=role.backoff_s, max=role.backoff_max_s)
            + wait_random(0, role.backoff_s),
            retry=retry_if_exception(retryable),
            reraise=True,
        )
        timeout_s = role.settings.timeout_s
        try:
            async with asyncio.timeout(timeout_s):
                async for attempt in retrying:
                    with attempt:
                        attempts += 1
                        completion = await client.chat.completions.create(**kwargs)
                        if STREAM in sent:
                            completion = await gather_stream(
                                completion,
                                prompt_estimate=sum(
                                    estimate_tokens(m["content"]) for m in messages
                                ),
                            )
        except (TimeoutError, openai.OpenAIError, ValueError, StreamCut) as err:
            failure = classify_failure(
                err,
                endpoint=role.endpoint,
                attempts=attempts,
                timeout_s=timeout_s,
                probing=probing,
                sent=sent,
            )
            if failure.down:
                self._mark_down(role, str(failure.error))
            outcome = replace(base, outcome=failure.outcome)
            raise self._fail(failure.error, outcome, started) from None
        return completion, attempts

    def _fail(self, exc: LLMError, usage: CallUsage, started: float) -> LLMError:
        """Record a failed call and attach its usage to the error being raised."""
        usage = replace(usage, latency_ms=(time.perf_counter() - started) * 1000)
        self._record(usage, str(exc))
        attach_usage(exc, usage)
        return exc

    def scores_by_completion(self, task: str) -> bool:
        """Whether ``task``'s scored replies come plain, to be scored by ``prefix_logprob``
        (a ``llm.<role>.logprob_template`` passed its checks on the endpoint, and the
        endpoint has not refused /v1/completions)."""
        return self._scorer.ready(self.role(task))

    def template_under_check(self, task: str) -> str | None:
        """The chat template being checked for ``task``'s endpoint (its scored replies
        are streamed meanwhile), or None."""
        return self._scorer.under_check(self.role(task))

    async def check_template(
        self,
        task: str,
        messages: Sequence[ChatMessage],
        reply_prefix: str,
        streamed: TokenLogprob,
    ) -> None:
        """Hold one completion token after ``reply_prefix``, in the template under check,
        against ``streamed``, that position's token in the streamed reply
        (llm/template_check.py)."""
        await self._scorer.check(self.role(task), task, messages, reply_prefix, streamed)

    async def prefix_logprob(
        self, task: str, messages: Sequence[ChatMessage], reply_prefix: str
    ) -> TokenLogprob | None:
        """The next token after ``reply_prefix`` and its log-probability, from one
        completion token in the adopted template (llm/completion_scoring.py); None when
        none is adopted or the request fails."""
        return await self._scorer.score(self.role(task), task, messages, reply_prefix)

    def _record(self, usage: CallUsage, error: str | None) -> None:
        try:
            self._sink.record_llm_call(
                task=usage.task,
                role=usage.role,
                model=usage.model,
                prompt_tokens=usage.prompt_tokens,
                completion_tokens=usage.completion_tokens,
                latency_ms=usage.latency_ms,
                outcome=usage.outcome,
                error=error,
            )
        except Exception:  # accounting must not turn a good reply into a SKIP
            log.warning("could not record LLM usage", exc_info=True)

    def _mark_down(self, role: ResolvedRole, reason: str) -> None:
        """Log an unreachable endpoint once, not on every call."""
        if role.endpoint not in self._down:
            self._down.add(role.endpoint)
            log.warning("LLM endpoint unavailable, LLM judging will SKIP: %s", reason)

    def _mark_up(self, role: ResolvedRole) -> None:
        if role.endpoint in self._down:
            self._down.discard(role.endpoint)
            log.info("LLM endpoint %s is reachable again", role.endpoint)

    async def available(self, task: str = "consolidation") -> bool:
        """Probe ``GET /models`` with a short timeout; any HTTP answer but 401/403 is up."""
        role = self.role(task)
        client = self._openai(role).with_options(timeout=role.probe_timeout_s)
        try:
            async with asyncio.timeout(role.probe_timeout_s):
                await client.models.list()
        except openai.APIStatusError as err:
            if err.status_code in (401, 403):
                self._mark_down(role, f"{role.endpoint} refused the API key ({err.status_code})")
                return False
        except (openai.APIConnectionError, TimeoutError) as err:
            # a TimeoutError's text is empty: say what happened instead
            why = str(err) or f"no answer to GET /models within {role.probe_timeout_s:g} s"
            self._mark_down(role, f"{role.endpoint} unreachable: {why}")
            return False
        self._mark_up(role)
        return True

    def is_down(self, task: str = "consolidation") -> bool:
        """Whether the last call or probe found ``task``'s endpoint unreachable."""
        return self.role(task).endpoint in self._down

    async def aclose(self) -> None:
        for client in self._clients.values():
            await client.close()
        self._clients.clear()
