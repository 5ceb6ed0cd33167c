"""Metadata filters: the parser's errors, the pure evaluator's meaning, and list() in a
real SQLite file answering exactly what the evaluator answers."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from memfold import InvalidInput, Memory
from memfold.policy.filters import AllOf, AnyOf, Cond, matches, parse

# Metadata covering every JSON kind, missing keys and look-alikes (1 vs true vs "1").
METADATA: list[dict[str, Any]] = [
    {},
    {"topic": "food", "n": 1, "tags": ["a", "b"], "ok": True},
    {"topic": "travel", "n": 2.5, "tags": ["b", 3], "ok": False, "note": "see Paris"},
    {"topic": "Food", "n": "1", "tags": [], "ok": 1, "nil": None},
    {"topic": "food court", "n": -3, "tags": "a,b", "ok": None, "a.b": "dotted"},
    {"n": 10, "tags": [True, None, 1.0], "note": "paris", "nested": {"x": 1}},
    {"topic": "food", "n": 7, 'quo"te': "q", "nil": 0},
]

FILTERS: list[dict[str, Any]] = [
    {},
    {"topic": "food"},
    {"topic": {"$eq": "food"}},
    {"topic": {"$ne": "food"}},
    {"topic": {"$in": ["food", "travel"]}},
    {"topic": {"$nin": ["food", "travel"]}},
    {"topic": {"$in": []}},
    {"topic": {"$nin": []}},
    {"n": 1},
    {"n": 1.0},
    {"n": "1"},
    {"n": True},
    {"ok": True},
    {"ok": 1},
    {"ok": False},
    {"ok": None},
    {"nil": None},
    {"nil": {"$ne": None}},
    {"n": {"$gt": 1}},
    {"n": {"$gte": 1, "$lt": 10}},
    {"n": {"$lte": 2.5}},
    {"n": {"$lt": "5"}},
    {"topic": {"$gt": "f"}},
    {"topic": {"$lt": "food court"}},
    {"tags": {"$contains": "a"}},
    {"tags": {"$contains": 3}},
    {"tags": {"$contains": 1}},
    {"tags": {"$contains": True}},
    {"tags": {"$contains": None}},
    {"note": {"$contains": "aris"}},
    {"note": {"$contains": "Paris"}},
    {"topic": {"$contains": ""}},
    {"n": {"$in": [1, "travel", True, None]}},
    {"ok": {"$in": [True, None]}},
    {"ok": {"$nin": [True, None]}},
    {"a.b": "dotted"},
    {'quo"te': "q"},
    {"nested": {"$ne": 1}},
    {"$or": [{"topic": "travel"}, {"n": {"$gte": 7}}]},
    {"$and": [{"topic": "food"}, {"n": {"$lt": 5}}]},
    {"$or": [{"$and": [{"topic": "food"}, {"ok": True}]}, {"note": {"$contains": "paris"}}]},
    {"$or": [{}, {"topic": "nothing"}]},
    {"topic": "food", "$or": [{"n": 7}, {"tags": {"$contains": "a"}}]},
    {"topic": {"$ne": "food", "$nin": ["travel"]}},
]


def ids_of(records: list[Any]) -> set[int]:
    return {int(r.text.split()[-1]) for r in records}


def test_every_filter_means_in_sqlite_what_the_evaluator_says(mem_off: Memory) -> None:
    for n, meta in enumerate(METADATA):
        mem_off.add(f"memory number {n}", metadata=meta)
    for raw in FILTERS:
        tree = parse(raw, max_terms=100)
        expected = {n for n, meta in enumerate(METADATA) if matches(tree, meta)}
        got = ids_of(mem_off.list(filters=raw))
        assert got == expected, raw
        # search applies the same filter (keyword mode: every text shares "memory")
        hits = mem_off.search("memory number", filters=raw, k=50, mode="keyword")
        assert ids_of([h.memory for h in hits]) == expected, raw


def test_evaluator_semantics_by_hand() -> None:
    meta = {"topic": "food", "n": 1, "tags": ["a", 2], "ok": True, "nil": None}

    def check(raw: dict[str, Any]) -> bool:
        return matches(parse(raw, max_terms=100), meta)

    assert check({"topic": "food"}) and not check({"topic": "Food"})
    assert check({"n": 1.0}) and not check({"n": "1"}) and not check({"n": True})
    assert check({"ok": True}) and not check({"ok": 1})
    assert check({"nil": None}) and not check({"missing": None})
    # a missing key: never matches, except under $ne / $nin (their exact negations)
    assert not check({"missing": {"$eq": 1}}) and not check({"missing": {"$gt": 0}})
    assert not check({"missing": {"$contains": "x"}}) and not check({"missing": {"$in": [1]}})
    assert check({"missing": {"$ne": 1}}) and check({"missing": {"$nin": [1]}})
    # ranges compare like kinds only
    assert check({"n": {"$gte": 1, "$lt": 2}}) and not check({"topic": {"$gt": 0}})
    assert check({"tags": {"$contains": 2}}) and not check({"tags": {"$contains": "2"}})
    assert check({"topic": {"$contains": "oo"}})
    assert check({"$or": [{"topic": "x"}, {"n": 1}]}) and not check({"$and": [{"n": 1}, {"x": 1}]})


def test_parse_builds_a_tree() -> None:
    tree = parse(
        {"a": 1, "b": {"$gt": 2, "$lt": 5}, "$or": [{"c": "x"}, {"d": {"$in": [1, 2]}}]},
        max_terms=100,
    )
    assert tree == AllOf(
        (
            Cond("a", "$eq", 1),
            Cond("b", "$gt", 2),
            Cond("b", "$lt", 5),
            AnyOf((Cond("c", "$eq", "x"), Cond("d", "$in", (1, 2)))),
        )
    )
    assert parse(None, max_terms=1) is None and parse({}, max_terms=1) is None


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("topic=food", "filters must be a dict, got str"),
        ([{"a": 1}], "filters must be a dict, got list"),
        ({"a": {"$regex": "x"}}, "unknown operator '$regex'"),
        ({"$not": {"a": 1}}, "unknown operator '$not' at the top level"),
        ({"a": {"$in": "abc"}}, "filters['a'].$in must be a list of values, got str"),
        ({"a": {"$nin": 3}}, "filters['a'].$nin must be a list of values, got int"),
        ({"a": {"$gt": True}}, "filters['a'].$gt must be a number or a string"),
        ({"a": {"$lt": None}}, "filters['a'].$lt must be a number or a string"),
        ({"a": {"$gt": [1]}}, "must be a string, number, boolean or None, got list"),
        ({"a": [1, 2]}, "filters['a'] must be a string, number, boolean or None, got list"),
        ({"a": {"x": 1}}, "must be a scalar or a dict of operators"),
        ({"a": {"$eq": 1, "x": 1}}, "found key 'x'"),
        ({"a": {}}, "filters['a'] is an empty operator dict"),
        ({"a": float("nan")}, "must be a finite number"),
        ({"a": {"$in": [1, float("inf")]}}, "filters['a'].$in[1] must be a finite number"),
        ({"$or": {"a": 1}}, "filters.$or must be a list of filter dicts, got dict"),
        ({"$and": []}, "filters.$and is an empty list"),
        ({"$or": [{"a": 1}, "b"]}, "filters.$or[1] must be a dict, got str"),
        ({"$or": [{"a": {"$bad": 1}}]}, "filters.$or[0]['a'] has unknown operator '$bad'"),
        ({"": 1}, "not a non-empty string"),
        ({1: 1}, "not a non-empty string"),
        ({"a": {"$in": list(range(101))}}, "more than 100 values"),
    ],
)
def test_bad_filters_are_one_clear_error(raw: Any, message: str) -> None:
    with pytest.raises(InvalidInput) as err:
        parse(raw, max_terms=100)
    assert message in str(err.value)
    assert "\n" not in str(err.value)


def test_bad_filter_through_the_api_changes_nothing(mem_off: Memory) -> None:
    mem_off.add("a memory", metadata={"a": 1})
    before = mem_off.stats()["log_entries"]
    for call in (
        lambda: mem_off.list(filters={"a": {"$like": 1}}),
        lambda: mem_off.search("memory", filters={"a": {"$like": 1}}),
        lambda: mem_off.list(filters="a=1"),  # type: ignore[arg-type]
    ):
        with pytest.raises(InvalidInput):
            call()
    assert mem_off.stats()["log_entries"] == before
    assert [r.metadata for r in mem_off.list(filters={"a": 1})] == [{"a": 1}]


def test_deep_nesting_and_large_in_lists_run_in_sqlite(mem_off: Memory) -> None:
    mem_off.add("x 0", metadata={"k": 499})
    wide = {"k": {"$in": list(range(500))}}
    assert len(mem_off.list(filters=wide)) == 1
    deep: dict[str, Any] = {"k": 499}
    for _ in range(30):
        deep = {"$or": [deep, {"k": -1}]}
    assert len(mem_off.list(filters=deep)) == 1
    combos = [{"k": {"$gt": a, "$lt": b}} for a, b in itertools.product((0, 499), (499, 500))]
    assert [len(mem_off.list(filters=c)) for c in combos] == [0, 1, 0, 0]
