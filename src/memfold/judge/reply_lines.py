"""The one-line-per-item reply of the consolidation prompt, read back into decision rows.

A decision costs about 8 reply tokens this way (``1 REPLACE 1 semantic main 5``) against
about 40 as JSON with a reasoning field, and the action comes first, so its token
probability is read from the first tokens of the reply. The line is::

    ITEM [WHY:] ACTION TARGETS CATEGORY AREA IMPORTANCE [| text]

TARGETS are candidate numbers joined by commas, or ``-``; IMPORTANCE is one digit (9
vital, 5 ordinary, 1 trivial), read as a tenth; the text follows a bar, for MERGE and
UPDATE only. Each row also records where its action word sits in the reply, so the
caller can find that word's tokens. A reply written as JSON (a model that ignores the
format, or an older prompt) is read as JSON. Pure: no I/O.
"""

from __future__ import annotations

import re
from typing import Any

from memfold.errors import LLMReplyInvalid
from memfold.llm.parsing import extract_json

ACTION_SPAN = "action_span"
_ACTIONS = "KEEP_SEPARATE|ADD|UPDATE|MERGE|REPLACE|DELETE|SKIP"
_LINE = re.compile(
    r"^[ \t]*(?:item[ \t]*)?(?P<item>\d+)[.):]?[ \t]+"
    r"(?:(?P<why>[^|\n]*?):[ \t]*)?"
    rf"(?P<action>\b(?:{_ACTIONS})\b)"
    r"(?:[ \t]+(?P<targets>-|\d+(?:[ \t]*,[ \t]*\d+)*))?"
    r"(?:[ \t]+(?P<category>episodic|semantic|procedural))?"
    r"(?:[ \t]+(?P<area>main|fragments|solutions|instruments))?"
    r"(?:[ \t]+(?P<importance>\d{1,2}))?"
    r"[ \t]*(?:\|[ \t]*(?P<text>[^\n]*?))?[ \t]*$",
    re.IGNORECASE | re.MULTILINE,
)
_MAX_SHOWN = 200


def read_decision_lines(reply: str) -> dict[str, list[dict[str, Any]]]:
    """``{"decisions": [row, ...]}`` from a line reply (or a JSON one); each line row
    carries ``action_span``, the (start, end) of its action word in ``reply``.
    ``LLMReplyInvalid`` when no line reads as a decision."""
    stripped = reply.strip()
    if stripped.startswith(("{", "[", "```")):
        value = extract_json(reply)
        if isinstance(value, list):
            value = {"decisions": value}
        if not isinstance(value, dict):
            raise LLMReplyInvalid(f"reply is JSON but not an object: {stripped[:_MAX_SHOWN]!r}")
        return value
    rows = [_row(m) for m in _LINE.finditer(reply)]
    if not rows:
        shown = stripped if len(stripped) <= _MAX_SHOWN else stripped[:_MAX_SHOWN] + "..."
        raise LLMReplyInvalid(f"no decision line in the reply: {shown!r}")
    return {"decisions": rows}


def _row(match: re.Match[str]) -> dict[str, Any]:
    targets = match.group("targets") or "-"
    row: dict[str, Any] = {
        "item": int(match.group("item")),
        "action": match.group("action").upper(),
        "targets": [] if targets == "-" else [int(t) for t in re.findall(r"\d+", targets)],
        "reasoning": (match.group("why") or "").strip(),
        ACTION_SPAN: match.span("action"),
    }
    if match.group("category"):
        row["category"] = match.group("category").lower()
    if match.group("area"):
        row["area"] = match.group("area").lower()
    if match.group("importance"):
        row["importance"] = min(int(match.group("importance")), 10) / 10
    if match.group("text"):
        row["text"] = match.group("text").strip()
    return row
