"""What the LLM judge sends and how it reads the answers back.

The memories go last, as short numbered lines rather than JSON with ids and dates: a
small model reads them more easily, a local server evaluates fewer tokens, and the
system prompt with its worked examples before them stays byte-identical from call to
call (a cacheable prefix). Candidates are named by their number in the item; the reply's
numbers are mapped back to memory ids here, so no id is ever spelled by the model.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from memfold.judge.base import PairInput, SaveItem
from memfold.judge.reply_lines import ACTION_SPAN
from memfold.llm.logprobs import TokenLogprob, span_probability, value_probabilities
from memfold.llm.schemas import DecisionOut
from memfold.llm.secrets import MaskSession
from memfold.model import MemoryRecord


def _line(text: str) -> str:
    """A memory on one line: one that holds line breaks goes as a JSON string (a bare
    newline would read as the next memory), so a text written from it keeps them."""
    return json.dumps(text, ensure_ascii=False) if "\n" in text or "\r" in text else text


_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?")
# Words too common to tell two statements apart.
_PLAIN = frozenset(
    {
        *("a", "an", "the", "is", "are", "was", "were", "be", "been", "to", "of", "in"),
        *("on", "at", "and", "or", "for", "with", "by", "as", "it"),
    }
)
_MAX_SHOWN = 6


def _words(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.lower()) if w not in _PLAIN]


def differs(new: str, old: str) -> str:
    """The words only one of two memories has, NEW's first: ``(differs: son / daughter)``,
    or ``(same words)``. A small model compares two sentences poorly; seeing the words
    that differ, it judges what they change."""
    a, b = _words(new), _words(old)
    only_new = list(dict.fromkeys(w for w in a if w not in set(b)))[:_MAX_SHOWN]
    only_old = list(dict.fromkeys(w for w in b if w not in set(a)))[:_MAX_SHOWN]
    if not only_new and not only_old:
        return "(same words)"
    return f"(differs: {' '.join(only_new) or '-'} / {' '.join(only_old) or '-'})"


def render_items(batch: Sequence[SaveItem], session: MaskSession) -> str:
    """``Item n`` / ``NEW: ...`` / ``1: ... (differs: ...)`` blocks, one per save,
    masked."""
    blocks = []
    for n, item in enumerate(batch, start=1):
        new = _line(session.mask(item.new.text))
        lines = [f"Item {n}", f"NEW: {new}"]
        for k, c in enumerate(item.candidates, start=1):
            old = _line(session.mask(c.memory.text))
            lines.append(f"{k}: {old} {differs(new, old)}")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def render_memories(memories: Sequence[MemoryRecord], session: MaskSession) -> str:
    """``Memories:`` then ``1. text`` lines in the order given (a summary's originals,
    oldest first), masked: no ids or dates for a small model to copy or to read as
    facts of the memories."""
    lines = [f"{n}. {_line(session.mask(m.text))}" for n, m in enumerate(memories, start=1)]
    return "Memories:\n" + "\n".join(lines)


def render_pairs(batch: Sequence[PairInput], session: MaskSession) -> str:
    """``Pair n`` / ``A: ...`` / ``B: ...`` blocks, the older memory first, masked."""
    return "\n\n".join(
        f"Pair {n}\nA: {_line(session.mask(p.a.text))}\nB: {_line(session.mask(p.b.text))}"
        for n, p in enumerate(batch, start=1)
    )


def number_rows(rows: Sequence[dict[str, Any]], key: str) -> dict[int, int]:
    """Reply row index by its 1-based number field; the first row for a number wins."""
    out: dict[int, int] = {}
    for index, raw in enumerate(rows):
        number = raw.get(key)
        if isinstance(number, int) and not isinstance(number, bool) and number not in out:
            out[number] = index
    return out


def target_ids(out: DecisionOut, item: SaveItem) -> list[str]:
    """Candidate ids named by the decision (numbers as listed, or ids); ``ValueError``
    for a number or id the item did not list."""
    ids: list[str] = []
    known = {c.memory.id for c in item.candidates}
    for ref in [*out.targets, *out.target_ids]:
        if isinstance(ref, str) and ref in known:
            ids.append(ref)
            continue
        text = str(ref).strip().lstrip("#")
        number = int(text) if text.isdigit() else 0
        if not 1 <= number <= len(item.candidates):
            raise ValueError(f"target {ref!r} is not one of the {len(item.candidates)} listed")
        ids.append(item.candidates[number - 1].memory.id)
    return list(dict.fromkeys(ids))


def choice_probabilities(
    tokens: tuple[TokenLogprob, ...] | None,
    rows: Sequence[dict[str, Any]],
    key: str,
    reply: str = "",
) -> list[float | None]:
    """Per reply row, the probability of the tokens of its ``key`` value (the action or
    label), or None where the server sent no log-probabilities or they do not line up.
    Rows read from a line reply say where their action sits in ``reply``."""
    if not tokens:
        return [None] * len(rows)
    if rows and all(ACTION_SPAN in r for r in rows):
        return [span_probability(tokens, reply, r[ACTION_SPAN]) for r in rows]
    return value_probabilities(tokens, key, [str(r.get(key, "")) for r in rows])


def confidence(probability: float | None) -> float:
    """The token probability, or 0 where the server sent none: a number the model writes
    says nothing of how often it is right (every decision 0.85-0.95 whatever its quality,
    docs/benchmarks.md), so no confidence gate may count it. Such a judge folds only what
    the guards allow without confidence."""
    return 0.0 if probability is None else probability


def stated_note(probability: float | None, stated: float | None) -> str:
    """What the log keeps of a stated confidence that was not used (empty otherwise)."""
    if probability is not None or stated is None:
        return ""
    return f" [stated confidence {stated:.2f} not counted: no log-probabilities]"
