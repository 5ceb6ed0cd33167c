"""Searches never write: access counts go to an in-process buffer, written in batches
(engine/access.py). Real SQLite files; the write lock is held by another process."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

import pytest

from memfold import Memory, Settings
from memfold.embed.local import LocalEmbedder

HOLD_LOCK = textwrap.dedent(
    """
    import sqlite3, sys
    conn = sqlite3.connect(sys.argv[1], isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")
    print("locked", flush=True)
    sys.stdin.read()  # until the test closes our stdin
    conn.execute("ROLLBACK")
    """
)


def _settings(count: int = 1000, age_s: float = 60.0, busy_ms: int = 30_000) -> Settings:
    return Settings(
        store={
            "access_flush_count": count,
            "access_flush_age_s": age_s,
            "busy_timeout_ms": busy_ms,
        }
    )


def _stored_counts(path: Path) -> dict[str, tuple[int, str | None]]:
    """access_count and last_access_at as the file holds them (a separate connection)."""
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute("SELECT text, access_count, last_access_at FROM memories").fetchall()
    finally:
        conn.close()
    return {text: (count, last) for text, count, last in rows}


def _wait_for(predicate: Callable[[], object], timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return False


@contextmanager
def write_lock_held(path: Path) -> Iterator[None]:
    """Another process holds the file's write lock (BEGIN IMMEDIATE) meanwhile."""
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_LOCK, str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
    try:
        yield
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(timeout=10)


def _seed(db_path: Path, embedder: LocalEmbedder) -> None:
    with Memory(db_path, embedder=embedder, consolidate="off") as mem:
        mem.add("Sam lives in Berlin", user_id="s")
        mem.add("Sam keeps a cat named Miso", user_id="s")


def test_search_completes_and_writes_nothing_while_another_process_holds_the_lock(
    db_path: Path, embedder: LocalEmbedder
) -> None:
    _seed(db_path, embedder)
    # A 1.5 s busy timeout: a search that wrote would wait 1.5 s, then fail "locked".
    # Flush count 1: the flush thread tries at once, meets the lock, keeps the counts.
    settings = _settings(count=1, busy_ms=1500)
    mem = Memory(db_path, embedder=embedder, consolidate="off", settings=settings)
    accesses = mem.ctx.accesses
    assert accesses is not None
    with write_lock_held(db_path):
        started = time.monotonic()
        for _ in range(3):
            hits = mem.search("Where does Sam live?", user_id="s", k=1)
            assert hits[0].memory.text == "Sam lives in Berlin"
        assert time.monotonic() - started < 1.0
        assert mem.get(hits[0].memory.id).access_count == 3  # this process's, unwritten
        assert _wait_for(lambda: accesses._failures > 0)
        assert _stored_counts(db_path)["Sam lives in Berlin"] == (0, None)
        assert accesses.pending() == 3
    mem.close()  # the lock is gone: close writes them
    assert _stored_counts(db_path)["Sam lives in Berlin"][0] == 3


def test_busy_flush_keeps_counts_and_a_later_flush_writes_them(
    db_path: Path, embedder: LocalEmbedder
) -> None:
    _seed(db_path, embedder)
    mem = Memory(db_path, embedder=embedder, consolidate="off", settings=_settings(busy_ms=200))
    accesses = mem.ctx.accesses
    assert accesses is not None
    with write_lock_held(db_path):
        mem.search("Berlin", user_id="s", mode="keyword")
        mem.search("Berlin", user_id="s", mode="keyword")
        assert mem.flush() == 0  # the file is busy: nothing written, nothing dropped
        assert accesses.pending() == 2
    mem.flush()
    assert _stored_counts(db_path)["Sam lives in Berlin"][0] == 2
    assert accesses.pending() == 0
    assert mem.get(mem.list(user_id="s")[0].id).access_count == 2  # not counted twice
    mem.close()


def test_counts_are_written_in_one_batch_when_the_buffer_is_full(
    db_path: Path, embedder: LocalEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    _seed(db_path, embedder)
    mem = Memory(db_path, embedder=embedder, consolidate="off", settings=_settings(count=5))
    batches: list[list[tuple[str, int, datetime]]] = []
    real = mem.store.add_accesses

    def spy(accesses: Sequence[tuple[str, int, datetime]]) -> None:
        real(accesses)
        batches.append(list(accesses))  # once written

    monkeypatch.setattr(mem.store, "add_accesses", spy)
    for _ in range(2):  # 2 hits each: 4 accesses, under the count of 5
        assert len(mem.search("Sam", user_id="s", mode="keyword")) == 2
    time.sleep(0.2)
    assert batches == [] and _stored_counts(db_path)["Sam lives in Berlin"] == (0, None)
    berlin = mem.search("Berlin", user_id="s", mode="keyword")[0].memory.id  # the 5th
    assert _wait_for(lambda: batches)
    assert len(batches) == 1
    (batch,) = batches
    assert sorted((n for _, n, _ in batch), reverse=True) == [3, 2]
    stored = _stored_counts(db_path)
    assert stored["Sam lives in Berlin"][0] == 3 and stored["Sam keeps a cat named Miso"][0] == 2
    last = stored["Sam lives in Berlin"][1]
    assert last is not None and last == max(when for _, _, when in batch).isoformat()
    got = mem.get(berlin)
    assert got.access_count == 3 and got.version == 1  # not a content change
    mem.close()


def test_counts_older_than_the_age_are_written_by_the_thread(
    db_path: Path, embedder: LocalEmbedder
) -> None:
    _seed(db_path, embedder)
    mem = Memory(db_path, embedder=embedder, consolidate="off", settings=_settings(age_s=0.3))
    mem.search("Berlin", user_id="s", mode="keyword")
    assert _stored_counts(db_path)["Sam lives in Berlin"][0] == 0
    assert _wait_for(lambda: _stored_counts(db_path)["Sam lives in Berlin"][0] == 1)
    mem.search("Berlin", user_id="s", mode="keyword")  # the buffer empty again: due anew
    assert _wait_for(lambda: _stored_counts(db_path)["Sam lives in Berlin"][0] == 2)
    mem.close()


def test_flush_and_close_write_the_buffer(db_path: Path, embedder: LocalEmbedder) -> None:
    _seed(db_path, embedder)
    mem = Memory(db_path, embedder=embedder, consolidate="off", settings=_settings())
    for _ in range(3):
        mem.search("Berlin", user_id="s", mode="keyword")
    assert _stored_counts(db_path)["Sam lives in Berlin"][0] == 0
    mem.flush()
    assert _stored_counts(db_path)["Sam lives in Berlin"][0] == 3
    mem.search("Berlin", user_id="s", mode="keyword")
    mem.close()
    assert _stored_counts(db_path)["Sam lives in Berlin"][0] == 4
    with Memory(db_path, embedder=embedder, consolidate="off") as again:
        assert again.get(again.list(user_id="s")[0].id).access_count == 4


CRASH = textwrap.dedent(
    """
    import os, signal, sys
    from memfold import Memory, Settings
    path, how = sys.argv[1], sys.argv[2]
    settings = Settings(store={"access_flush_count": 1000, "access_flush_age_s": 600})
    mem = Memory(path, consolidate="off", settings=settings)
    for _ in range(4):
        mem.search("Berlin", user_id="s", mode="keyword")
    if how == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    # "exit": the Memory is never closed; the interpreter exits normally
    """
)


@pytest.mark.parametrize(("how", "expected"), [("kill", 0), ("exit", 4)])
def test_crash_loses_only_unflushed_counts_and_a_plain_exit_writes_them(
    db_path: Path, embedder: LocalEmbedder, how: str, expected: int
) -> None:
    _seed(db_path, embedder)
    proc = subprocess.run([sys.executable, "-c", CRASH, str(db_path), how], timeout=120)
    assert proc.returncode == (-9 if how == "kill" else 0)
    assert _stored_counts(db_path)["Sam lives in Berlin"][0] == expected
    with Memory(db_path, embedder=embedder, consolidate="off") as mem:  # the file is sound
        assert mem.search("Berlin", user_id="s", mode="keyword")[0].memory.text.endswith("Berlin")


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_child_does_not_write_the_parents_counts_again(
    db_path: Path, embedder: LocalEmbedder
) -> None:
    _seed(db_path, embedder)
    mem = Memory(db_path, embedder=embedder, consolidate="off", settings=_settings())
    for _ in range(3):
        mem.search("Berlin", user_id="s", mode="keyword")
    pid = os.fork()
    if pid == 0:  # the child: what it inherited is not its to write
        code = 1
        try:
            accesses = mem.ctx.accesses
            code = 0 if accesses is not None and accesses.pending() == 0 else 3
            if code == 0 and accesses is not None:
                accesses.flush()
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert _stored_counts(db_path)["Sam lives in Berlin"][0] == 0
    mem.close()
    assert _stored_counts(db_path)["Sam lives in Berlin"][0] == 3
