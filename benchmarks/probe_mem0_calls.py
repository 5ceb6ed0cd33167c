"""mem0 2.x's documented OSS calls, written as mem0's docs write them, run on
``memfold.mem0.Memory`` with the import changed only; prints which work, and what
the calls memfold has no equivalent for raise.

    .venv/bin/python benchmarks/probe_mem0_calls.py [--out FILE]

docs/mem0.md quotes the table. (tests/mem0_dropin/ asserts each call's result.) The same
rows are written as JSON to ``--out``.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench_common import parser, table, write_json
from memfold.mem0 import Memory

MESSAGES = [
    {"role": "user", "content": "I'm planning to watch a movie tonight. Any thoughts?"},
    {"role": "assistant", "content": "How about a thriller?"},
    {"role": "user", "content": "I love sci-fi movies and I hate thrillers."},
]
Call = tuple[str, Callable[[Memory, dict[str, Any]], Any]]


def documented() -> list[Call]:
    """The calls of mem0 2.2's OSS docs (quickstart, add, search, get, update, delete,
    history, reset, config), in the order a reader meets them."""

    def first_id(m: Memory, _: dict[str, Any]) -> str:
        return str(m.get_all(filters={"user_id": "alex"})["results"][0]["id"])

    return [
        ("m.add(messages, user_id='alex')", lambda m, s: m.add(MESSAGES, user_id="alex")),
        (
            "m.add(messages, user_id=..., metadata={'category': 'movies'})",
            lambda m, s: m.add(MESSAGES, user_id="alex", metadata={"category": "movies"}),
        ),
        (
            "m.add(messages, user_id=..., infer=False)",
            lambda m, s: m.add(MESSAGES, user_id="alex", infer=False),
        ),
        (
            "m.add(messages, agent_id='movie-bot')",
            lambda m, s: m.add(MESSAGES, agent_id="movie-bot"),
        ),
        (
            "m.add(messages, user_id=..., run_id='night-1')",
            lambda m, s: m.add(MESSAGES, user_id="alex", run_id="night-1"),
        ),
        (
            "m.add('I like tennis', user_id=...)",
            lambda m, s: m.add("I like tennis", user_id="alex"),
        ),
        (
            "m.add(..., expiration_date='2030-01-01')",
            lambda m, s: m.add(
                "I rent a flat in Leeds", user_id="alex", expiration_date="2030-01-01"
            ),
        ),
        (
            "m.search(q, filters={'user_id': 'alex'})",
            lambda m, s: m.search("what movies?", filters={"user_id": "alex"})["results"][0][
                "memory"
            ],
        ),
        (
            "m.search(q, filters=..., top_k=3)",
            lambda m, s: m.search("movies", filters={"user_id": "alex"}, top_k=3),
        ),
        (
            "m.search(q, filters=..., threshold=0.3)",
            lambda m, s: m.search("movies", filters={"user_id": "alex"}, threshold=0.3),
        ),
        (
            "m.search(q, filters={'user_id': ..., 'category': 'movies'})",
            lambda m, s: m.search("movies", filters={"user_id": "alex", "category": "movies"}),
        ),
        (
            "m.search(q, filters={..., 'OR': [...]})",
            lambda m, s: m.search(
                "movies",
                filters={
                    "user_id": "alex",
                    "OR": [{"category": "movies"}, {"category": {"in": ["x"]}}],
                },
            ),
        ),
        (
            "m.search(q, filters=..., show_expired=True)",
            lambda m, s: m.search("flat", filters={"user_id": "alex"}, show_expired=True),
        ),
        (
            "m.get_all(filters={'user_id': 'alex'})",
            lambda m, s: m.get_all(filters={"user_id": "alex"}),
        ),
        (
            "m.get_all(filters=..., top_k=50)",
            lambda m, s: m.get_all(filters={"user_id": "alex"}, top_k=50),
        ),
        ("m.get(memory_id)", lambda m, s: m.get(s.setdefault("id", first_id(m, s)))),
        (
            "m.update(memory_id, 'new text')",
            lambda m, s: m.update(s["id"], "Alex loves sci-fi films"),
        ),
        (
            "m.update(memory_id=..., data=...)",
            lambda m, s: m.update(memory_id=s["id"], data="Alex loves sci-fi movies"),
        ),
        ("m.history(memory_id)", lambda m, s: m.history(s["id"])),
        ("m.delete(memory_id)", lambda m, s: m.delete(s["id"])),
        ("m.delete_all(user_id='alex')", lambda m, s: m.delete_all(user_id="alex")),
        ("m.reset()", lambda m, s: m.reset()),
        ("Memory.from_config({...})", lambda m, s: Memory.from_config({"path": s["path"]}).close()),
    ]


def refused() -> list[Call]:
    """mem0 arguments memfold has no equivalent for: each must raise, naming itself."""
    return [
        (
            "m.search(q, filters=..., rerank=True)",
            lambda m, s: m.search("x", filters={"user_id": "a"}, rerank=True),
        ),
        (
            "m.search(q, filters={..., 'NOT': [...]})",
            lambda m, s: m.search("x", filters={"user_id": "a", "NOT": [{"k": 1}]}),
        ),
        (
            "m.add(..., memory_type='procedural_memory')",
            lambda m, s: m.add("x y", agent_id="a", memory_type="procedural_memory"),
        ),
        (
            "Memory.from_config({'vector_store': {'provider': 'qdrant'}})",
            lambda m, s: Memory.from_config({"vector_store": {"provider": "qdrant"}}),
        ),
    ]


def run(calls: list[Call], m: Memory, state: dict[str, Any]) -> list[tuple[str, str]]:
    out = []
    for name, call in calls:
        try:
            call(m, state)
            out.append((name, "works"))
        except Exception as exc:  # the probe reports whatever happens
            out.append((name, f"raises {type(exc).__name__}: {str(exc)[:70]}"))
    return out


def main() -> None:
    args = parser((__doc__ or "").split("\n\n")[0], "probe_mem0_calls.json").parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = str(Path(folder) / "mem0-probe.db")
        state: dict[str, Any] = {"path": str(Path(folder) / "configured.db")}
        with Memory(path) as m:
            done = run(documented(), m, state)
            refusals = run(refused(), m, state)
    works = sum(r == "works" for _, r in done)
    named = sum(r.startswith("raises") for _, r in refusals)
    table(
        f"mem0 2.x documented OSS calls: {works} of {len(done)} work", done, ("call", "on memfold")
    )
    table(f"no equivalent: {named} of {len(refusals)} raise", refusals, ("call", "on memfold"))
    result = {
        "documented_calls": len(done),
        "documented_work": works,
        "refused_calls": len(refusals),
        "refused_raise": named,
        "documented": [{"call": name, "on_memfold": r} for name, r in done],
        "refused": [{"call": name, "on_memfold": r} for name, r in refusals],
    }
    write_json(args.out, result)


if __name__ == "__main__":
    main()
