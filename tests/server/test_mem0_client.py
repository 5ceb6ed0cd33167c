"""mem0's own ``MemoryClient`` (the ``mem0ai`` package) pointed at ``memfold serve``
with its ``host`` argument and a memfold key: the real client against a real server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mem0 import exceptions as mem0_errors
from mem0.client import main as mem0_client

from memfold.embed.local import LocalEmbedder
from server.live import Live, live_server


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory, embedder: LocalEmbedder) -> Iterator[Live]:
    path: Path = tmp_path_factory.mktemp("mem0") / "memfold.db"
    with live_server(path, embedder, consolidate="sync") as live:
        yield live


def client(live: Live, user: str, role: str = "write") -> Any:
    return mem0_client.MemoryClient(
        api_key=live.key(role, user_id=user), host=f"{live.base_url}/mem0"
    )


def test_every_documented_call_works(served: Live) -> None:
    c = client(served, "alex")
    added = c.add(
        [{"role": "user", "content": "I love hiking in the Yorkshire Dales."}], user_id="alex"
    )
    (event,) = added["results"]
    assert event["event"] == "ADD" and "hiking" in event["memory"]
    c.add("Alex is vegetarian", user_id="alex", infer=False, metadata={"topic": "food"})

    hits = c.search("what does Alex eat?", filters={"user_id": "alex"}, top_k=1)
    assert [h["memory"] for h in hits["results"]] == ["Alex is vegetarian"]
    assert hits["results"][0]["score"] > 0
    only_food = c.search("Alex", filters={"user_id": "alex", "topic": {"eq": "food"}})
    assert [h["memory"] for h in only_food["results"]] == ["Alex is vegetarian"]
    by_word = c.search("vegetarian", filters={"user_id": "alex"}, keyword_search=True)
    assert [h["memory"] for h in by_word["results"]] == ["Alex is vegetarian"]

    page = c.get_all(filters={"user_id": "alex"})
    assert page["count"] == 2 and len(page["results"]) == 2
    food = next(r for r in page["results"] if r["memory"] == "Alex is vegetarian")

    assert c.get(food["id"])["memory"] == "Alex is vegetarian"
    assert c.get(food["id"][:8])["id"] == food["id"]  # the short ids memfold prints
    assert c.update(food["id"], text="Alex is vegan")["memory"] == "Alex is vegan"
    events = [r["event"] for r in c.history(food["id"])]
    assert events == ["ADD", "UPDATE"]

    assert c.delete(food["id"]) == {"message": "Memory deleted successfully!"}
    with pytest.raises(mem0_errors.MemoryNotFoundError):
        c.get("0" * 32)
    assert c.get_all(filters={"user_id": "alex"})["count"] == 1
    assert c.delete_all(user_id="alex") == {"message": "Memories deleted successfully!"}
    assert c.get_all(filters={"user_id": "alex"})["results"] == []
    # memfold kept what mem0's calls deleted: undoable, and in memfold's own history
    assert served.memory.get(food["id"]).status.value == "archived"


def test_get_all_pages_as_mem0_does(served: Live) -> None:
    c = client(served, "pager")
    for n in range(5):
        c.add(f"Distinct fact {n}: topic {n * 11}", user_id="pager", infer=False)
    first = c.get_all(filters={"user_id": "pager"}, page=1, page_size=2)
    third = c.get_all(filters={"user_id": "pager"}, page=3, page_size=2)
    assert first["count"] == 5 and len(first["results"]) == 2
    assert first["next"] is not None and first["previous"] is None
    assert [r["memory"] for r in third["results"]] == ["Distinct fact 4: topic 44"]
    assert third["next"] is None


def test_a_key_sees_only_its_own_user(served: Live) -> None:
    alice, bob = client(served, "alice"), client(served, "bob")
    (mine,) = alice.add("Alice keeps bees", user_id="alice", infer=False)["results"]
    with pytest.raises(mem0_errors.MemoryNotFoundError):
        bob.get(mine["id"])
    with pytest.raises(mem0_errors.MemoryNotFoundError):
        bob.search("bees", filters={"user_id": "alice"})
    with pytest.raises(mem0_errors.MemoryNotFoundError):
        bob.delete(mine["id"])
    assert bob.get_all(filters={"user_id": "bob"})["results"] == []
    assert alice.get(mine["id"])["memory"] == "Alice keeps bees"


def test_a_read_key_cannot_write(served: Live) -> None:
    reader = client(served, "alice", role="read")
    with pytest.raises(mem0_errors.MemoryError):
        reader.add("Alice keeps wasps", user_id="alice", infer=False)


def test_a_wrong_key_fails_at_construction(served: Live) -> None:
    with pytest.raises(ValueError, match="valid API key"):
        mem0_client.MemoryClient(api_key="mf_wrong", host=f"{served.base_url}/mem0")


def test_unsupported_fields_are_named(served: Live) -> None:
    c = client(served, "carol")
    with pytest.raises(mem0_errors.ValidationError, match="custom_categories"):
        c.add("x y z", user_id="carol", custom_categories=[{"a": "b"}])
    with pytest.raises(mem0_errors.ValidationError, match="rerank"):
        c.search("x", filters={"user_id": "carol"}, rerank=True)


def test_ids_in_filters_or_on_top_must_agree(served: Live) -> None:
    c = client(served, "dana")
    c.add("Dana sails", filters={"user_id": "dana"}, infer=False)
    assert c.get_all(filters={"user_id": "dana"})["count"] == 1
    with pytest.raises(mem0_errors.ValidationError, match="given twice"):
        c.add("Dana rows", user_id="dana", filters={"user_id": "dan"}, infer=False)
