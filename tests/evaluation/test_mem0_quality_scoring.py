"""The pure scoring of benchmarks/bench_mem0_quality.py: a final memory list in, the
lost / left-twice / stale verdicts out. No mem0 and no LLM needed."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

from bench_mem0_quality import (  # noqa: E402
    FinalState,
    Stored,
    _mem0_1_update,
    run_order,
    score,
    stratified,
    summarize,
    topic_query,
)
from memfold.evaluation.run_scenarios import Scenario  # noqa: E402


def _scenario(kind: str, existing: tuple[str, ...], new: str) -> Scenario:
    return Scenario(f"t-{kind}", kind, existing, new)


def _state(
    seeded: list[str], active: list[tuple[str, str]], hits: list[tuple[str, str]] | None = None
) -> FinalState:
    return FinalState(
        seeded=tuple(Stored(f"s{i}", t) for i, t in enumerate(seeded)),
        active=tuple(Stored(i, t) for i, t in active),
        hits=tuple(Stored(i, t) for i, t in hits or []),
    )


AIKO = ("Aiko grew up in Sapporo.", "Aiko works as a translator.")
HUSBAND = "Aiko's husband grew up in Sapporo."


def test_distinct_kept_apart_is_ok() -> None:
    state = _state(list(AIKO), [("s0", AIKO[0]), ("s1", AIKO[1]), ("n", HUSBAND)])
    out = score(_scenario("distinct", AIKO, HUSBAND), state)
    assert out["ok"] and not out["lost"] and out["touched"] == 0


def test_distinct_rewritten_in_place_is_lost() -> None:
    # mem0 1.x's UPDATE: the related memory's id now holds the new text.
    state = _state(list(AIKO), [("s0", HUSBAND), ("s1", AIKO[1])])
    out = score(_scenario("distinct", AIKO, HUSBAND), state)
    assert out["lost"] and not out["related_kept"] and out["new_kept"]


def test_distinct_new_fact_not_stored_is_lost() -> None:
    # Nothing extracted, or NONE: the unchanged related memory does not count as holding
    # the new fact, though it shares most of its words.
    existing = ("Giorgos saved 8,000 euros toward a house in 2022.",)
    new = "Giorgos saved 8,000 euros toward a house in 2023."
    out = score(_scenario("distinct", existing, new), _state(list(existing), [("s0", existing[0])]))
    assert out["lost"] and out["related_kept"] and not out["new_kept"]


def test_contradiction_deleted_is_lost() -> None:
    existing = ("Gabriela is allergic to cats.",)
    new = "Gabriela is not allergic to cats."
    kept = score(
        _scenario("contradiction", existing, new),
        _state(list(existing), [("s0", existing[0]), ("n", new)]),
    )
    deleted = score(_scenario("contradiction", existing, new), _state(list(existing), [("n", new)]))
    assert kept["ok"] and not kept["lost"]
    assert deleted["lost"] and not deleted["related_kept"]


DUP = ("The user's favorite cuisine is Ethiopian.", "The user cooks at home on weekends.")
DUP_NEW = "Ethiopian food is the user's favorite cuisine."


def test_duplicate_left_twice_once_or_lost() -> None:
    scenario = _scenario("duplicate", DUP, DUP_NEW)
    twice = score(scenario, _state(list(DUP), [("s0", DUP[0]), ("s1", DUP[1]), ("n", DUP_NEW)]))
    once = score(scenario, _state(list(DUP), [("s0", DUP[0]), ("s1", DUP[1])]))
    lost = score(scenario, _state(list(DUP), [("s1", DUP[1])]))
    assert twice["twice"] and not twice["ok"] and twice["holders"] == 2
    assert once["ok"] and not once["twice"] and not once["lost"]  # the distractor not counted
    assert lost["lost"] and lost["holders"] == 0


def test_touched_distractor_counted() -> None:
    state = _state(list(DUP), [("s0", DUP[0]), ("s1", "The user cooks on weekdays.")])
    assert score(_scenario("duplicate", DUP, DUP_NEW), state)["touched"] == 1


OLD = ("The worker concurrency is set to 8.",)
NEW = "Worker concurrency was raised to 16."


def test_update_applied_when_old_retired_and_new_first() -> None:
    out = score(_scenario("update", OLD, NEW), _state(list(OLD), [("n", NEW)], [("n", NEW)]))
    assert out["ok"] and not out["stale"] and out["retired"]


def test_update_rewritten_in_place_counts_as_retired() -> None:
    state = _state(list(OLD), [("s0", NEW)], [("s0", NEW)])
    assert score(_scenario("update", OLD, NEW), state)["ok"]


def test_update_stale_when_old_still_active() -> None:
    # ADD only: both stay; the new one ranks first, yet the old value is still there.
    state = _state(list(OLD), [("s0", OLD[0]), ("n", NEW)], [("n", NEW), ("s0", OLD[0])])
    out = score(_scenario("update", OLD, NEW), state)
    assert out["stale"] and not out["retired"] and not out["old_first"]


def test_update_unchanged_old_holding_the_new_words_is_not_retired() -> None:
    old = ("The user wants answers in Spanish.",)
    new = "The user now wants answers in English instead of Spanish."
    state = _state(list(old), [("s0", old[0]), ("n", new)], [("n", new), ("s0", old[0])])
    out = score(_scenario("update", old, new), state)
    assert out["stale"] and not out["retired"]


def test_topic_query_is_the_shared_words() -> None:
    assert topic_query(OLD[0], NEW) == "worker concurrency"
    assert topic_query("Mia lives in Oslo.", "Tom moved.") == "Tom moved."


def test_update_old_first_in_search() -> None:
    state = _state(list(OLD), [("s0", OLD[0]), ("n", NEW)], [("s0", OLD[0]), ("n", NEW)])
    out = score(_scenario("update", OLD, NEW), state)
    assert out["stale"] and out["old_first"]
    # The topic search decides "old first" when there is one; the new text's the "ok".
    topic = FinalState(state.seeded, state.active, ((Stored("n", NEW)),), state.hits)
    out = score(_scenario("update", OLD, NEW), topic)
    assert out["stale"] and out["old_first"]
    missing = score(_scenario("update", OLD, NEW), _state(list(OLD), [("s0", OLD[0])], []))
    assert missing["stale"] and not missing["old_first"]  # nothing found at all


def _row(kind: str, **kw: Any) -> dict[str, Any]:
    base = {"kind": kind, "ok": False, "lost": False, "twice": False, "stale": False}
    base.update(old_first=False, touched=0, seconds=1.0, calls=2)
    base.update(prompt_tokens=100, completion_tokens=10, llm_errors=0, error=None)
    return {**base, **kw}


def test_summarize_counts_and_rates() -> None:
    rows = [
        _row("distinct", ok=True),
        _row("distinct", lost=True, touched=1),
        _row("duplicate", twice=True),
        _row("update", stale=True, old_first=True, seconds=3.0, error="boom"),
        _row("contradiction", lost=True, llm_errors=1),
    ]
    s = summarize(rows)
    assert s["ok"] == 1 and s["scenarios"] == 5
    assert s["by_kind"]["distinct"] == {"n": 2, "ok": 1}
    assert (s["distinct_lost"], s["contradictions_lost"]) == (1, 1)
    assert (s["duplicates_twice"], s["updates_stale"], s["updates_old_first"]) == (1, 1, 1)
    assert s["distractors_touched"] == 1
    assert s["llm_calls_per_add"] == 2 and s["tokens_per_add"] == 110
    assert s["seconds_per_add_median"] == 1.0
    assert (s["llm_errors"], s["add_errors"]) == (1, 1)
    assert s["native_agreement"] is None
    assert summarize([_row("distinct", native_ok=True)])["native_agreement"] == "0/1"


def test_stratified_takes_kinds_in_turn() -> None:
    kinds = ["update", "update", "distinct", "duplicate", "contradiction", "distinct"]
    scenarios = [Scenario(str(i), k, ("x",), "y") for i, k in enumerate(kinds)]
    picked = stratified(scenarios, 5)
    assert [s.kind for s in picked] == [
        "distinct",
        "duplicate",
        "update",
        "contradiction",
        "distinct",
    ]
    assert [s.id for s in picked] == ["2", "3", "0", "4", "5"]
    assert stratified(scenarios, None) == scenarios


def test_fake_mem0_1_update_step() -> None:
    prompt = (
        "You are a smart memory manager ...\n```\n[{'id': '0', 'text': 'Aiko grew up in "
        "Sapporo.'}, {'id': '1', 'text': 'Aiko works as a translator.'}]\n```\n"
        "new facts\n```\n[\"Aiko's husband grew up in Sapporo.\", 'Aiko likes tea.']\n```\n"
    )
    events = _mem0_1_update(prompt)["memory"]
    assert events[0]["event"] == "UPDATE" and events[0]["id"] == "0"
    assert events[1]["event"] == "ADD"


def test_run_order_system_major_or_scenario_major() -> None:
    assert run_order(["a", "b"], 2, "system") == [("a", 0), ("a", 1), ("b", 0), ("b", 1)]
    assert run_order(["a", "b"], 2, "scenario") == [("a", 0), ("b", 0), ("a", 1), ("b", 1)]
