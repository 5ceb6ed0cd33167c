"""Summaries of a session's older turns (seed 002): the LLM's, when an endpoint is
configured for the ``summary`` task and its text passes the check
(policy/conversation_summary.py: no name, number or date invented), else the extractive
digest. Texts are masked (llm/secrets.py) before they leave for the LLM and unmasked in
what comes back. Nothing raises out of here: a failed call, a refused text, a timeout
(the role's ``timeout_s``) all end in the digest, with the reason kept."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from memfold.config import ConversationSettings, LLMSettings
from memfold.judge.base import TextResult
from memfold.judge.prompts import load_prompt
from memfold.policy.conversation_summary import check_summary_text

if TYPE_CHECKING:  # memfold.llm loads openai (seconds): only when a summary is asked
    from memfold.llm.usage import UsageSink

# Lines in (oldest first), the LLM's text out; None text: no summary (reason given).
SummaryCall = Callable[[Sequence[str]], TextResult]


@dataclass(frozen=True, slots=True)
class Written:
    """A summary text and where it came from: "llm" or "extract" (with why not the LLM's)."""

    text: str
    source: str
    reason: str = ""


def llm_summary_call(settings: LLMSettings, sink: UsageSink | None) -> SummaryCall:
    """One call of the ``summary`` task per summary, on its own short-lived client."""

    def call(lines: Sequence[str]) -> TextResult:
        # Imported here: the LLM client loads openai (seconds), which importing memfold
        # (every CLI command, every worker process) must not pay.
        from memfold.llm.client import LLMClient
        from memfold.llm.loop import LoopThread
        from memfold.llm.schemas import TextReply
        from memfold.llm.secrets import MaskSession

        prompt = load_prompt("summarize")
        session = MaskSession()
        text = "\n".join(f"{n}. {session.mask(line)}" for n, line in enumerate(lines, 1))
        try:
            client = LLMClient(settings, usage_sink=sink, tasks=("summary",))
        except Exception as exc:  # a role without endpoint or model
            return TextResult(text=None, reasoning=f"{type(exc).__name__}: {exc}")
        loop = LoopThread("memfold-summary")

        async def run() -> TextResult:
            try:
                result = await client.complete(
                    "summary", prompt.messages(text), TextReply, masking=session, premasked=True
                )
            finally:
                await client.aclose()
            return TextResult(
                text=session.unmask(result.value.text),
                reasoning=session.unmask(result.value.reasoning),
                judge="llm",
                model=result.usage.model,
                prompt_version=prompt.label,
                prompt_tokens=result.usage.prompt_tokens,
                completion_tokens=result.usage.completion_tokens,
            )

        try:
            return loop.run(run())
        except Exception as exc:
            return TextResult(text=None, reasoning=f"{type(exc).__name__}: {exc}")
        finally:
            loop.close()

    return call


def summarize(
    lines: Sequence[str],
    fallback: str,
    call: SummaryCall | None,
    cfg: ConversationSettings,
) -> Written:
    """The LLM's summary of ``lines`` when ``call`` gives one that passes the check,
    else ``fallback`` (the extractive digest)."""
    if call is None:
        return Written(fallback, "extract", "no LLM configured")
    result = call(lines)
    if result.text is None:
        return Written(fallback, "extract", f"no summary from the LLM: {result.reasoning}")
    problems = check_summary_text(
        result.text,
        lines,
        cfg.summary_max_part_chars,
        cfg.summary_max_new_nouns,
    )
    if problems:
        return Written(fallback, "extract", "LLM summary refused: " + "; ".join(problems))
    return Written(result.text.strip(), "llm")
