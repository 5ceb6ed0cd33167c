"""The adversarial judge's reply kinds (section 3).

Each kind turns one consolidation request (the judge's JSON payload) into the reply
content a hostile or broken model might send. Item kinds answer every item of the
request the same way; request kinds break the whole reply (bad JSON, HTTP 500, a reply
slower than the timeout...).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from memfold.testing.fake_replies import Fault, Reply

Item = dict[str, Any]
Decision = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Env:
    """What a reply may use besides the request: an id from another scope, the limit."""

    other_scope_id: str | None
    max_text_chars: int
    slow_s: float


def _d(item: Item, action: str, targets: Any, text: Any = None, conf: Any = 0.95) -> Decision:
    return {
        "item": item["item"],
        "action": action,
        "target_ids": targets,
        "text": text,
        "area": "main",
        "importance": 0.5,
        "confidence": conf,
        "reasoning": "adversarial",
    }


def _cands(item: Item) -> list[Item]:
    return list(item.get("candidates") or [])


def _first(item: Item) -> Item:
    return _cands(item)[0]


def _lowest(item: Item) -> Item:
    return min(_cands(item), key=lambda c: float(c.get("similarity", 1.0)))


def _new(item: Item) -> str:
    return str(item["new"]["text"])


def _bump(match: re.Match[str]) -> str:
    return str(int(match.group(0)) + 1)


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]


def _relative(text: str) -> str:
    first = re.search(r"\b[A-Z][a-z]+\b", text)
    if first is None:
        return "My wife says " + _lower_first(text)
    return text[: first.start()] + first.group(0) + "'s wife" + text[first.end() :]


ITEM_KINDS: dict[str, Callable[[Item, Env], Decision]] = {
    "foreign_id": lambda it, env: _d(it, "UPDATE", ["f" * 32], _first(it)["text"]),
    "other_scope_id": lambda it, env: _d(it, "MERGE", [env.other_scope_id or "x"], _new(it)),
    "own_id": lambda it, env: _d(it, "MERGE", [it["new"]["id"]], _new(it)),
    "empty_text": lambda it, env: _d(it, "UPDATE", [_first(it)["id"]], ""),
    "whitespace_text": lambda it, env: _d(it, "UPDATE", [_first(it)["id"]], " \n\t  "),
    "huge_text": lambda it, env: _d(
        it, "UPDATE", [_first(it)["id"]], _first(it)["text"] + " more" * env.max_text_chars
    ),
    "negated_text": lambda it, env: _d(
        it, "UPDATE", [_first(it)["id"]], "It is not true that " + _lower_first(_first(it)["text"])
    ),
    "number_swapped": lambda it, env: _d(
        it, "UPDATE", [_first(it)["id"]], re.sub(r"\d+", _bump, _first(it)["text"])
    ),
    "invented_number": lambda it, env: _d(
        it, "UPDATE", [_first(it)["id"]], _first(it)["text"].rstrip(".") + " since 1987."
    ),
    "invented_name": lambda it, env: _d(
        it, "UPDATE", [_first(it)["id"]], _first(it)["text"].rstrip(".") + " with Zebulon."
    ),
    "relative_swapped": lambda it, env: _d(
        it, "UPDATE", [_first(it)["id"]], _relative(_first(it)["text"])
    ),
    "unknown_action": lambda it, env: _d(it, "OBLITERATE", [_first(it)["id"]]),
    "wrong_types": lambda it, env: _d(it, "UPDATE", _first(it)["id"], _new(it), "high"),
    "lone_surrogate": lambda it, env: _d(
        it, "UPDATE", [_first(it)["id"]], _first(it)["text"] + " \ud800"
    ),
    "control_chars": lambda it, env: _d(
        it, "UPDATE", [_first(it)["id"]], _first(it)["text"] + " \x07\x1b[31m\x00"
    ),
    "duplicate_targets": lambda it, env: _d(
        it, "MERGE", [_first(it)["id"], _first(it)["id"]], _first(it)["text"]
    ),
    "update_two_targets": lambda it, env: _d(
        it, "UPDATE", [c["id"] for c in _cands(it)[:2]] * (2 if len(_cands(it)) < 2 else 1),
        _first(it)["text"],
    ),
    "merge_below_gate": lambda it, env: _d(
        it, "MERGE", [_lowest(it)["id"]], _new(it) + " " + _lowest(it)["text"]
    ),
    "replace_below_gate": lambda it, env: _d(it, "REPLACE", [_lowest(it)["id"]]),
    "delete_low_confidence": lambda it, env: _d(it, "DELETE", [_first(it)["id"]], None, 0.3),
    "delete_unrelated": lambda it, env: _d(it, "DELETE", [_lowest(it)["id"]], None, 0.99),
    "merge_drops_facts": lambda it, env: _d(
        it, "MERGE", [c["id"] for c in _cands(it)], _new(it).split(" ")[0] + " exists."
    ),
    "out_of_range": lambda it, env: {**_d(it, "UPDATE", [_first(it)["id"]], _new(it), 1.7),
                                     "importance": -3},
    "unknown_placeholder": lambda it, env: _d(
        it, "UPDATE", [_first(it)["id"]], _first(it)["text"] + " [[SECRET_7]]"
    ),
    "wrong_item": lambda it, env: {**_d(it, "KEEP_SEPARATE", []), "item": 99},
    "benign_keep": lambda it, env: _d(it, "KEEP_SEPARATE", [_first(it)["id"]], None, 0.9),
    "benign_update": lambda it, env: _d(
        it, "UPDATE", [_first(it)["id"]], max(_new(it), _first(it)["text"], key=len)
    ),
    "benign_merge": lambda it, env: _d(it, "MERGE", [_first(it)["id"]], _first(it)["text"]),
}  # fmt: skip

REQUEST_KINDS: dict[str, Callable[[list[Item], Env], Reply]] = {
    "garbage_json": lambda items, env: Reply(content="}}{{ this is not JSON ]["),
    "truncated_json": lambda items, env: Reply(
        content=json.dumps({"decisions": [ITEM_KINDS["benign_update"](i, env) for i in items]}),
        fault=Fault.TRUNCATED,
    ),
    "empty_reply": lambda items, env: Reply(content=""),
    "wrong_schema": lambda items, env: Reply(fault=Fault.WRONG_SCHEMA),
    "slow_reply": lambda items, env: Reply(
        content={"decisions": [ITEM_KINDS["benign_update"](i, env) for i in items]},
        delay_s=env.slow_s,
    ),
    "http_500": lambda items, env: Reply(fault=Fault.SERVER_ERROR),
    "dropped_connection": lambda items, env: Reply(fault=Fault.DROP),
}

KINDS = [*ITEM_KINDS, *REQUEST_KINDS]


def reply_for(kind: str, items: list[Item], env: Env) -> Reply:
    if kind in REQUEST_KINDS:
        return REQUEST_KINDS[kind](items, env)
    return Reply(content={"decisions": [ITEM_KINDS[kind](it, env) for it in items]})
