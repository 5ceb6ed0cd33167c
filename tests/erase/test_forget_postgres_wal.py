"""forget(..., vacuum=True) on PostgreSQL: no file of the server's data folder holds the
erased text afterwards, the write-ahead log included (the role here may switch WAL)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from helpers.postgres import PgServer
from memfold import Memory, Settings
from memfold.embed.local import LocalEmbedder

MARKER = "Quorvane lattice 55102"


def _holding(data: Path) -> list[str]:
    found = subprocess.run(
        ["grep", "-rl", "--binary-files=text", MARKER, str(data)],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.split()
    return sorted(str(Path(p).relative_to(data)) for p in found)


def test_forget_with_vacuum_leaves_the_text_in_no_file_wal_included(
    pg_server: PgServer, embedder: LocalEmbedder
) -> None:
    data = pg_server.folder / "data"
    with Memory(url=pg_server.fresh_url(), embedder=embedder, consolidate="off") as mem:
        added = mem.add(f"Sam's note: {MARKER}", user_id="u").memory
        mem.add("Sam likes tea", user_id="u")
        report = mem.forget(added.id, vacuum=True)
        assert report.vacuumed and report.checkpointed
    assert _holding(data) == []


def test_without_wal_switches_the_log_still_holds_it(
    pg_server: PgServer, embedder: LocalEmbedder
) -> None:
    # What the setting is for (and what the docs say of a role that may not switch WAL).
    data = pg_server.folder / "data"
    settings = Settings(store={"forget_wal_switches": 0})
    url = pg_server.fresh_url()
    with Memory(url=url, embedder=embedder, settings=settings, consolidate="off") as mem:
        added = mem.add(f"Sam's other note: {MARKER}", user_id="u").memory
        mem.forget(added.id, vacuum=True)
    # The log holds it (a data page not yet rewritten by the server may too: timing).
    held = _holding(data)
    assert any(p.startswith("pg_wal/") for p in held)
