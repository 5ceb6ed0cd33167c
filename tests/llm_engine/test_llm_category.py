"""The LLM judge's category of a new memory, carried by the consolidation reply (no
extra call): applied where the caller gave none, recorded as category_source 'judge',
undone with its change; an invalid one is dropped and the decision stands."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memfold import Category, Memory, Settings, Status
from memfold.embed.local import LocalEmbedder
from memfold.judge.llm import judged_category
from memfold.model import CategorySource
from memfold.store.sqlite import SQLiteStore
from memfold.store.sqlite.schema import MIGRATIONS
from memfold.testing.fake_llm import FakeLLMServer
from memfold.testing.fake_replies import Reply, confident, logprob_tokens, user_payload


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as srv:
        yield srv


def _memory(
    request: pytest.FixtureRequest, backend: str, server: FakeLLMServer, embedder: LocalEmbedder
) -> Memory:
    """A sync Memory on ``backend`` whose every judged save goes to the scripted server."""
    settings = Settings(
        llm={
            "base_url": server.base_url,
            "model": "fake-model",
            "api_key": "k",
            "utility": {"timeout_s": 2.0, "max_retries": 1},
            "rules_first_confidence": None,
        }
    )
    kw: dict[str, Any] = {"settings": settings, "embedder": embedder, "consolidate": "sync"}
    if backend == "postgres":
        return Memory(url=request.getfixturevalue("pg_url"), **kw)
    return Memory(request.getfixturevalue("db_path"), **kw)


def _reply(action: str, category: object, text: str | None = None) -> Any:
    """A responder deciding every item with ``action`` on candidate 1 and ``category``."""

    def respond(body: dict[str, Any]) -> Reply:
        decisions = []
        for item in user_payload(body)["items"]:
            decision: dict[str, Any] = {
                "item": item["item"],
                "reasoning": f"scripted {action}",
                "action": action,
                "targets": [] if action == "ADD" else [1],
                "confidence": 0.95,
            }
            if text is not None:
                decision["text"] = text
            if category is not None:
                decision["category"] = category
            decisions.append(decision)
        return confident({"decisions": decisions})

    return respond


# (action, older memory, new memory, text of the reply, the memory that keeps the content)
CASES = [
    ("KEEP_SEPARATE", "Zoe visited Japan in 2019.", "Zoe visited Japan in 2022.", None, "new"),
    (
        "UPDATE",
        "The weekly team retro is held on Thursdays at the main office.",
        "The weekly team retro is held on Thursdays at the main office, in room 4B.",
        "The weekly team retro is held on Thursdays at the main office, in room 4B.",
        "target",
    ),
    (
        "MERGE",
        "Kim waters the office plants every Monday morning before the weekly standup.",
        "Kim waters the office plants every Monday morning at nine before the standup.",
        "Kim waters the office plants every Monday morning at nine before the weekly standup.",
        "merged",
    ),
    (
        "REPLACE",
        "Leo works at Finch Labs as a backend developer.",
        "Leo is a backend developer at Finch Labs.",
        None,
        "new",
    ),
    (
        "DELETE",
        "The nightly backup starts at 01:30.",
        "The nightly backup now starts at 03:00.",
        None,
        "new",
    ),
]


@pytest.mark.parametrize(("action", "old", "new", "text", "keeper"), CASES)
def test_the_judges_category_lands_on_the_memory_that_keeps_the_content(
    request: pytest.FixtureRequest,
    backend: str,
    server: FakeLLMServer,
    embedder: LocalEmbedder,
    action: str,
    old: str,
    new: str,
    text: str | None,
    keeper: str,
) -> None:
    server.set_script(_reply(action, "procedural", text))
    with _memory(request, backend, server, embedder) as mem:
        first = mem.add(old, user_id="u").memory
        assert first.category_source is CategorySource.RULES
        assert first.category is not Category.PROCEDURAL  # the rules read it otherwise
        result = mem.add(new, user_id="u")
        assert server.request_count("/chat/completions") == 1
        assert result.decision is not None and result.decision.action.value == action
        assert result.decision.category is Category.PROCEDURAL
        if keeper == "new":
            kept = mem.get(result.memory.id)
        elif keeper == "target":
            kept = mem.get(first.id)
        else:
            (kept,) = [m for m in mem.list(user_id="u") if m.consolidated_from]
        assert kept.status is Status.ACTIVE
        assert (kept.category, kept.category_source) == (
            Category.PROCEDURAL,
            CategorySource.JUDGE,
        )
        entry = mem.log(1)[0]
        assert entry.action == action
        assert entry.after["memories"][kept.id]["category"] == "procedural"


def test_a_category_the_caller_gave_stays(
    request: pytest.FixtureRequest, backend: str, server: FakeLLMServer, embedder: LocalEmbedder
) -> None:
    server.set_script(_reply("KEEP_SEPARATE", "procedural"))
    with _memory(request, backend, server, embedder) as mem:
        mem.add("Zoe visited Japan in 2019.", user_id="u")
        result = mem.add("Zoe visited Japan in 2022.", user_id="u", category="semantic")
        assert server.request_count("/chat/completions") == 1
        assert result.decision is not None and result.decision.category is Category.PROCEDURAL
        kept = mem.get(result.memory.id)
        assert (kept.category, kept.category_source) == (Category.SEMANTIC, CategorySource.GIVEN)
        assert kept.version == 1  # nothing to write: the decision changed nothing of it


@pytest.mark.parametrize("category", ["core", "summary", "recipe", 7, ["episodic"]])
def test_an_invalid_category_is_ignored_and_the_decision_stands(
    request: pytest.FixtureRequest,
    backend: str,
    server: FakeLLMServer,
    embedder: LocalEmbedder,
    category: object,
) -> None:
    server.set_script(_reply("KEEP_SEPARATE", category))
    with _memory(request, backend, server, embedder) as mem:
        mem.add("Zoe visited Japan in 2019.", user_id="u")
        result = mem.add("Zoe visited Japan in 2022.", user_id="u")
        assert result.decision is not None
        assert result.decision.action.value == "KEEP_SEPARATE" and result.decision.category is None
        kept = mem.get(result.memory.id)
        assert (kept.category, kept.category_source) == (Category.EPISODIC, CategorySource.RULES)
        assert mem.log(1)[0].action == "KEEP_SEPARATE"


def test_undo_restores_the_category_the_rules_gave(
    request: pytest.FixtureRequest, backend: str, server: FakeLLMServer, embedder: LocalEmbedder
) -> None:
    server.set_script(_reply("ADD", "semantic"))
    with _memory(request, backend, server, embedder) as mem:
        mem.add("Zoe visited Japan in 2019.", user_id="u")
        result = mem.add("Zoe visited Japan in 2022.", user_id="u")
        assert result.log_id is not None
        judged = mem.get(result.memory.id)
        assert (judged.category, judged.category_source) == (
            Category.SEMANTIC,
            CategorySource.JUDGE,
        )
        mem.undo(result.log_id)
        back = mem.get(result.memory.id)
        assert (back.category, back.category_source) == (Category.EPISODIC, CategorySource.RULES)
        assert back.status is Status.ACTIVE


def test_the_rules_judge_leaves_the_rules_category(
    backend: str, request: pytest.FixtureRequest, embedder: LocalEmbedder
) -> None:
    kw: dict[str, Any] = {"embedder": embedder, "consolidate": "sync"}
    path = request.getfixturevalue("db_path")
    with (
        Memory(url=request.getfixturevalue("pg_url"), **kw)
        if backend == "postgres"
        else Memory(path, **kw)
    ) as mem:
        mem.add("Always run the tests before you push.", user_id="u")
        result = mem.add("Always run the unit tests before you push to main.", user_id="u")
        assert result.decision is not None and result.decision.category is None
        kept = mem.get(result.memory.id)
        assert (kept.category, kept.category_source) == (
            Category.PROCEDURAL,
            CategorySource.RULES,
        )


def test_judged_category_reads_only_the_three_a_model_may_give() -> None:
    assert judged_category(" Episodic ") is Category.EPISODIC
    assert judged_category("procedural") is Category.PROCEDURAL
    for bad in (None, "", "core", "summary", "fact", 3, {"category": "semantic"}):
        assert judged_category(bad) is None


def test_rows_from_before_the_column_read_given(tmp_path: Path) -> None:
    """An older file's memories cannot tell a caller's category from the rules' guess:
    they read 'given', so no judge decision ever overrides what may be a choice."""
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path)
    for version, script in MIGRATIONS:
        if version >= 11:  # the migration under test, and those after it
            break
        conn.executescript(script)
        conn.execute(f"PRAGMA user_version={version}")
    conn.execute(
        "INSERT INTO memories (id, scope_key, user_id, text, category, created_at, "
        "updated_at, content_hash, seq) VALUES ('old1', 'u=a|a=|s=', 'a', 'We met in May', "
        "'episodic', '2025-01-01T00:00:00+00:00', '2025-01-01T00:00:00+00:00', 'h', 1)"
    )
    conn.commit()
    conn.close()
    store = SQLiteStore(path)
    record = store.get_memory("old1")
    assert record is not None and record.category is Category.EPISODIC
    assert record.category_source is CategorySource.GIVEN
    store.close()


def test_postgres_rows_from_before_the_column_read_given(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import memfold.store.postgres.connection as connection
    from memfold.store.postgres import PostgresStore
    from memfold.store.postgres.schema import MIGRATIONS as PG_MIGRATIONS

    with monkeypatch.context() as patched:
        before = [(v, sql) for v, sql in PG_MIGRATIONS if v < 7]  # 7 added the column
        patched.setattr(connection, "MIGRATIONS", before)
        patched.setattr(connection, "LATEST_VERSION", before[-1][0])
        old = PostgresStore(pg_url)
        old._db.write(
            "INSERT INTO memories (id, scope_key, user_id, text, category, created_at, "
            "updated_at, content_hash, seq) VALUES ('old1', 'u=a|a=|s=', 'a', 'We met in May', "
            "'episodic', now(), now(), 'h', 1)"
        )
        old.close()
    store = PostgresStore(pg_url)
    record = store.get_memory("old1")
    assert record is not None and record.category is Category.EPISODIC
    assert record.category_source is CategorySource.GIVEN
    store.close()


def test_a_later_save_of_the_batch_keeps_its_decision_after_a_category_restamp(
    db_path: Path, server: FakeLLMServer, embedder: LocalEmbedder
) -> None:
    # Two saves judged in one call: the first's KEEP_SEPARATE re-versions it (the
    # judge's category), and the second lists it as a candidate. That re-stamp is the
    # batch's own: the second decision applies in the same flush instead of meeting a
    # version conflict and waiting for a retry.
    server.set_script(_reply("KEEP_SEPARATE", "procedural"))
    settings = Settings(
        llm={
            "base_url": server.base_url,
            "model": "fake-model",
            "api_key": "k",
            "utility": {"timeout_s": 2.0, "max_retries": 1},
            "rules_first_confidence": None,
        }
    )
    with Memory(db_path, settings=settings, embedder=embedder, consolidate="queue") as mem:
        mem.add("Zoe visited Japan in 2019 with her sister.", user_id="u")
        mem.flush()  # nothing similar yet: added without a call
        first = mem.add("Zoe visited Japan in 2022 with her sister.", user_id="u").memory.id
        second = mem.add("Zoe visited Japan in 2023 with her sister.", user_id="u").memory.id
        mem.flush()
        assert server.request_count("/chat/completions") == 1  # both in one call
        assert mem.store.count_jobs("pending") == 0
        assert mem.get(first).category is Category.PROCEDURAL
        assert mem.get(second).category is Category.PROCEDURAL
        assert {e.input_ids[0] for e in mem.log(100) if e.action == "KEEP_SEPARATE"} == {
            first,
            second,
        }


def _importance_reply(action: str, importance: float, area: str = "main") -> Any:
    """Line replies: ``action`` on candidate 1 (none for ADD) with ``importance`` and
    ``area``."""

    def respond(body: dict[str, Any]) -> Reply:
        lines = []
        for item in user_payload(body)["items"]:
            target = "-" if action in ("ADD", "KEEP_SEPARATE") else "1"
            score = round(importance * 10)
            lines.append(f"{item['item']} {action} {target} semantic {area} {score}")
        text = "\n".join(lines)
        return Reply(text, logprobs=logprob_tokens(text, {action: 0.95}))

    return respond


@pytest.mark.parametrize("action", ["KEEP_SEPARATE", "DELETE"])
def test_the_judge_may_raise_the_new_memorys_importance_never_lower_it(
    request: pytest.FixtureRequest,
    backend: str,
    server: FakeLLMServer,
    embedder: LocalEmbedder,
    action: str,
) -> None:
    old, new = "The nightly backup starts at 01:30.", "The nightly backup now starts at 03:00."
    server.set_script(_importance_reply(action, 0.9))
    with _memory(request, backend, server, embedder) as mem:
        first = mem.add(old, user_id="u").memory  # importance 0.5, no judge asked
        result = mem.add(new, user_id="u")
        assert result.decision is not None and result.decision.action.value == action
        kept = mem.get(result.memory.id)
        assert kept.importance == pytest.approx(0.9)
        assert kept.stability > first.stability  # a vital fact fades slower
        server.set_script(_importance_reply(action, 0.1))
        low = mem.add("The weekly backup starts at 02:00 on Sundays.", user_id="u", importance=0.7)
        assert mem.get(low.memory.id).importance == pytest.approx(0.7)


def test_the_judges_area_lands_on_the_memory_and_in_search_filters(
    request: pytest.FixtureRequest, backend: str, server: FakeLLMServer, embedder: LocalEmbedder
) -> None:
    """Seed 000: the LLM assigns the new memory's area during consolidation."""
    server.set_script(_importance_reply("KEEP_SEPARATE", 0.5, area="solutions"))
    with _memory(request, backend, server, embedder) as mem:
        mem.add("The CI cache broke after the runner upgrade.", user_id="u")
        new = mem.add(
            "The CI cache broke after the runner upgrade; clearing ~/.cache/pip fixed it.",
            user_id="u",
        ).memory
        assert mem.get(new.id).area.value == "solutions"
        hits = mem.search("CI cache fix", user_id="u", area="solutions")
        assert [h.id for h in hits] == [new.id]
        assert new.id not in [h.id for h in mem.search("CI cache fix", user_id="u", area="main")]
