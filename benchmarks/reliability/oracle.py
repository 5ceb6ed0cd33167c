"""An independent oracle for applied consolidations.

Written here, simply, from the rules the README and DESIGN.md state, without importing
memfold's own guards: it reads each applied log row (its before and after state, with
vectors) and reports every rule it breaks.

- Gates: MERGE and REPLACE need cosine >= destructive_threshold with every target,
  UPDATE >= update_threshold, DELETE >= delete_threshold and confidence >=
  delete_min_confidence (cosines recomputed from the logged vectors).
- Targets: not the new memory, existing and active before, in the new memory's scope,
  cosine >= discovery_threshold, named once, and (when an LLM decided) among the
  candidates the LLM was shown for that memory.
- A written text (UPDATE, MERGE): non-empty, at most max_text_chars, no lone surrogate or
  control character, no number or name that no source has, no sentence whose closest
  source sentence has the other negation parity (a statement reversed), no relation word
  no source has, no number or name of a source dropped.
"""

from __future__ import annotations

import base64
import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from reliability.common import LogRow

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_WORD = re.compile(r"[A-Za-z\u00c0-\u024f]+(?:'[a-z]+)?")
_NEGATION = re.compile(r"\b(?:not|never|no|nobody|nothing|none|neither|nor|untrue)\b|n't\b", re.I)
# Capitalized function words are not names.
_NOT_NAMES = {
    "a", "an", "the", "it", "he", "she", "they", "we", "i", "you", "this", "that", "these",
    "those", "and", "but", "or", "so", "for", "to", "in", "on", "at", "of", "with", "by",
    "every", "each", "as", "since", "from", "after", "before", "then", "now", "there",
    "his", "her", "their", "its", "my", "our", "your", "is", "was", "also", "note", "when",
}  # fmt: skip
RELATIONS = {
    "wife", "husband", "mother", "father", "sister", "brother", "son", "daughter", "friend",
    "boss", "colleague", "partner", "neighbour", "neighbor", "cousin", "uncle", "aunt",
    "girlfriend", "boyfriend", "grandmother", "grandfather", "mom", "dad",
}  # fmt: skip
FOLDS = ("UPDATE", "MERGE")
# Reported apart from the rule violations: the README states no rule about it, and the
# row applies the same change as with the target named once.
TARGET_TWICE = "a target named twice"
APPLIED = ("UPDATE", "MERGE", "REPLACE", "DELETE")


@dataclass(frozen=True, slots=True)
class Limits:
    discovery: float
    update: float
    destructive: float
    delete: float
    delete_confidence: float
    max_text_chars: int

    @classmethod
    def from_settings(cls, settings: Any) -> Limits:
        c = settings.consolidation
        return cls(
            discovery=c.discovery_threshold,
            update=c.update_threshold,
            destructive=c.destructive_threshold,
            delete=c.delete_threshold,
            delete_confidence=c.delete_min_confidence,
            max_text_chars=settings.store.max_text_chars,
        )


@dataclass(slots=True)
class Violation:
    row_id: int
    action: str
    new_id: str
    reasons: list[str] = field(default_factory=list)


# Cosines are recomputed in float64 from float32 vectors; the engine's may differ in the
# last bits, so a value within this of a gate is not called a violation.
COSINE_TOLERANCE = 1e-6


def _vector(snap: Mapping[str, Any]) -> np.ndarray | None:
    blob = snap.get("embedding_b64")
    if not blob:
        return None
    v = np.frombuffer(base64.b64decode(blob), dtype=np.float32).astype(np.float64)
    norm = float(np.linalg.norm(v))
    return v / norm if norm > 0 else None


def cosine(a: Mapping[str, Any], b: Mapping[str, Any]) -> float | None:
    va, vb = _vector(a), _vector(b)
    if va is None or vb is None or va.shape != vb.shape:
        return None
    return float(va @ vb)


def numbers(text: str) -> set[str]:
    return set(_NUMBER.findall(text))


def names(text: str) -> set[str]:
    found = set()
    for word in _WORD.findall(text):
        base = word.split("'")[0]
        if base[:1].isupper() and base.lower() not in _NOT_NAMES:
            found.add(base.lower())
    return found


def words(text: str) -> set[str]:
    return {w.split("'")[0].lower() for w in _WORD.findall(text)}


def negations(text: str) -> int:
    return len(_NEGATION.findall(text))


_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+")
_NEGATION_WORDS = {"not", "never", "no", "nobody", "nothing", "none", "neither", "nor", "untrue"}


def sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE_END.split(text) if s.strip()]


def reversed_statement(written: str, sources: Iterable[str]) -> str | None:
    """A written sentence whose closest source sentences (most shared words, negation
    words aside) all have the other negation parity: the statement was reversed."""
    pool = [
        (words(s) - _NEGATION_WORDS, negations(s) % 2) for src in sources for s in sentences(src)
    ]
    if not pool:
        return None
    for sentence in sentences(written):
        mine = words(sentence) - _NEGATION_WORDS
        overlaps = [len(mine & w) / max(1, len(mine | w)) for w, _ in pool]
        best = max(overlaps)
        parities = {parity for (_, parity), o in zip(pool, overlaps, strict=True) if o == best}
        if negations(sentence) % 2 not in parities:
            return sentence
    return None


def bad_chars(text: str) -> list[str]:
    out = []
    if any(0xD800 <= ord(ch) <= 0xDFFF for ch in text):
        out.append("lone surrogate")
    if any(unicodedata.category(ch) == "Cc" and ch not in "\t\n\r" for ch in text):
        out.append("control character")
    return out


def text_problems(written: str, sources: Iterable[str], max_chars: int) -> list[str]:
    """What is wrong with a judge-written text, against the texts it replaces."""
    srcs = list(sources)
    problems: list[str] = []
    if not written.strip():
        return ["empty text"]
    if len(written) > max_chars:
        problems.append(f"text over {max_chars} chars ({len(written)})")
    problems += bad_chars(written)
    known_numbers = set().union(*(numbers(s) for s in srcs))
    known_words = set().union(*(words(s) for s in srcs))
    if numbers(written) - known_numbers:
        problems.append(f"invented number {sorted(numbers(written) - known_numbers)[:3]}")
    invented = names(written) - known_words
    if invented:
        problems.append(f"invented name {sorted(invented)[:3]}")
    if reversed_statement(written, srcs) is not None:
        problems.append("negates a source")
    relations = (words(written) & RELATIONS) - known_words
    if relations:
        problems.append(f"relation word {sorted(relations)}")
    kept_numbers, kept_words = numbers(written), words(written)
    for s in srcs:
        if numbers(s) - kept_numbers:
            problems.append(f"drops number {sorted(numbers(s) - kept_numbers)[:3]}")
        if names(s) - kept_words:
            problems.append(f"drops name {sorted(names(s) - kept_words)[:3]}")
    return list(dict.fromkeys(problems))


def _scope(snap: Mapping[str, Any]) -> tuple[Any, Any, Any]:
    return (snap.get("user_id"), snap.get("agent_id"), snap.get("session_id"))


def check_row(
    row: LogRow, limits: Limits, offered: Mapping[str, set[str]] | None = None
) -> Violation | None:
    """The rules an applied on-save row breaks (None: none)."""
    if row.path != "on_save" or row.undoes is not None or row.action not in APPLIED:
        return None
    if not row.input_ids:
        return Violation(row.id, row.action, "?", ["no input ids"])
    new_id, targets = row.input_ids[0], row.input_ids[1:]
    v = Violation(row.id, row.action, new_id)
    new = row.snap("before", new_id)
    if new is None:
        v.reasons.append("new memory missing from the before state")
        return v
    if not targets:
        v.reasons.append("no target")
    if len(set(targets)) != len(targets):
        v.reasons.append(TARGET_TWICE)
    shown = None if offered is None or row.judge != "llm" else offered.get(new_id)
    floor = {
        "UPDATE": limits.update,
        "MERGE": limits.destructive,
        # A REPLACE is a restatement (the destructive gate on the embedder's calibrated
        # similarity, a lower raw cosine) or a supersede (the delete gate).
        "REPLACE": limits.delete,
        "DELETE": limits.delete,
    }[row.action]
    target_snaps = []
    for t in dict.fromkeys(targets):
        snap = row.snap("before", t)
        if t == new_id:
            v.reasons.append("target is the new memory itself")
            continue
        if snap is None:
            v.reasons.append("target did not exist")
            continue
        target_snaps.append(snap)
        if _scope(snap) != _scope(new):
            v.reasons.append("target in another scope")
        if snap.get("status") != "active":
            v.reasons.append(f"target was {snap.get('status')}")
        if shown is not None and t not in shown:
            v.reasons.append("target not among the candidates shown")
        cos = cosine(new, snap)
        if cos is None:
            v.reasons.append("no vector to compare")
        elif cos < limits.discovery - COSINE_TOLERANCE:
            v.reasons.append(f"target below the discovery threshold ({cos:.3f})")
        elif cos < floor - COSINE_TOLERANCE:
            v.reasons.append(f"{row.action} below its gate {floor:.2f} ({cos:.3f})")
    if row.action == "DELETE" and (row.confidence or 0.0) < limits.delete_confidence:
        v.reasons.append(f"DELETE below confidence {limits.delete_confidence:.2f}")
    if row.action in FOLDS:
        written = _written(row, new_id, targets)
        if written is None:
            v.reasons.append("no written text found")
        else:
            sources = [str(new.get("text", ""))] + [str(s.get("text", "")) for s in target_snaps]
            v.reasons += text_problems(written, sources, limits.max_text_chars)
    return v if v.reasons else None


def _written(row: LogRow, new_id: str, targets: list[str]) -> str | None:
    if row.action == "UPDATE":
        snap = row.snap("after", targets[0]) if targets else None
    else:
        created = [m for m in (row.after.get("memories") or {}) if row.snap("before", m) is None]
        snap = row.snap("after", created[0]) if created else None
    return None if snap is None else str(snap.get("text", ""))


def check_rows(
    rows: Iterable[LogRow], limits: Limits, offered: Mapping[str, set[str]] | None = None
) -> list[Violation]:
    out = []
    for row in rows:
        found = check_row(row, limits, offered)
        if found is not None:
            out.append(found)
    return out
