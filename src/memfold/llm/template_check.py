"""Whether a chat template renders the prompt the model really saw: checked, not assumed.

A one-token completion after a reply prefix (llm/prefix_score.py) gives the action's
probability at a fraction of a streamed reply's cost, but only when the prompt is
rendered in the model's own chat template; in another one the number is a probability
of something else, and a confidence gate would trust it. No OpenAI-compatible API says
which template a model uses, so each endpoint's first scored replies are streamed with
their log-probabilities as before, and each of their actions is scored again by one
completion token in the template under check. A template is adopted once its token and
probability agree with the streamed ones on ``template_checks`` actions in a row
(within ``template_tolerance``); one disagreement drops it for the next candidate, and
when none is left the endpoint keeps streaming. Pure: no I/O.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from memfold.llm.logprobs import TokenLogprob


@dataclass
class TemplateCheck:
    """The templates still to try for one endpoint and model, in order, and how many
    checks the first of them has passed."""

    candidates: list[str]
    passes: int = 0
    adopted: str | None = None
    tried: list[str] = field(default_factory=list)

    @property
    def under_check(self) -> str | None:
        """The template being checked now; None once one is adopted or none is left."""
        if self.adopted is not None or not self.candidates:
            return None
        return self.candidates[0]

    @property
    def given_up(self) -> bool:
        return self.adopted is None and not self.candidates

    def record(self, agreed: bool, needed: int) -> None:
        """One check of the template under check: ``needed`` agreements in a row adopt
        it; a disagreement drops it and starts the next candidate from zero."""
        current = self.under_check
        if current is None:
            return
        if agreed:
            self.passes += 1
            if self.passes >= needed:
                self.adopted = current
            return
        self.tried.append(self.candidates.pop(0))
        self.passes = 0


def agrees(streamed: TokenLogprob, scored: TokenLogprob | None, tolerance: float) -> bool:
    """Whether the completion's token is the streamed one, at a probability within
    ``tolerance`` of it. The right template evaluates the very tokens the chat did, so
    the gap is rounding (0 on llama-cpp-python with Qwen and ChatML), while a wrong one
    moves it by 0.009-0.28 on the same actions (docs/benchmarks.md)."""
    if scored is None or scored.token != streamed.token:
        return False
    return abs(math.exp(scored.logprob) - math.exp(streamed.logprob)) <= tolerance
