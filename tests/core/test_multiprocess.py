"""Two processes writing one SQLite file; an open index sees the other writers' rows."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from memfold import Memory
from memfold.embed.local import LocalEmbedder

WRITER = textwrap.dedent(
    """
    import sys
    from memfold import Memory
    path, name, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with Memory(path, consolidate="off") as mem:
        for i in range(n):
            mem.add(f"{name} wrote fact number {i}", user_id="shared", sources=[f"{name}:{i}"])
            if i % 10 == 0:
                mem.update(mem.list(user_id="shared", limit=1)[0].id, importance=0.5 + i / 1000)
    """
)


def test_two_writers_share_one_file(db_path: Path, embedder: LocalEmbedder) -> None:
    reader = Memory(db_path, embedder=embedder, consolidate="off")
    reader.add("reader's own memory about zebras", user_id="shared")
    assert len(reader.search("zebras", user_id="shared", mode="vector", k=50)) == 1
    procs = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(db_path), name, "60"])
        for name in ("alpha", "beta")
    ]
    for proc in procs:
        assert proc.wait(timeout=240) == 0
    assert reader.store.count_memories() == 121
    sources = {s for m in reader.list(user_id="shared", limit=None) for s in m.sources}
    assert {f"alpha:{i}" for i in range(60)} <= sources
    assert {f"beta:{i}" for i in range(60)} <= sources
    # The reader's in-process index was built before the writers ran: it must catch up.
    hits = reader.search("beta wrote fact number 42", user_id="shared", mode="vector", k=1)
    assert hits[0].memory.text == "beta wrote fact number 42"
    assert len(reader.search("fact", user_id="shared", mode="vector", k=500)) == 121
    edits = [e for e in reader.log(1000) if e.action == "EDIT"]
    assert len(edits) == 12
    reader.close()
