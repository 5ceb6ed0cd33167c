"""The session summary of a conversation (seed 002) without an LLM, and the check an
LLM's summary passes before it is appended. Pure: no I/O.

The extractive digest is what memfold writes with no LLM, or when an LLM's summary is
refused. What it keeps, from the turns that left the window, in their order:

- the first sentence of each user turn (what the user asked or told, in their words);
- from any user or assistant turn, each further sentence that holds a number, a date
  or a name (the "key facts": times, amounts, versions, people, places);
- nothing of system or tool turns.

Each line is cut at ``line_max_chars`` and the digest stops at ``max_chars``, saying how
many lines it left out. Its quality, honestly: it is a verbatim sample, not a summary.
It invents nothing (every word is a message's), but it loses what the assistant
explained in sentences without a fact, everything a user said after the first sentence
unless it holds a fact, and the links between turns (pronouns keep pointing at turns
that are gone). A long session's digest is mostly user openings.

The check (``check_summary_text``) is the result check's "nothing invented" half: no
number, date or name that no source holds, no instruction addressed to a model, valid
Unicode, within the length bound. A summary may drop most of what it summarizes, so
the "nothing dropped" half of the result check does not apply.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence

from memfold.policy.result_check import encoding_problems, instruction_like
from memfold.policy.summary_check import checked_view
from memfold.reading.bindings import binding_problems
from memfold.reading.value_words import MONTHS, WEEKDAYS

_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_FACT = re.compile(r"\d")
_NAME = re.compile(r"\b[A-Z][\w'’-]*[a-z][\w'’-]*")  # a capitalized word (not "I")
_WORD = re.compile(r"[^\W\d_]+\.?")
_LABEL = "Earlier summary, compressed:"


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text) if s.strip()]


def _cut(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: max(1, limit - 1)].rstrip() + "…"


def _has_fact(sentence: str) -> bool:
    """A number or date anywhere, or a capitalized word after the first (a name)."""
    rest = sentence.split(maxsplit=1)[1] if " " in sentence.strip() else ""
    return bool(_FACT.search(sentence) or _NAME.search(rest) or _dated(sentence))


def _dated(sentence: str) -> bool:
    """A month or weekday named ("May" only capitalized: "may" is a verb)."""
    return any(
        (w.lower() in MONTHS and (w[0].isupper() or w.lower() != "may")) or w.lower() in WEEKDAYS
        for w in _WORD.findall(sentence)
    )


def digest_lines(turns: Sequence[tuple[str, str]], line_max_chars: int) -> list[str]:
    """The digest's lines for ``(role, content)`` turns (see the module docstring)."""
    lines: list[str] = []
    for role, content in turns:
        if role not in ("user", "assistant"):
            continue
        sentences = _sentences(content)
        if not sentences:
            continue
        keep = [sentences[0]] if role == "user" else []
        keep += [s for s in sentences[len(keep) :] if _has_fact(s)]
        lines += [f"{role}: {_cut(s, line_max_chars)}" for s in keep]
    return lines


def digest(
    turns: Sequence[tuple[str, str]],
    *,
    first: int,
    last: int,
    max_chars: int,
    line_max_chars: int,
) -> str:
    """The extractive digest of messages ``first..last`` (positions), at most
    ``max_chars`` characters."""
    head = f"Messages {first}-{last} (extract):"
    lines = digest_lines(turns, line_max_chars)
    if not lines:
        return f"{head} no user or assistant text."
    out = head
    for n, line in enumerate(lines):
        rest = len(lines) - n
        tail = f" (+{rest - 1} more lines)" if rest > 1 else ""
        if len(out) + 1 + len(line) + len(tail) > max_chars:
            return out + f" (+{rest} more lines)"
        out += "\n" + line
    return out


def compress_parts(texts: Sequence[str], *, max_chars: int, line_max_chars: int) -> str:
    """The offline meta-summary of older summary parts: each part's lines, in order,
    taken one round at a time (every part's first line, then every part's second...)
    until ``max_chars``; a part's header line ("Messages a-b ...") is kept as its label."""
    split = [[ln for ln in t.splitlines() if ln.strip()] for t in texts]
    heads = [lines[0] if lines else "" for lines in split]
    bodies = [lines[1:] for lines in split]
    chosen: list[list[str]] = [[] for _ in split]
    used = len(_LABEL) + sum(len(h) + 1 for h in heads)
    depth = 0
    while any(depth < len(b) for b in bodies):
        for i, body in enumerate(bodies):
            if depth < len(body):
                line = _cut(body[depth], line_max_chars)
                if used + len(line) + 1 > max_chars:
                    break
                chosen[i].append(line)
                used += len(line) + 1
        else:
            depth += 1
            continue
        break
    blocks = ["\n".join([h, *c]) for h, c in zip(heads, chosen, strict=True) if h]
    return _cut_block(_LABEL + "\n" + "\n".join(blocks), max_chars)


def _cut_block(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: max(1, limit - 1)].rstrip() + "…"


def check_summary_text(
    summary: str | None, sources: Sequence[str], max_chars: int, max_new_nouns: int
) -> list[str]:
    """Why an LLM's summary of ``sources`` must not be appended (empty: it may): nothing
    invented, and every binding, role and polarity as the turns have them
    (``memfold.reading.bindings``; the summary may leave things out and reword freely,
    but add at most ``max_new_nouns`` nouns)."""
    if summary is None or not summary.strip():
        return ["summary text is empty"]
    problems = encoding_problems(summary)
    if problems:
        return problems
    if len(summary) > max_chars:
        problems.append(f"summary has {len(summary)} characters; at most {max_chars}")
    if instruction_like(summary):
        problems.append("summary holds an instruction addressed to a model")
    views = [checked_view(s) for s in sources]
    # Only invented facts: any number of new plain words is allowed (a summary
    # paraphrases), hence no bound on them here.
    misread = binding_problems(
        checked_view(summary),
        views,
        keep_all=False,
        max_new_words=sys.maxsize,
        max_new_nouns=max_new_nouns,
    )
    return problems + misread
