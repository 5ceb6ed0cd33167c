"""``memfold migrate``: a SQLite store copied whole into an empty PostgreSQL store."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from memfold import Memory
from memfold.cli import main
from memfold.embed.local import LocalEmbedder
from memfold.errors import InvalidInput
from memfold.store.postgres import PostgresStore
from memfold.store.postgres.copy import migrate


def _seed(path: Path, embedder: LocalEmbedder) -> dict[str, str]:
    with Memory(path, embedder=embedder, consolidate="sync") as mem:
        tea = mem.add("Hana drinks green tea every morning", user_id="hana").memory.id
        mem.add("Hana drinks green tea every morning.", user_id="hana")  # the rules fold it
        cat = mem.add("Hana has a cat named Tofu", user_id="hana", metadata={"pet": True}).memory
        gone = mem.add("Hana's old phone PIN was 4411", user_id="hana").memory.id
        mem.feedback(cat.id, "used")
        mem.forget(gone)
        mem.add("Ivo plays the cello", user_id="ivo", idempotency_key="ivo-1")
    return {"tea": tea, "cat": cat.id, "gone": gone}


def test_migrate_copies_every_row_and_the_store_works_on(
    tmp_path: Path, pg_url: str, embedder: LocalEmbedder
) -> None:
    src = tmp_path / "src.db"
    ids = _seed(src, embedder)
    digest = hashlib.sha256(src.read_bytes()).hexdigest()
    counts = migrate(src, pg_url)
    assert hashlib.sha256(src.read_bytes()).hexdigest() == digest  # only read
    assert counts["memories"] >= 4 and counts["consolidation_log"] >= 2
    assert counts["erasures"] == 1 and counts["feedback"] == 1
    assert counts["idempotency_keys"] == 1
    with (
        Memory(src, embedder=embedder, consolidate="off") as a,
        Memory(url=pg_url, embedder=embedder, consolidate="off") as b,
    ):
        for scope in ("hana", "ivo"):
            left = [m.to_dict(with_embedding=True) for m in a.list(user_id=scope, status=None)]
            right = [m.to_dict(with_embedding=True) for m in b.list(user_id=scope, status=None)]
            assert right == left
        assert [e.id for e in b.log(limit=100)] == [e.id for e in a.log(limit=100)]
        assert b.store.links_for([ids["tea"]]) and len(b.store.links_for([ids["tea"]])) == len(
            a.store.links_for([ids["tea"]])
        )
        assert b.store.erased_ids([ids["gone"]]).keys() == {ids["gone"]}
        assert b.store.feedback_counts() == a.store.feedback_counts()
        assert b.search("cello", user_id="ivo", k=1)[0].memory.text == "Ivo plays the cello"
        # The idempotency key came along: a retry of the add is answered, not added.
        again = b.add("Ivo plays the cello", user_id="ivo", idempotency_key="ivo-1")
        assert again.replayed and again.memory.text == "Ivo plays the cello"
        assert len(b.list(user_id="ivo")) == 1
        undo_of = next(e for e in b.log(limit=100) if e.action == "UPDATE")
        b.undo(undo_of.id)  # the copied log undoes on PostgreSQL
        assert b.get(ids["tea"]).status.value == "active"
        new = b.add("Ivo tunes the cello weekly", user_id="ivo").memory  # sequences go on
        assert b.store.insertion_order([new.id])[new.id] > max(
            b.store.insertion_order([m.id for m in b.list(user_id="hana", status=None)]).values()
        )
    with pytest.raises(InvalidInput, match="not empty"):
        migrate(src, pg_url)


def test_cli_migrate(
    tmp_path: Path, pg_url: str, embedder: LocalEmbedder, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "cli.db"
    with Memory(src, embedder=embedder, consolidate="off") as mem:
        mem.add("Jun collects stamps", user_id="jun")
    with pytest.raises(SystemExit) as done:
        main(["migrate", "--from", f"sqlite:{src}", "--to", pg_url, "--json"])
    assert done.value.code in (0, None)
    out = json.loads(capsys.readouterr().out)
    assert out["copied"]["memories"] == 1
    store = PostgresStore(pg_url)
    assert [m.text for m in store.list_memories()] == ["Jun collects stamps"]
    store.close()


def test_an_interrupted_migration_leaves_nothing_and_runs_again(
    tmp_path: Path, pg_url: str, embedder: LocalEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    import memfold.store.postgres.copy as copy

    src = tmp_path / "cut.db"
    _seed(src, embedder)
    real = copy._copy_table
    tables: list[str] = []

    def cut_after_two(*args: object) -> int:
        tables.append(str(args[2]))
        if len(tables) == 3:
            raise KeyboardInterrupt  # the copy stopped in the middle (Ctrl-C, a kill)
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(copy, "_copy_table", cut_after_two)
    with pytest.raises(KeyboardInterrupt):
        migrate(src, pg_url)
    monkeypatch.undo()
    store = PostgresStore(pg_url)
    assert store.count_memories() == 0 and store.list_log(limit=1) == []
    store.close()
    # Run again: the same result as a migration never interrupted.
    counts = migrate(src, pg_url)
    with (
        Memory(src, embedder=embedder, consolidate="off") as a,
        Memory(url=pg_url, embedder=embedder, consolidate="off") as b,
    ):
        assert counts["memories"] == len(a.list(user_id="hana", status=None)) + 1
        left = [m.to_dict(with_embedding=True) for m in a.list(user_id="hana", status=None)]
        right = [m.to_dict(with_embedding=True) for m in b.list(user_id="hana", status=None)]
        assert right == left
