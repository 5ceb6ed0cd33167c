"""mem0 2.x's documented OSS calls on ``memfold.mem0.Memory``, the import changed only:
each call as mem0's docs write it, its return read as mem0's users read it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memfold.embed.local import LocalEmbedder
from memfold.mem0 import AsyncMemory, Memory
from memfold.memory import Memory as MemfoldMemory
from memfold.model import Status

CHAT = [
    {"role": "user", "content": "I love hiking in the Yorkshire Dales."},
    {"role": "assistant", "content": "The Dales are lovely for hiking."},
]


@pytest.fixture
def m(tmp_path: Path, embedder: LocalEmbedder) -> Iterator[Memory]:
    inner = MemfoldMemory(tmp_path / "mem0.db", embedder=embedder, consolidate="sync")
    with Memory(memory=inner) as opened:
        yield opened


def _texts(result: dict[str, object]) -> list[str]:
    rows = result["results"]
    assert isinstance(rows, list)
    return [str(r["memory"]) for r in rows]


def test_add_messages_positionally_extracts_and_reports_events(m: Memory) -> None:
    result = m.add(CHAT, user_id="alex")
    (event,) = result["results"]
    assert event["event"] == "ADD"
    assert "hiking" in event["memory"]
    assert set(event) == {"id", "memory", "event"}
    assert m.get(event["id"])["user_id"] == "alex"  # type: ignore[index]


def test_add_a_string_or_one_message_dict(m: Memory) -> None:
    by_string = m.add("I work as a nurse in Leeds", user_id="alex", infer=False)
    one_dict = m.add({"role": "user", "content": "I play chess"}, user_id="alex", infer=False)
    assert _texts(by_string) == ["I work as a nurse in Leeds"]
    assert _texts(one_dict) == ["I play chess"]


def test_add_with_metadata_is_searchable_by_it(m: Memory) -> None:
    m.add("Inception is a favourite", user_id="alex", metadata={"category": "movies"}, infer=False)
    m.add("Tea every morning", user_id="alex", metadata={"category": "food"}, infer=False)
    hits = m.search("favourite", filters={"user_id": "alex", "category": "movies"})
    assert _texts(hits) == ["Inception is a favourite"]
    assert hits["results"][0]["metadata"]["category"] == "movies"


def test_agent_and_run_scopes_are_kept_apart(m: Memory) -> None:
    m.add("Books window seats", agent_id="travel-agent", infer=False)
    m.add("Flies to Lisbon on Friday", user_id="alex", run_id="trip-2025", infer=False)
    m.add("Lives in Leeds", user_id="alex", infer=False)
    agent = m.get_all(filters={"agent_id": "travel-agent"})
    run = m.get_all(filters={"user_id": "alex", "run_id": "trip-2025"})
    user = m.get_all(filters={"user_id": "alex"})
    assert _texts(agent) == ["Books window seats"]
    assert _texts(run) == ["Flies to Lisbon on Friday"]
    assert run["results"][0]["run_id"] == "trip-2025"
    assert _texts(user) == ["Lives in Leeds"]  # memfold's scopes are exact (docs/mem0.md)


def test_search_top_k_threshold_and_scores(m: Memory) -> None:
    for text in ("Alex is vegetarian", "Alex plays the cello", "Alex lives in Leeds"):
        m.add(text, user_id="alex", infer=False)
    hits = m.search("what does Alex eat?", filters={"user_id": "alex"}, top_k=2)
    assert len(hits["results"]) == 2
    assert hits["results"][0]["memory"] == "Alex is vegetarian"
    scores = [h["score"] for h in hits["results"]]
    assert scores == sorted(scores, reverse=True)
    strict = m.search("what does Alex eat?", filters={"user_id": "alex"}, threshold=0.99)
    assert strict["results"] == []


def test_search_with_mem0_operators(m: Memory) -> None:
    for n, text in enumerate(("Ran 5 km", "Ran 10 km", "Ran 21 km")):
        m.add(text, user_id="alex", metadata={"km": [5, 10, 21][n]}, infer=False)
    hits = m.search(
        "ran", filters={"user_id": "alex", "OR": [{"km": {"gte": 20}}, {"km": {"eq": 5}}]}
    )
    assert sorted(_texts(hits)) == ["Ran 21 km", "Ran 5 km"]
    hits = m.search("ran", filters={"user_id": "alex", "km": {"in": [10]}})
    assert _texts(hits) == ["Ran 10 km"]


def test_get_all_top_k_oldest_first(m: Memory) -> None:
    for n in range(5):
        m.add(f"Fact number {n} about a distinct topic {n * 7}", user_id="alex", infer=False)
    assert len(m.get_all(filters={"user_id": "alex"})["results"]) == 5
    first = m.get_all(filters={"user_id": "alex"}, top_k=2)
    assert _texts(first) == [
        "Fact number 0 about a distinct topic 0",
        "Fact number 1 about a distinct topic 7",
    ]


def test_get_returns_mem0s_item_or_none(m: Memory) -> None:
    (added,) = m.add("Alex owns a bike", user_id="alex", infer=False)["results"]
    item = m.get(added["id"])
    assert item is not None
    assert item["memory"] == "Alex owns a bike"
    assert {"id", "memory", "hash", "created_at", "updated_at", "user_id"} <= set(item)
    assert m.get("0" * 32) is None


def test_update_by_text_or_mem0s_older_data_argument(m: Memory) -> None:
    (added,) = m.add("Alex owns a bike", user_id="alex", infer=False)["results"]
    assert m.update(added["id"], "Alex owns two bikes") == {
        "message": "Memory updated successfully!"
    }
    assert m.get(added["id"])["memory"] == "Alex owns two bikes"  # type: ignore[index]
    m.update(memory_id=added["id"], data="Alex owns three bikes")
    m.update(added["id"], metadata={"kind": "possession"})
    item = m.get(added["id"])
    assert item is not None
    assert item["memory"] == "Alex owns three bikes"
    assert item["metadata"]["kind"] == "possession"


def test_history_lists_add_update_delete(m: Memory) -> None:
    (added,) = m.add("Alex owns a bike", user_id="alex", infer=False)["results"]
    m.update(added["id"], text="Alex owns two bikes")
    m.delete(added["id"])
    rows = m.history(added["id"])
    assert [r["event"] for r in rows] == ["ADD", "UPDATE", "DELETE"]
    assert rows[1]["old_memory"] == "Alex owns a bike"
    assert rows[1]["new_memory"] == "Alex owns two bikes"
    assert rows[2]["is_deleted"] is True


def test_delete_hides_it_from_mem0_but_memfold_keeps_it(m: Memory) -> None:
    (added,) = m.add("Alex owns a bike", user_id="alex", infer=False)["results"]
    assert m.delete(added["id"]) == {"message": "Memory deleted successfully!"}
    assert m.get(added["id"]) is None
    assert m.get_all(filters={"user_id": "alex"})["results"] == []
    assert m.memory.get(added["id"]).status is Status.ARCHIVED  # undoable


def test_delete_all_archives_one_scope_only(m: Memory) -> None:
    m.add("Alex owns a bike", user_id="alex", infer=False)
    m.add("Sam owns a car", user_id="sam", infer=False)
    assert m.delete_all(user_id="alex") == {"message": "Memories deleted successfully!"}
    assert m.get_all(filters={"user_id": "alex"})["results"] == []
    assert _texts(m.get_all(filters={"user_id": "sam"})) == ["Sam owns a car"]


def test_reset_erases_everything(m: Memory) -> None:
    m.add("Alex owns a bike", user_id="alex", infer=False)
    m.add("Books aisle seats", agent_id="travel", infer=False)
    m.add("Sam owns a car", user_id="sam", run_id="r1", infer=False)
    m.reset()
    assert m.memory.list_scopes() == []


def test_a_restatement_is_folded_and_reported_as_mem0_does(m: Memory) -> None:
    first = m.add("Alex lives in Leeds", user_id="alex", infer=False)["results"][0]
    again = m.add("Alex lives in Leeds", user_id="alex", infer=False)["results"]
    assert [e["event"] for e in again] in (["NONE"], ["UPDATE"])
    assert again[0]["id"] == first["id"]
    assert len(m.get_all(filters={"user_id": "alex"})["results"]) == 1


def test_from_config_opens_the_store_it_names(tmp_path: Path) -> None:
    path = tmp_path / "configured.db"
    with Memory.from_config({"path": str(path), "version": "v1.1"}) as m:
        assert m.memory.path == path
        assert not m.memory.settings.llm.configured


async def test_async_memory_runs_the_same_calls(tmp_path: Path, embedder: LocalEmbedder) -> None:
    inner = MemfoldMemory(tmp_path / "async.db", embedder=embedder, consolidate="sync")
    async with AsyncMemory(memory=inner) as m:
        (added,) = (await m.add("Alex rows on Sundays", user_id="alex", infer=False))["results"]
        hits = await m.search("rowing", filters={"user_id": "alex"}, top_k=1)
        assert [h["id"] for h in hits["results"]] == [added["id"]]
        await m.update(added["id"], text="Alex rows on Saturdays")
        assert (await m.get(added["id"]))["memory"] == "Alex rows on Saturdays"  # type: ignore[index]
        assert [r["event"] for r in await m.history(added["id"])] == ["ADD", "UPDATE"]
        await m.delete_all(user_id="alex")
        assert (await m.get_all(filters={"user_id": "alex"}))["results"] == []


def test_expired_memories_only_on_request(m: Memory) -> None:
    (gone,) = m.add(
        "Alex holds a coupon", user_id="alex", infer=False, expiration_date="2020-01-01"
    )["results"]
    m.add("Alex holds a library card", user_id="alex", infer=False)
    assert _texts(m.get_all(filters={"user_id": "alex"})) == ["Alex holds a library card"]
    both = m.search("coupon", filters={"user_id": "alex"}, show_expired=True)
    assert "Alex holds a coupon" in _texts(both)
    assert "Alex holds a coupon" not in _texts(m.search("coupon", filters={"user_id": "alex"}))
    item = m.get(gone["id"])
    assert item is not None and item["expiration_date"] == "2020-01-01"
