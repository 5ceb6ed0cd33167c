"""The one-token ``/v1/completions`` requests that score a plain reply, and the checks
that decide whether an endpoint's chat template can be trusted for them.

``LLMClient`` owns one ``CompletionScorer`` and lends it its connections, rate limits
and usage accounting; the policy (which template, when it is adopted) is pure, in
llm/template_check.py, and the rendering in llm/prefix_score.py.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import replace

import openai
from openai import AsyncOpenAI

from memfold.errors import BudgetExhausted
from memfold.llm.endpoints import EndpointKnowledge
from memfold.llm.formats import ChatMessage
from memfold.llm.limits import RateLimits, estimate_tokens
from memfold.llm.logprobs import TokenLogprob
from memfold.llm.prefix_score import COMPLETIONS, TEMPLATES, first_token, render
from memfold.llm.roles import ResolvedRole
from memfold.llm.template_check import TemplateCheck, agrees
from memfold.llm.usage import CallUsage, scoring_task

log = logging.getLogger("memfold.llm")

# HTTP statuses by which a server says it has no /v1/completions for this model
_REFUSALS = (400, 404, 405, 422, 501)


class _NoAnswer(Exception):
    """No completion token came back (refused, failed, or no request allowed)."""


class CompletionScorer:
    """Scores reply prefixes for the roles that allow it (``logprobs`` on and a
    ``logprob_template``), once that template passed its checks on the endpoint."""

    def __init__(
        self,
        knowledge: EndpointKnowledge,
        limits: RateLimits,
        connect: Callable[[ResolvedRole], AsyncOpenAI],
        record: Callable[[CallUsage], None],
    ) -> None:
        self._knowledge = knowledge
        self._limits = limits
        self._connect = connect
        self._record = record

    def _check(self, role: ResolvedRole) -> TemplateCheck | None:
        """The endpoint's template check for ``role``'s model; None where the role does
        not score by completion, or the endpoint refused /v1/completions."""
        settings = role.settings
        wanted = settings.logprob_template
        if not settings.logprobs or wanted == "off":
            return None
        if COMPLETIONS in self._knowledge.dropped.get(role.endpoint, set()):
            return None
        key = (role.endpoint, role.model)
        check = self._knowledge.templates.get(key)
        if check is None:
            candidates: list[str] = list(TEMPLATES) if wanted == "auto" else [wanted]
            check = self._knowledge.templates[key] = TemplateCheck(candidates)
        return check

    def ready(self, role: ResolvedRole) -> bool:
        """Whether ``role``'s scored replies can come plain: a template was adopted."""
        check = self._check(role)
        return check is not None and check.adopted is not None

    def under_check(self, role: ResolvedRole) -> str | None:
        """The template whose checks are still running for ``role``, if any."""
        check = self._check(role)
        return None if check is None else check.under_check

    def adopted(self, role: ResolvedRole) -> str | None:
        check = self._check(role)
        return None if check is None else check.adopted

    async def check(
        self,
        role: ResolvedRole,
        task: str,
        messages: Sequence[ChatMessage],
        reply_prefix: str,
        streamed: TokenLogprob,
    ) -> None:
        """Score ``reply_prefix`` in the template under check and hold the token against
        ``streamed``, the same position's token from the streamed reply."""
        check = self._check(role)
        template = None if check is None else check.under_check
        if check is None or template is None:
            return
        try:
            scored = await self._request(role, task, messages, reply_prefix, template)
        except _NoAnswer:
            return  # a timeout or a full rate window says nothing of the template
        settings = role.settings
        agreed = agrees(streamed, scored, settings.template_tolerance)
        check.record(agreed, settings.template_checks)
        if check.adopted is not None:
            log.info(
                "%s (%s): chat template %s agreed with the streamed log-probabilities on %d "
                "actions; scoring plain replies by one completion token from now on",
                role.endpoint,
                role.model,
                check.adopted,
                settings.template_checks,
            )
        elif check.given_up:
            log.warning(
                "%s (%s): no chat template gave the streamed log-probabilities (tried %s); "
                "scored replies stay streamed",
                role.endpoint,
                role.model,
                ", ".join(check.tried),
            )

    async def score(
        self,
        role: ResolvedRole,
        task: str,
        messages: Sequence[ChatMessage],
        reply_prefix: str,
        template: str | None = None,
    ) -> TokenLogprob | None:
        """The next token after ``reply_prefix`` and its log-probability, from one streamed
        ``/v1/completions`` token on the chat rendered in ``template`` (default: the one
        adopted). ``messages`` as sent (already masked). None on any failure: the decision
        then has no probability, which no confidence gate passes; an endpoint that refuses
        the request is not asked again (scored replies are streamed again instead)."""
        template = template or self.adopted(role)
        if template is None:
            return None
        try:
            return await self._request(role, task, messages, reply_prefix, template)
        except _NoAnswer:
            return None

    async def _request(
        self,
        role: ResolvedRole,
        task: str,
        messages: Sequence[ChatMessage],
        reply_prefix: str,
        template: str,
    ) -> TokenLogprob | None:
        """One completion token; ``_NoAnswer`` when none came (the server refused the
        request, which is remembered, or it failed); None when it came without its
        log-probability."""
        prompt = render(template, [dict(m) for m in messages], reply_prefix)
        started = time.perf_counter()
        usage = CallUsage(
            task=scoring_task(task), role=role.name, model=role.model, completion_tokens=1
        )
        try:
            await self._limits.take(role, 1)  # one request; its prompt is the cached chat's
            async with asyncio.timeout(role.settings.timeout_s):
                stream = await self._connect(role).completions.create(
                    model=role.model,
                    prompt=prompt,
                    max_tokens=1,
                    temperature=role.settings.temperature,
                    logprobs=1,
                    stream=True,
                )
                chunks = [chunk async for chunk in stream]
        except openai.APIStatusError as err:
            if err.status_code in _REFUSALS:
                self._knowledge.dropped.setdefault(role.endpoint, set()).add(COMPLETIONS)
                log.warning(
                    "%s refused a one-token completion (HTTP %s); scored replies are streamed "
                    "with log-probabilities instead",
                    role.endpoint,
                    err.status_code,
                )
            raise _NoAnswer from err
        except (openai.OpenAIError, TimeoutError, BudgetExhausted) as err:
            raise _NoAnswer from err
        elapsed = (time.perf_counter() - started) * 1000
        self._record(replace(usage, prompt_tokens=estimate_tokens(prompt), latency_ms=elapsed))
        return first_token(chunks)
