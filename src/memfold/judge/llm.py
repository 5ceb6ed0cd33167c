"""LLMJudge: the Judge protocol on any OpenAI-compatible chat endpoint.

One call per batch (up to ``batch_size`` new memories, or ``classify_batch``
pairs) keeps LLM calls few. Texts are masked before they leave and unmasked
in what comes back. Prompts, worked examples and the way memories are listed live in
``judge/prompts`` and ``judge/llm_prompts``; a line reply is read by
``judge/reply_lines``. A decision's confidence is the probability of its action tokens
where the server returns log-probabilities (read on the role's ``confidence_anchors``),
else 0: the number a model writes is kept in the reasoning, never counted. Nothing
raises out of the judge: any failure becomes a
SKIP (or a verdict/text of None) carrying the reason, ``transient`` when a
later retry may succeed. Tokens of a batched call are split evenly across
its results (remainder on the first), so per-row log tokens sum to the call.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from typing import Any, TypeVar, get_args

from pydantic import ValidationError

from memfold.config import LLMSettings
from memfold.errors import LLMError
from memfold.judge.base import PairInput, PairVerdict, SaveItem, TextResult
from memfold.judge.confidence_map import calibrated
from memfold.judge.line_scoring import check_template, score_lines
from memfold.judge.llm_prompts import (
    choice_probabilities,
    confidence,
    number_rows,
    render_items,
    render_memories,
    render_pairs,
    stated_note,
    target_ids,
)
from memfold.judge.prompts import Prompt, load_prompt
from memfold.judge.reply_lines import read_decision_lines
from memfold.llm.client import LLMClient
from memfold.llm.loop import LoopThread
from memfold.llm.schemas import (
    CategoryName,
    ClassificationEnvelope,
    ClassificationReply,
    ConsolidationEnvelope,
    ConsolidationReply,
    DecisionOut,
    TextReply,
    VerdictOut,
)
from memfold.llm.secrets import MaskSession
from memfold.llm.usage import CallUsage, UsageSink, usage_of
from memfold.model import Action, Area, Category, Decision, MemoryRecord, PairLabel

log = logging.getLogger("memfold.judge.llm")

TASKS = ("consolidation", "classification", "compression")
JUDGED_CATEGORIES = frozenset(get_args(CategoryName))
T = TypeVar("T")


def split_tokens(total: int, parts: int) -> list[int]:
    """``total`` spread over ``parts`` results, remainder on the first; sums to ``total``."""
    if parts <= 0:
        return []
    share, rest = divmod(total, parts)
    return [share + rest] + [share] * (parts - 1)


def _memory(record: MemoryRecord, session: MaskSession) -> dict[str, Any]:
    return {
        "id": record.id,
        "text": session.mask(record.text),
        "area": record.area.value,
        "created_at": record.created_at.isoformat(timespec="seconds"),
        "updated_at": record.updated_at.isoformat(timespec="seconds"),
    }


def _messages(prompt: Prompt, payload: dict[str, Any]) -> list[dict[str, str]]:
    return prompt.messages(json.dumps(payload, ensure_ascii=False))


def _same_text(a: str, b: str) -> bool:
    """Equal up to case, spacing and a closing full stop."""

    def norm(text: str) -> str:
        return " ".join(text.split()).rstrip(".").casefold()

    return norm(a) == norm(b)


def judged_category(value: object) -> Category | None:
    """The category a reply gives the new memory, or None: absent, not a string, or not
    one the model may give (episodic, semantic, procedural; case and spaces ignored).
    An invalid one is dropped, never the decision."""
    if not isinstance(value, str):
        return None
    name = value.strip().casefold()
    return Category(name) if name in JUDGED_CATEGORIES else None


def _why(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def _transient(exc: BaseException) -> bool:
    return bool(exc.transient) if isinstance(exc, LLMError) else False


class LLMJudge:
    """Judge backed by an LLM; see the module docstring for the failure contract."""

    def __init__(
        self,
        settings: LLMSettings,
        *,
        batch_size: int = 8,
        classify_batch: int = 8,
        usage_sink: UsageSink | None = None,
    ) -> None:
        if batch_size < 1 or classify_batch < 1:
            raise ValueError("batch sizes must be at least 1")
        # Raises ConfigError now if a task used by the judge has no endpoint or model.
        self._client = LLMClient(settings, usage_sink=usage_sink, tasks=TASKS)
        self._batch_size = batch_size
        self._classify_batch = classify_batch
        self._loop: LoopThread | None = None

    @property
    def name(self) -> str:
        return "llm"

    @property
    def client(self) -> LLMClient:
        return self._client

    def _runner(self) -> LoopThread:
        if self._loop is None or self._loop.closed:
            self._loop = LoopThread()
        return self._loop

    def _sync(self, coro_fn: Callable[[], Any], fallback: Callable[[BaseException], T]) -> T:
        try:
            result: T = self._runner().run(coro_fn())
            return result
        except Exception as exc:  # the protocol promises never to raise
            log.exception("LLM judge failed unexpectedly")
            return fallback(exc)

    # --- availability -------------------------------------------------------

    def available(self) -> bool:
        """Whether the consolidation endpoint answers (logged once when it does not)."""
        return self._sync(lambda: self._client.available("consolidation"), lambda _: False)

    async def aavailable(self) -> bool:
        return await self._runner().run_async(self._client.available("consolidation"))

    # --- decide -------------------------------------------------------------

    def decide(self, items: Sequence[SaveItem]) -> list[Decision]:
        return self._sync(
            lambda: self._decide(items), lambda exc: [self._skip(exc, None) for _ in items]
        )

    async def adecide(self, items: Sequence[SaveItem]) -> list[Decision]:
        return await self._runner().run_async(self._decide(items))

    async def _decide(self, items: Sequence[SaveItem]) -> list[Decision]:
        out: list[Decision] = []
        for start in range(0, len(items), self._batch_size):
            out.extend(await self._decide_batch(items[start : start + self._batch_size]))
        return out

    def _skip(self, exc: BaseException | str, usage: CallUsage | None, tokens: int = 0) -> Decision:
        reason = exc if isinstance(exc, str) else _why(exc)
        return Decision(
            action=Action.SKIP,
            reasoning=reason,
            judge=self.name,
            model=None if usage is None else usage.model,
            transient=False if isinstance(exc, str) else _transient(exc),
        )

    async def _decide_batch(self, batch: Sequence[SaveItem]) -> list[Decision]:
        prompt = load_prompt("consolidation")
        session = MaskSession()
        results: list[Decision]
        usage: CallUsage | None
        messages = prompt.messages(render_items(batch, session))
        lines = prompt.reply == "lines"
        try:
            result = await self._client.complete(
                "consolidation",
                messages,
                ConsolidationEnvelope,
                send_schema=ConsolidationReply,
                masking=session,
                premasked=True,
                max_tokens=self._bound("consolidation", len(batch)),
                read=read_decision_lines if lines else None,
                scored=True,
                prefix_scored=lines,  # a line says where its action sits
            )
            usage = result.usage
            rows = result.value.decisions
            found = choice_probabilities(result.logprobs, rows, "action", result.raw)
            if lines and result.logprobs is None:
                if self._client.scores_by_completion("consolidation"):
                    found = await score_lines(self._client, messages, rows, result.raw)
            elif lines and self._client.template_under_check("consolidation"):
                await check_template(self._client, messages, rows, result.raw, result.logprobs)
            chances = self._calibrated("consolidation", found)
            by_item = number_rows(rows, "item")
            results = []
            for n, item in enumerate(batch, start=1):
                index = by_item.get(n)
                raw = None if index is None else rows[index]
                chance = None if index is None else chances[index]
                results.append(self._decision(raw, n, item, chance, session))
        except Exception as exc:
            usage = usage_of(exc)
            results = [self._skip(exc, usage) for _ in batch]
        self._stamp(results, usage, prompt)
        return results

    def _calibrated(self, task: str, chances: list[float | None]) -> list[float | None]:
        """Each action probability read on the role's ``confidence_anchors``."""
        anchors = self._client.role(task).settings.confidence_anchors
        return [None if c is None else calibrated(c, anchors) for c in chances]

    def _bound(self, task: str, items: int) -> int:
        """Reply tokens for a call judging ``items`` (the client caps it at the role's
        ``max_completion_tokens``)."""
        return self._client.role(task).settings.max_tokens_per_item * max(1, items)

    def _decision(
        self,
        raw: dict[str, Any] | None,
        number: int,
        item: SaveItem,
        chance: float | None,
        session: MaskSession,
    ) -> Decision:
        if raw is None:
            return self._skip(f"the reply had no decision for item {number}", None)
        try:
            out = DecisionOut.model_validate(raw)
            text = session.unmask_optional(out.text)
            action = Action(out.action)
            if action is Action.MERGE and text is not None and _same_text(text, item.new.text):
                # A "merge" that keeps the new text word for word is the new memory
                # replacing the old one: the guards then ask REPLACE's evidence.
                action, text = Action.REPLACE, None
            return Decision(
                action=action,
                target_ids=target_ids(out, item),
                text=text,
                area=None if out.area is None else Area(out.area),
                category=judged_category(out.category),
                importance=out.importance,
                confidence=confidence(chance),
                reasoning=session.unmask(out.reasoning) + stated_note(chance, out.confidence),
                judge=self.name,
            )
        except (ValidationError, LLMError, ValueError) as exc:
            return self._skip(f"invalid decision for item {number}: {_why(exc)}", None)

    def _stamp(self, rows: Sequence[Any], usage: CallUsage | None, prompt: Prompt) -> None:
        """Fill model, prompt version and this row's share of the call's tokens."""
        prompt_shares = split_tokens(0 if usage is None else usage.prompt_tokens, len(rows))
        completion_shares = split_tokens(0 if usage is None else usage.completion_tokens, len(rows))
        for row, p, c in zip(rows, prompt_shares, completion_shares, strict=True):
            row.judge = self.name
            row.model = None if usage is None else usage.model
            row.prompt_version = prompt.label
            row.prompt_tokens = p
            row.completion_tokens = c

    # --- classify -----------------------------------------------------------

    def classify(self, pairs: Sequence[PairInput]) -> list[PairVerdict]:
        return self._sync(
            lambda: self._classify(pairs),
            lambda exc: [PairVerdict(None, reasoning=_why(exc), judge=self.name) for _ in pairs],
        )

    async def aclassify(self, pairs: Sequence[PairInput]) -> list[PairVerdict]:
        return await self._runner().run_async(self._classify(pairs))

    async def _classify(self, pairs: Sequence[PairInput]) -> list[PairVerdict]:
        out: list[PairVerdict] = []
        for start in range(0, len(pairs), self._classify_batch):
            out.extend(await self._classify_batch_call(pairs[start : start + self._classify_batch]))
        return out

    async def _classify_batch_call(self, batch: Sequence[PairInput]) -> list[PairVerdict]:
        prompt = load_prompt("classification")
        session = MaskSession()
        usage: CallUsage | None
        try:
            result = await self._client.complete(
                "classification",
                prompt.messages(render_pairs(batch, session)),
                ClassificationEnvelope,
                send_schema=ClassificationReply,
                masking=session,
                premasked=True,
                max_tokens=self._bound("classification", len(batch)),
                scored=True,
            )
            usage = result.usage
            rows = result.value.verdicts
            chances = self._calibrated(
                "classification", choice_probabilities(result.logprobs, rows, "label")
            )
            by_pair = number_rows(rows, "pair")
            verdicts = []
            for n in range(1, len(batch) + 1):
                index = by_pair.get(n)
                raw = None if index is None else rows[index]
                chance = None if index is None else chances[index]
                verdicts.append(self._verdict(raw, n, chance, session))
        except Exception as exc:
            usage = usage_of(exc)
            verdicts = [PairVerdict(label=None, reasoning=_why(exc)) for _ in batch]
        self._stamp(verdicts, usage, prompt)
        return verdicts

    def _verdict(
        self, raw: dict[str, Any] | None, number: int, chance: float | None, session: MaskSession
    ) -> PairVerdict:
        if raw is None:
            return PairVerdict(label=None, reasoning=f"the reply had no verdict for pair {number}")
        try:
            out = VerdictOut.model_validate(raw)
            return PairVerdict(
                label=PairLabel(out.label),
                confidence=confidence(chance),
                reasoning=session.unmask(out.reasoning) + stated_note(chance, out.confidence),
            )
        except (ValidationError, LLMError) as exc:
            return PairVerdict(label=None, reasoning=f"invalid verdict for pair {number}: {exc}")

    # --- texts --------------------------------------------------------------

    def merge_text(self, memories: Sequence[MemoryRecord]) -> TextResult:
        return self._sync(lambda: self._text("consolidation", "merge", memories), self._no_text)

    async def amerge_text(self, memories: Sequence[MemoryRecord]) -> TextResult:
        return await self._runner().run_async(self._text("consolidation", "merge", memories))

    def compress(self, memories: Sequence[MemoryRecord]) -> TextResult:
        return self._sync(lambda: self._text("compression", "compress", memories), self._no_text)

    async def acompress(self, memories: Sequence[MemoryRecord]) -> TextResult:
        return await self._runner().run_async(self._text("compression", "compress", memories))

    def _no_text(self, exc: BaseException) -> TextResult:
        return TextResult(
            text=None,
            reasoning=_why(exc),
            judge=self.name,
            extra={"error": type(exc).__name__, "transient": str(_transient(exc)).lower()},
        )

    async def _text(
        self, task: str, prompt_name: str, memories: Sequence[MemoryRecord]
    ) -> TextResult:
        prompt = load_prompt(prompt_name)
        if not memories:
            return TextResult(text=None, reasoning="no memories given", judge=self.name)
        session = MaskSession()
        try:
            if prompt_name == "compress":  # numbered lines, as the on-save prompts
                messages = prompt.messages(render_memories(memories, session))
            else:
                payload = {"memories": [_memory(m, session) for m in memories]}
                messages = _messages(prompt, payload)
            result = await self._client.complete(
                task, messages, TextReply, masking=session, premasked=True
            )
            out = TextResult(
                text=session.unmask(result.value.text),
                reasoning=session.unmask(result.value.reasoning),
            )
            usage: CallUsage | None = result.usage
        except Exception as exc:
            out = self._no_text(exc)
            usage = usage_of(exc)
        self._stamp([out], usage, prompt)
        return out

    # --- lifecycle ----------------------------------------------------------

    def close(self) -> None:
        """Close HTTP connections and stop the private event loop."""
        if self._loop is not None and not self._loop.closed:
            try:
                self._loop.run(self._client.aclose())
            finally:
                self._loop.close()

    def __enter__(self) -> LLMJudge:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
