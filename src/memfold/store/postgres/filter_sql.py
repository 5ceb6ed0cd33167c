"""A parsed metadata filter (``policy/filters.py``) as a PostgreSQL WHERE clause over
the ``jsonb`` column ``metadata``.

The meaning is that of ``policy.filters.matches``, like store/sqlite/filter_sql.py:
``metadata -> key`` is the key's JSON value (NULL when absent), compared as JSON, so a
number never equals a string, ``true`` is not ``1`` and ``1 = 1.0``. Ranges compare
like kinds only (strings by code point: ``COLLATE "C"``). ``$ne``/``$nin`` are ``NOT``
of ``$eq``/``$in`` with an absent key counted as not equal. Keys and values are
parameters; nothing is spliced into the SQL.
"""

from __future__ import annotations

import json
from typing import Any

from memfold.policy.filters import AllOf, AnyOf, Cond, Filter, Scalar

_RANGE_SQL = {"$lt": "<", "$lte": "<=", "$gt": ">", "$gte": ">="}


def filter_sql(tree: Filter, column: str = "metadata") -> tuple[str, list[Any]]:
    """``(sql, params)``: a boolean expression (never NULL) over ``column``."""
    if isinstance(tree, AllOf | AnyOf):
        if not tree.parts:
            return "true", []
        joiner = " AND " if isinstance(tree, AllOf) else " OR "
        pieces = [filter_sql(p, column) for p in tree.parts]
        return (
            "(" + joiner.join(sql for sql, _ in pieces) + ")",
            [param for _, params in pieces for param in params],
        )
    test, params = _test(tree, "j.v")
    exists = f"EXISTS (SELECT 1 FROM (SELECT {column} -> %s AS v) AS j WHERE {test})"
    negated = tree.op in ("$ne", "$nin")
    return ("NOT " if negated else "") + exists, [tree.key, *params]


def _json(value: Scalar) -> str:
    return json.dumps(value)


def _test(cond: Cond, value_sql: str) -> tuple[str, list[Any]]:
    """A test on the JSON value ``value_sql`` (NULL when the key is absent: no match)."""
    if cond.op in ("$in", "$nin"):
        assert isinstance(cond.value, tuple)
        if not cond.value:
            return "false", []
        return f"({value_sql} = ANY(%s::jsonb[]))", [[_json(v) for v in cond.value]]
    assert not isinstance(cond.value, tuple)
    value = cond.value
    if cond.op in ("$eq", "$ne"):
        return f"({value_sql} = %s::jsonb)", [_json(value)]
    if cond.op in _RANGE_SQL:
        op = _RANGE_SQL[cond.op]
        if isinstance(value, str):
            return (
                f"(jsonb_typeof({value_sql}) = 'string' AND "
                f"({value_sql} #>> '{{}}') COLLATE \"C\" {op} %s)",
                [value],
            )
        return (
            f"(CASE WHEN jsonb_typeof({value_sql}) = 'number' "
            f"THEN ({value_sql})::numeric {op} %s ELSE false END)",
            [value],
        )
    # $contains: substring of a string value, or an item of an array value
    if isinstance(value, str):
        return (
            f"(CASE jsonb_typeof({value_sql}) "
            f"WHEN 'string' THEN strpos({value_sql} #>> '{{}}', %s) > 0 "
            f"WHEN 'array' THEN {value_sql} @> jsonb_build_array(%s::jsonb) ELSE false END)",
            [value, _json(value)],
        )
    return (
        f"(jsonb_typeof({value_sql}) = 'array' AND {value_sql} @> jsonb_build_array(%s::jsonb))",
        [_json(value)],
    )
