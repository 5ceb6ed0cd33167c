"""Background consolidation drain: saves decided per second by the rule judge.

    .venv/bin/python benchmarks/bench_drain.py [--sizes 10000 100000] [--saves 400]

A store is bulk-loaded with N memories in one scope (MSC persona sentences varied as in
bench_store.py, vectors near their real embeddings), then SAVES more are queued
(``consolidate="queue"``, precomputed vectors) and one ``drain()`` decides them all with
the default rule judge, as the background worker does. Most queued saves find candidates
(the corpus repeats its 2,000 base sentences), so nearly every one reaches the judge.
The figure is saves per second of the drain alone (the vector index is warmed first).
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from bench_common import (
    machine,
    met,
    parser,
    persona_sentences,
    progress,
    realistic_vectors,
    table,
    vary,
    write_json,
)
from memfold import Memory
from memfold.embed.local import LocalEmbedder
from memfold.engine.worker import drain

USER = "bench"
BATCH = 5_000
TARGET_PER_S = 300.0  # issue 14: background drain at 100k, rule judge


def _load(db: Path, embedder: LocalEmbedder, texts: list[str], vectors: np.ndarray) -> None:
    with Memory(db, embedder=embedder, consolidate="off") as mem, progress() as bar:
        task = bar.add_task(f"add_many {len(texts):,}", total=len(texts))
        for lo in range(0, len(texts), BATCH):
            items = [{"text": t, "user_id": USER} for t in texts[lo : lo + BATCH]]
            mem.add_many(items, embeddings=list(vectors[lo : lo + BATCH]))
            bar.advance(task, len(items))


def drain_rate(
    folder: Path, embedder: LocalEmbedder, seeds: np.ndarray, base: list[str], n: int, saves: int
) -> dict[str, Any]:
    texts = vary(base, n + saves)
    vectors = realistic_vectors(seeds, n + saves)
    db = folder / f"drain-{n}.db"
    _load(db, embedder, texts[:n], vectors[:n])
    with Memory(db, embedder=embedder, consolidate="queue") as mem:
        queued = [{"text": t, "user_id": USER} for t in texts[n:]]
        mem.add_many(queued, embeddings=list(vectors[n:]))
        mem.search(texts[0], user_id=USER)  # load the index before the clock starts
        started = time.perf_counter()
        handled = drain(mem.ctx, mem.judge)
        seconds = time.perf_counter() - started
        actions: dict[str, int] = {}
        for entry in mem.log(saves * 2):
            if entry.path == "on_save":
                actions[entry.action] = actions.get(entry.action, 0) + 1
    return {
        "memories": n,
        "saves": saves,
        "handled": handled,
        "seconds": round(seconds, 3),
        "per_s": handled / seconds if seconds else 0.0,
        "actions": actions,
    }


def main() -> None:
    p = parser(__doc__ or "", "bench_drain.json")
    p.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    p.add_argument("--saves", type=int, default=400)
    args = p.parse_args()
    out: dict[str, Any] = {"machine": machine(), "method": __doc__, "runs": []}
    embedder = LocalEmbedder()
    base = persona_sentences(args.data, 2000)
    seeds = np.asarray(embedder.embed(base), dtype=np.float32)
    with tempfile.TemporaryDirectory(prefix="memfold-bench-") as tmp:
        for n in args.sizes:
            out["runs"].append(drain_rate(Path(tmp), embedder, seeds, base, n, args.saves))
    write_json(args.out, out)
    rows = []
    for run in out["runs"]:
        at_target = run["memories"] >= 100_000
        rows.append(
            [f"drain, rule judge, {run['memories']:,} memories in one scope",
             f"{run['per_s']:.0f} saves/s ({run['handled']} in {run['seconds']} s)",
             f">= {TARGET_PER_S:.0f}/s" if at_target else "",
             met(run["per_s"] >= TARGET_PER_S) if at_target else "",
             ", ".join(f"{k} {v}" for k, v in sorted(run["actions"].items()))]
        )  # fmt: skip
    table(
        f"memfold background drain (load at start {out['machine']['loadavg_at_start']})",
        rows,
        ["measure", "figure", "target", "", "actions"],
    )


if __name__ == "__main__":
    main()
