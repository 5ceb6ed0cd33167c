"""Several ``memfold worker`` processes drain one PostgreSQL store (MEMFOLD_URL): jobs
are claimed with FOR UPDATE SKIP LOCKED, every save is decided once."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from memfold import Memory, Status
from memfold.embed.local import LocalEmbedder

WORKERS = 3
FACTS = [
    "Sam prefers Rust for systems work",
    "Sam lives in Lyon with two cats",
    "The staging database runs PostgreSQL 15 on port 5433",
    "Nora's sister teaches chemistry in Oslo",
]


def test_three_worker_processes_share_one_postgres_store(
    pg_url: str, embedder: LocalEmbedder
) -> None:
    exe = str(Path(sys.executable).parent / "memfold")
    env = {
        **{k: v for k, v in os.environ.items() if k != "MEMFOLD_PATH"},
        "MEMFOLD_URL": pg_url,
        "MEMFOLD_CONSOLIDATION__WORKER_POLL_S": "0.05",
    }
    with Memory(url=pg_url, embedder=embedder, consolidate="queue") as mem:
        ids = [mem.add(FACTS[0], user_id="sam").memory.id]
        procs = [
            subprocess.Popen(
                [exe, "worker"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
            )
            for _ in range(WORKERS)
        ]
        try:
            for round_ in range(10):
                for fact in FACTS:
                    ids.append(
                        mem.add(fact if round_ % 2 == 0 else f"{fact}.", user_id="sam").memory.id
                    )
                time.sleep(0.05)
            deadline = time.monotonic() + 240
            while mem.store.count_jobs("pending") + mem.store.count_jobs("running"):
                assert time.monotonic() < deadline, "the workers did not drain the queue"
                time.sleep(0.1)
        finally:
            for proc in procs:
                proc.send_signal(signal.SIGINT)
            outputs = [p.communicate(timeout=60) for p in procs]
    errors = [err for _, err in outputs if "Traceback" in err and "KeyboardInterrupt" not in err]
    assert not errors, errors
    handled = [
        sum(int(line.split()[1]) for line in out.splitlines() if line.startswith("consolidated"))
        for out, _ in outputs
    ]
    with Memory(url=pg_url, embedder=embedder, consolidate="off") as mem:
        per_save = Counter(e.input_ids[0] for e in mem.log(10_000) if e.path == "on_save")
        assert max(per_save.values()) == 1  # no save decided twice
        assert sum(handled) == len(ids)
        assert sum(1 for h in handled if h) >= 2, handled
        active = mem.list(user_id="sam", limit=1000)
        assert sorted(m.text.rstrip(".") for m in active) == sorted(FACTS)
        records = mem.store.get_memories(ids)
        assert len(records) == len(ids)
        assert all(r.status in (Status.ACTIVE, Status.SUPERSEDED) for r in records.values())
