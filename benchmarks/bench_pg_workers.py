"""Queued saves drained by 1 and by 3 ``memfold worker`` processes, SQLite vs PostgreSQL.

    .venv/bin/python benchmarks/bench_pg_workers.py [--saves 300] [--out FILE]

Each configuration gets a fresh store (a SQLite file, or a fresh schema of the tests'
pgserver) with SAVES queued saves (``consolidate="queue"``, vectors precomputed with the
local model): restatements of SAVES / 4 synthetic facts, so most saves find candidates
and reach the rule judge. Then W worker processes start (``memfold worker``, poll 0.05 s)
and the clock runs until no job is pending or running. The time includes the workers'
start (each loads the embedding model); saves per second are SAVES / that time.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from bench_common import parser
from helpers.postgres import running_server
from memfold import Memory
from memfold.embed.local import LocalEmbedder

CITIES = ["Lyon", "Oslo", "Porto", "Kyoto", "Quito", "Accra", "Hanoi", "Perth"]
JOBS = ["teacher", "nurse", "pilot", "chef", "baker", "welder", "lawyer", "farmer"]


def saves(n: int) -> list[str]:
    facts = [f"Person{i} works as a {JOBS[i % 8]} in {CITIES[(i // 8) % 8]}" for i in range(n // 4)]
    forms = ["{}", "{}.", "Note: {}", "{} (confirmed)"]
    return [form.format(fact) for form in forms for fact in facts]


def drain(
    where: dict[str, Any],
    env: dict[str, str],
    workers: int,
    texts: list[str],
    vectors: Any,
    embedder: LocalEmbedder,
) -> float:
    with Memory(**where, embedder=embedder, consolidate="queue") as mem:
        for i, text in enumerate(texts):
            mem.add(text, user_id="bench", embedding=vectors[i].tolist())
        exe = str(Path(sys.executable).parent / "memfold")
        extra = env.pop("ARGS", "").split()
        start = time.perf_counter()
        procs = [
            subprocess.Popen(
                [exe, "worker", *extra],
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(workers)
        ]
        try:
            while mem.store.count_jobs("pending") + mem.store.count_jobs("running"):
                time.sleep(0.05)
            elapsed = time.perf_counter() - start
        finally:
            for proc in procs:
                proc.send_signal(signal.SIGINT)
            for proc in procs:
                proc.communicate(timeout=60)
    return elapsed


def main() -> None:
    p = parser(__doc__ or "", "bench_pg_workers.json")
    p.add_argument("--saves", type=int, default=300)
    args = p.parse_args()
    embedder = LocalEmbedder()
    texts = saves(args.saves)
    vectors = embedder.embed(texts)
    base = {k: v for k, v in os.environ.items() if not k.startswith("MEMFOLD_")}
    base["MEMFOLD_CONSOLIDATION__WORKER_POLL_S"] = "0.05"
    results: dict[str, Any] = {"saves": len(texts), "load_before": os.getloadavg()}
    with tempfile.TemporaryDirectory() as tmp, running_server() as server:
        for workers in (1, 3):
            db = Path(tmp) / f"w{workers}.db"
            results[f"sqlite_{workers}w_s"] = round(
                drain(
                    {"path": db}, {**base, "ARGS": f"-p {db}"}, workers, texts, vectors, embedder
                ),
                2,
            )
            url = server.fresh_url("workers")
            results[f"postgres_{workers}w_s"] = round(
                drain(
                    {"url": url}, {**base, "MEMFOLD_URL": url}, workers, texts, vectors, embedder
                ),
                2,
            )
    for key in [k for k in results if k.endswith("w_s")]:
        results[key.replace("_s", "_saves_per_s")] = round(len(texts) / results[key], 1)
    results["load_after"] = os.getloadavg()
    print(json.dumps(results, indent=1))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
