"""The result check on a memory extracted from messages: nothing invented.

An extract is a small part of its messages, so the whole-result check's "drops nothing
of any source" does not apply; everything else of ``result_check`` does: no number,
date or name no source message holds, no more new content words than configured, no
negation added, no relation, possessive or environment no message has, no instruction
addressed to a model, no control character, not over the store's length. The speaker
is the one thing an extract may name that its messages do not: "I like tea" is stored
as "User likes tea", and "my studio" as "User's studio" or, for a named speaker,
"Jon's studio". Pure: no I/O; an empty list means the extract may be saved.
"""

from __future__ import annotations

from collections.abc import Sequence

from memfold.policy.result_check import (
    ResultLimits,
    added,
    encoding_problems,
    instruction_like,
    reversed_statements,
)
from memfold.policy.subject import added_markers

# How an extract names the speaker of "I" / "my" (the extraction prompt's convention).
SPEAKER = "User User's user's the user"


def check_extract(
    text: str, sources: Sequence[str], limits: ResultLimits, speakers: Sequence[str] = ()
) -> list[str]:
    """Why ``text`` must not be saved as a memory of the messages ``sources``, said by the
    named participants ``speakers`` (their "my" may become "<name>'s")."""
    if not text.strip():
        return ["extract is empty"]
    if not sources:
        return ["extract names no source message"]
    problems = encoding_problems(text)
    if problems:
        return problems
    if len(text.strip()) > limits.max_chars:
        problems.append(f"extract has {len(text.strip())} characters; limit {limits.max_chars}")
    if instruction_like(text):
        problems.append("extract holds an instruction addressed to a model")
    known = [*sources, SPEAKER, *(f"{name}'s" for name in speakers if name)]
    problems += added(text, known, limits.max_new_content_words)
    problems += reversed_statements(text, list(sources))
    problems += added_markers(text, known)
    return problems
