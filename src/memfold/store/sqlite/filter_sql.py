"""A parsed metadata filter (``policy/filters.py``) as an SQLite WHERE clause.

Each key test looks the key up with ``json_each`` over the ``metadata`` column (any key
works, dots and quotes included, and nothing is spliced into the SQL: keys and values
are parameters). ``json_each`` gives the value's JSON ``type`` (null, true, false,
integer, real, text, array, object) and its SQL ``atom``; a test checks the type first,
so the meaning is the same as ``policy.filters.matches``: a number never equals a
string, ``true`` is not ``1``, ranges compare like kinds only. ``$ne``/``$nin`` are
``NOT`` of ``$eq``/``$in``, so a memory without the key passes them.
"""

from __future__ import annotations

from typing import Any

from memfold.policy.filters import AllOf, AnyOf, Cond, Filter, Scalar, kind

_NUMBER = "j.type IN ('integer', 'real')"
_RANGE_SQL = {"$lt": "<", "$lte": "<=", "$gt": ">", "$gte": ">="}


def filter_sql(tree: Filter, column: str = "metadata") -> tuple[str, list[Any]]:
    """``(sql, params)``: a boolean expression over ``column`` (a JSON object as text)."""
    if isinstance(tree, AllOf | AnyOf):
        if not tree.parts:
            return "1", []
        joiner = " AND " if isinstance(tree, AllOf) else " OR "
        pieces = [filter_sql(p, column) for p in tree.parts]
        return (
            "(" + joiner.join(sql for sql, _ in pieces) + ")",
            [param for _, params in pieces for param in params],
        )
    test, params = _value_test(tree, "j")
    exists = f"EXISTS (SELECT 1 FROM json_each({column}) AS j WHERE j.key = ? AND {test})"
    negated = tree.op in ("$ne", "$nin")
    return ("NOT " if negated else "") + exists, [tree.key, *params]


def _value_test(cond: Cond, alias: str) -> tuple[str, list[Any]]:
    """A test on the json_each row ``alias`` (its ``type`` and ``atom``)."""
    if cond.op in ("$in", "$nin"):
        assert isinstance(cond.value, tuple)
        return _one_of(cond.value, alias)
    assert not isinstance(cond.value, tuple)
    value = cond.value
    if cond.op in ("$eq", "$ne"):
        return _equals(value, alias)
    if cond.op in _RANGE_SQL:
        sql_op = _RANGE_SQL[cond.op]
        typed = _typed(alias, "text" if isinstance(value, str) else "number")
        return f"({typed} AND {alias}.atom {sql_op} ?)", [value]
    # $contains: substring of a text value, or an item of an array value
    item_test, item_params = _equals(value, "e")
    member = (
        f"({alias}.type = 'array' AND EXISTS "
        f"(SELECT 1 FROM json_each({alias}.value) AS e WHERE {item_test}))"
    )
    if isinstance(value, str):
        return (
            f"(({alias}.type = 'text' AND instr({alias}.atom, ?) > 0) OR {member})",
            [value, *item_params],
        )
    return member, item_params


def _typed(alias: str, value_kind: str) -> str:
    if value_kind == "number":
        return _NUMBER.replace("j.", f"{alias}.")
    return f"{alias}.type = 'text'"


def _equals(value: Scalar, alias: str) -> tuple[str, list[Any]]:
    if value is None:
        return f"{alias}.type = 'null'", []
    if isinstance(value, bool):
        return f"{alias}.type = '{'true' if value else 'false'}'", []
    return f"({_typed(alias, kind(value))} AND {alias}.atom = ?)", [value]


def _one_of(values: tuple[Scalar, ...], alias: str) -> tuple[str, list[Any]]:
    """Equal to any of ``values``: one IN (...) per JSON kind."""
    if not values:
        return "0", []
    tests: list[str] = []
    params: list[Any] = []
    texts = [v for v in values if isinstance(v, str)]
    numbers = [v for v in values if kind(v) == "number"]
    for group, group_kind in ((texts, "text"), (numbers, "number")):
        if group:
            marks = ",".join("?" * len(group))
            tests.append(f"({_typed(alias, group_kind)} AND {alias}.atom IN ({marks}))")
            params.extend(group)
    flags = [v for v in values if kind(v) in ("null", "bool")]
    types = sorted({"null" if v is None else ("true" if v else "false") for v in flags})
    if types:
        tests.append(f"{alias}.type IN ({','.join(repr(t) for t in types)})")
    return "(" + " OR ".join(tests) + ")", params
