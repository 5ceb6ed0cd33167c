"""What memfold's own log lines may say about a text: why it was refused, never what it
said. A log line outlives ``forget``, so a problem is cut where it starts to quote
("adds name 'manchester'": "adds name"; "adds words no source has: cod, pumpernickel":
"adds words no source has")."""

from __future__ import annotations

from collections.abc import Iterable

_QUOTE_STARTS = "'\"‘’“”`:"


def problem_kinds(problems: Iterable[str]) -> list[str]:
    """Each problem up to its first quote or colon, in order, once each."""
    kinds: list[str] = []
    for problem in problems:
        cut = min((i for i, ch in enumerate(problem) if ch in _QUOTE_STARTS), default=len(problem))
        kind = problem[:cut].strip(" :,(") or "refused"
        if kind not in kinds:
            kinds.append(kind)
    return kinds


def log_reason(reason: str) -> str:
    """A reason of the form "what: details" as a log may give it: "what", then the kinds
    of the details (an LLM's own words, which may quote the text, are left out)."""
    head, _, details = reason.partition(": ")
    if not details or head.startswith("no summary from"):
        return head
    return f"{head}: {'; '.join(problem_kinds(details.split('; ')))}"
