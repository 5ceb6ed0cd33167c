"""Memories from messages (seed 000 section 7, auto-memorize).

``extract`` reads a list of messages and proposes memories: facts and preferences
(area main), partial observations (fragments), problems with their verified fixes
(solutions), commands and procedures (instruments). Each names its messages in
``sources``: their ids, or ``#n`` (the position in the list) for a message not stored.

With an LLM judge (``judge.name == "llm"``, or a fallback judge whose LLM answers) the
"extraction" task writes them (extract/llm.py: masked, validated, ``extract_timeout_s``);
otherwise the offline rules do (extract/rules.py: precision over recall, no fragments).
Every extract passes the extract check against its own messages (policy/extract_check:
no name, number or date invented) and holds no secret (llm/secrets: an API key, a
password); one that fails is dropped and logged. Any error of
the extraction itself is caught and logged as a warning, and no extracts come back: the
conversation goes on.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from memfold.engine.context import Context
from memfold.engine.conversation.extract.rules import extract_by_rules
from memfold.judge.base import Judge
from memfold.model import Area, Scope, plain_words
from memfold.policy.extract_check import check_extract
from memfold.policy.messages import Message, NewMessage
from memfold.policy.redact import problem_kinds
from memfold.policy.result_check import ResultLimits

if TYPE_CHECKING:  # memfold.llm imports openai: only when extract runs (CLI start-up)
    from memfold.engine.conversation.extract.llm import RawExtract
    from memfold.judge.llm import LLMJudge

log = logging.getLogger("memfold.conversation.extract")


@dataclass(frozen=True, slots=True)
class Extracted:
    """A memory proposed from messages: its text, area and source message ids."""

    text: str
    area: Area
    sources: tuple[str, ...]
    by: str  # "llm" or "rules"


def _name(message: Message | NewMessage) -> str:
    """The participant's name a message carries (OpenAI's ``name``), if any."""
    name = message.metadata.get("name")
    return name.strip() if isinstance(name, str) else ""


def source_id(message: Message | NewMessage, index: int) -> str:
    """A stored message's id; ``#index`` for one not stored yet."""
    return message.id if isinstance(message, Message) else f"#{index}"


def _llm_judge(judge: Judge) -> LLMJudge | None:
    """The LLM judge doing the work now, if any (a fallback judge's LLM while it answers)."""
    if judge.name != "llm":
        return None
    from memfold.judge.fallback import FallbackJudge
    from memfold.judge.llm import LLMJudge

    if isinstance(judge, FallbackJudge):
        primary = judge.primary
        return primary if isinstance(primary, LLMJudge) and judge.primary_up() else None
    return judge if isinstance(judge, LLMJudge) else None


@dataclass(frozen=True, slots=True)
class _SourceCheck:
    """The extract check against messages of one list: ``said[i]`` is message i's text
    as the check reads it ("Jon: ..."), ``names[i]`` its speaker's name or ""."""

    said: list[str]
    names: list[str]
    limits: ResultLimits
    strict: ResultLimits  # for re-anchoring (see ``reanchored``)
    own_share: float
    batch: int

    def problems(self, text: str, indices: list[int], strict: bool = False) -> list[str]:
        """Why ``text`` fails the extract check against the messages ``indices``."""
        return check_extract(
            text,
            [self.said[i] for i in indices],
            self.strict if strict else self.limits,
            [self.names[i] for i in indices],
            self.own_share,
        )

    def reanchored(self, text: str, cited: list[int]) -> list[int] | None:
        """A small model often cites the message next to the one it read: an extract that
        fails against its cited messages is checked against each other message of the
        same batch on its own, nearest first, with no new content word allowed
        (``strict``: a search over a batch must not find a message the ordinary
        tolerance lets through), and takes the first that backs it. One message at a
        time, never a union: words from two speakers must not add up to a statement
        neither made. None when no message backs it."""
        start = cited[0] - cited[0] % self.batch
        end = min(start + self.batch, len(self.said))
        others = [i for i in range(start, end) if i not in cited]
        for i in sorted(others, key=lambda j: min(abs(j - c) for c in cited)):
            if not self.problems(text, [i], strict=True):
                log.info("an extract re-anchored from messages %s to message %d", cited, i)
                return [i]
        return None


def extract(
    ctx: Context, judge: Judge, messages: Sequence[Message | NewMessage], scope: Scope
) -> list[Extracted]:
    """Checked extracts of ``messages`` (see the module docstring); never raises."""
    from memfold.engine.conversation.extract.llm import extract_with_llm
    from memfold.llm.secrets import find_secrets

    items = [(m.role.value, m.content) for m in messages]
    names = [_name(m) for m in messages]
    # The model sees a participant's name ("user (Caroline)"); the check reads it too.
    labelled = [(f"{r} ({n})" if n else r, c) for (r, c), n in zip(items, names, strict=True)]
    said = [f"{n}: {c}" if n else c for (_, c), n in zip(items, names, strict=True)]
    if not items:
        return []
    by = "rules"
    raw: list[RawExtract]
    try:
        llm = _llm_judge(judge)
        if llm is None:
            conv = ctx.settings.conversation
            words = (conv.value_fact_min_words, conv.value_fact_max_words)
            raw = [(e.text, e.area, [e.source]) for e in extract_by_rules(items, words)]
        else:
            by = "llm"
            client = llm.client
            raw = extract_with_llm(
                client.settings,
                client.usage_sink,
                ctx.settings.conversation,
                labelled,
                client.knowledge,
            )
    except Exception as exc:  # the conversation goes on without extracts
        log.warning(
            "extraction of %d messages (scope %s) failed, no memories extracted: %s: %s",
            len(items),
            scope.key(),
            type(exc).__name__,
            exc,
        )
        return []
    limits = ResultLimits.from_settings(ctx.settings)
    conv = ctx.settings.conversation
    checker = _SourceCheck(
        said=said,
        names=names,
        limits=limits,
        strict=replace(limits, max_new_content_words=conv.reanchor_max_new_content_words),
        own_share=conv.extract_subject_min_own_share,
        batch=conv.extract_batch_messages,
    )
    out: list[Extracted] = []
    kept: set[str] = set()
    for text, area, cited in raw:
        if plain_words(text) in kept:  # small models repeat an extract once per message
            continue
        indices, problems = cited, checker.problems(text, cited)
        moved = checker.reanchored(text, cited) if problems and by == "llm" else None
        if moved is not None:
            indices, problems = moved, []
        if find_secrets(text):  # a key or password is no memory to keep
            problems.append("extract holds a secret")
        if problems:
            # memfold's own log never quotes a text: it would outlive a forget.
            log.warning(
                "an extract of %d characters dropped (%s): %s",
                len(text),
                by,
                "; ".join(problem_kinds(problems)),
            )
            continue
        ids = tuple(source_id(messages[i], i) for i in indices)
        out.append(Extracted(text=text, area=area, sources=ids, by=by))
        kept.add(plain_words(text))
    return out
