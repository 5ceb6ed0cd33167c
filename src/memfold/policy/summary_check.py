"""The result check as it applies to a lifecycle summary of a cluster (seed 004). Pure.

A summary is checked by the one result check (``result_check.check_result``) against
every original it replaces, on a view of the texts that differs in three ways only:

- the fallback's own label ("Summary: ") is not part of what is checked (it is no name),
  and its separator (" | ") ends a sentence: "locker number 14 | User's bib" holds the
  number 14, not a "14 | User" no original has;
- a month written short and capitalized before a day or year ("Mar 12") reads as the month ("March
  12"), in the summary and in the originals alike: the same date, not a new one;
- "went hiking" reads as "hiking" (a light verb of going before a gerund): "hiked at
  Mount Rainier" restates "went hiking at Mount Rainier", it swaps nothing;

and its length may reach that of the plain concatenation of its originals (the breaker's
growth bound is meant for merges of one fact told twice, not for several facts told
once). Everything else stands: no name, number or date of any original dropped or
invented, most content words of each original kept, no word swapped in, no negation
added or lost, no instruction, the store's length limit. The concatenation fallback,
"Summary: a | b | c", keeps every original verbatim and passes by construction (unless
it is longer than the store allows, or an original is itself refused, e.g. one that
addresses a model).
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Sequence
from dataclasses import replace

from memfold.model import normalize_text
from memfold.policy.result_check import ResultLimits, Source, check_result
from memfold.reading.value_words import MONTHS

LABEL = "Summary: "
SEPARATOR = " | "
_LABEL = re.compile(r"^\s*summary\s*:\s*", re.IGNORECASE)
_PARTS = re.compile(r"[.!?]?\s+\|\s+")  # a separator, and a stop just before it
_SHORT_MONTH = re.compile(r"\b(Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)\b\.?(?=\s*\d)")
_GOING = re.compile(r"\b(?:went|go|goes|gone|going)\s+(?=[^\W\d_]{2,}ing\b)", re.IGNORECASE)


def concatenation(texts: Sequence[str]) -> str | None:
    """The seed's fallback summary: "Summary: " + " | ".join(texts), each distinct text
    once, in the order given; None when there is no text."""
    seen: set[str] = set()
    parts: list[str] = []
    for text in texts:
        key = normalize_text(text)
        if key and key not in seen:
            seen.add(key)
            parts.append(text.strip())
    return LABEL + SEPARATOR.join(parts) if parts else None


def _month(match: re.Match[str]) -> str:
    return calendar.month_name[MONTHS[match.group(1).lower()]]


def checked_view(text: str) -> str:
    """The text as the summary check reads it (see the module docstring)."""
    text = _LABEL.sub("", text, count=1)
    text = _PARTS.sub(". ", text)
    text = _SHORT_MONTH.sub(_month, text)
    return _GOING.sub("", text)


def check_summary(
    summary: str | None, sources: Sequence[Source], limits: ResultLimits
) -> list[str]:
    """Why ``summary`` must not replace ``sources`` (empty: it may)."""
    if summary is None or not summary.strip():
        return ["summary text is empty"]
    problems: list[str] = []
    length = len(summary.strip())
    if length > limits.max_chars:
        problems.append(f"summary has {length} characters; the store allows {limits.max_chars}")
    texts = [s.text.strip() for s in sources]
    total = sum(len(t) for t in texts)
    joined = len(SEPARATOR.join(texts))
    growth = max(limits.max_growth, joined / total) if total else limits.max_growth
    views = [Source(s.id, checked_view(s.text)) for s in sources]
    problems += check_result(checked_view(summary), views, replace(limits, max_growth=growth))
    return problems
