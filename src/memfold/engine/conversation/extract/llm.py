"""Extraction with an LLM: the "extraction" task on the judge's endpoint.

Messages go to the model ``extract_batch_messages`` at a time as numbered lines
(``n. role: text``) after the prompt and its worked examples (``judge/prompts/
extraction.md``), which stay byte-identical from call to call (a cacheable prefix).
Every text is masked before it leaves and unmasked in the reply; the reply names its
messages by number and is validated with pydantic row by row (a malformed row is
dropped and logged, the others kept). The whole extraction runs on a private event
loop and is cut off after ``extract_timeout_s``. A reply cut at
``max_completion_tokens`` is asked again for each half of its batch. Other errors
propagate to ``extract``, which logs them and returns no extracts.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Sequence

from pydantic import ValidationError

from memfold.config import ConversationSettings, LLMSettings
from memfold.errors import LLMReplyTruncated
from memfold.judge.prompts import Prompt, load_prompt
from memfold.llm.client import LLMClient
from memfold.llm.endpoints import EndpointKnowledge
from memfold.llm.loop import LoopThread
from memfold.llm.schemas import ExtractionEnvelope, ExtractionReply, ExtractOut
from memfold.llm.secrets import MaskSession
from memfold.llm.usage import UsageSink
from memfold.model import Area

log = logging.getLogger("memfold.conversation.extract")

TASK = "extraction"
# (text, area, indices of its messages in the list given)
RawExtract = tuple[str, Area, list[int]]


def _line(text: str) -> str:
    """One message on one line: a text with line breaks goes as a JSON string."""
    return json.dumps(text, ensure_ascii=False) if "\n" in text or "\r" in text else text


def render_messages(batch: Sequence[tuple[str, str]], session: MaskSession) -> str:
    """``Messages:`` then ``n. role: text`` lines, masked."""
    lines = [
        f"{n}. {role}: {_line(session.mask(content))}"
        for n, (role, content) in enumerate(batch, start=1)
    ]
    return "Messages:\n" + "\n".join(lines)


def read_rows(
    rows: Sequence[object], offset: int, size: int, session: MaskSession
) -> list[RawExtract]:
    """The reply's valid rows, their message numbers turned into indices of the whole list
    (``offset`` is the batch's first); a row naming no message of the batch is dropped."""
    out: list[RawExtract] = []
    for n, raw in enumerate(rows, start=1):
        try:
            row = ExtractOut.model_validate(raw)
        except ValidationError as exc:
            # The error's own text quotes the row: only where it failed is logged.
            where = sorted({".".join(map(str, e["loc"])) or "row" for e in exc.errors()})
            log.warning("extraction reply row %d is invalid (%s), dropped", n, ", ".join(where))
            continue
        indices = sorted({offset + k - 1 for k in row.sources if 1 <= k <= size})
        if not indices:
            log.warning("extraction reply row %d names no message of the batch, dropped", n)
            continue
        out.append((session.unmask(row.text).strip(), Area(row.area), indices))
    return out


async def _extract(
    client: LLMClient, prompt: Prompt, items: Sequence[tuple[str, str]], batch: int
) -> list[RawExtract]:
    out: list[RawExtract] = []
    try:
        for start in range(0, len(items), batch):
            out.extend(await _extract_span(client, prompt, items, start, batch))
    finally:
        await client.aclose()
    return out


async def _extract_span(
    client: LLMClient, prompt: Prompt, items: Sequence[tuple[str, str]], start: int, size: int
) -> list[RawExtract]:
    """The extracts of ``items[start : start + size]`` in one call; a reply cut at
    ``max_completion_tokens`` (a long batch of talkative messages) is asked again as two
    halves, down to one message, whose cut reply raises."""
    chunk = items[start : start + size]
    session = MaskSession()
    try:
        result = await client.complete(
            TASK,
            prompt.messages(render_messages(chunk, session)),
            ExtractionEnvelope,
            send_schema=ExtractionReply,
            masking=session,
            premasked=True,
        )
    except LLMReplyTruncated:
        if len(chunk) == 1:
            raise
        half = len(chunk) // 2
        log.warning(
            "the extraction reply for %d messages was cut at max_completion_tokens; "
            "asking again for %d and %d",
            len(chunk),
            half,
            len(chunk) - half,
        )
        first = await _extract_span(client, prompt, items, start, half)
        return first + await _extract_span(client, prompt, items, start + half, len(chunk) - half)
    return read_rows(result.value.memories, start, len(chunk), session)


def extract_with_llm(
    llm: LLMSettings,
    usage_sink: UsageSink,
    cfg: ConversationSettings,
    items: Sequence[tuple[str, str]],
    knowledge: EndpointKnowledge | None = None,
) -> list[RawExtract]:
    """``(role, content)`` pairs -> raw extracts; raises on any failure, ``TimeoutError``
    after ``cfg.extract_timeout_s``. ``knowledge``: the judge's client's, so a format the
    endpoint refused is not asked again."""
    client = LLMClient(llm, usage_sink=usage_sink, tasks=(TASK,), knowledge=knowledge)
    prompt = load_prompt(TASK)
    loop = LoopThread(name="memfold-extract")
    try:
        return loop.run(
            asyncio.wait_for(
                _extract(client, prompt, items, cfg.extract_batch_messages),
                timeout=cfg.extract_timeout_s,
            )
        )
    finally:
        loop.close()
