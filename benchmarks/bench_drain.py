"""Background consolidation drain: saves decided per second by the rule judge.

    .venv/bin/python benchmarks/bench_drain.py [--sizes 10000 100000] [--saves 400]

A store is bulk-loaded with N memories in one scope (MSC persona sentences varied as in
bench_store.py, vectors near their real embeddings), then SAVES more are queued
(``consolidate="queue"``, precomputed vectors) and one ``drain()`` decides them all with
the default rule judge, as the background worker does. Most queued saves find candidates
(the corpus repeats its 2,000 base sentences), so nearly every one reaches the judge.
The loaded memories have their readings stored, as those of a store that consolidated
them on save would (``engine/readings.py``); the queued saves are read when queued.
The figure is saves per second of the drain alone (the vector index is warmed first, and
the parse model and WordNet's index loaded, but no reading in the process's cache: each
drain loads the stored readings as a worker that has just started would).
With ``--repeat R`` the loaded store is copied R times and each copy drained: the median
rate and the median CPU seconds of the process (all threads) over the R drains, and
whether every drain took the same decisions (the log rows of the saves), are reported:
on a shared machine the wall clock moves with the load, the CPU time much less.
"""

from __future__ import annotations

import shutil
import statistics
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
from memfold.engine import readings
from memfold.engine.worker import drain
from memfold.reading import facts as reading_facts
from memfold.reading import parser as reading_parser
from memfold.reading.lexicon import lexicon

USER = "bench"
BATCH = 5_000
TARGET_PER_S = 300.0  # issue 14: background drain at 100k, rule judge


def _load(db: Path, embedder: LocalEmbedder, texts: list[str], vectors: np.ndarray) -> None:
    """N memories stored as a store that has run a while holds them: with the readings
    of their texts (each saved for consolidation was read then; engine/readings.py)."""
    with Memory(db, embedder=embedder, consolidate="off") as mem, progress() as bar:
        task = bar.add_task(f"add_many {len(texts):,}", total=len(texts))
        for lo in range(0, len(texts), BATCH):
            items = [{"text": t, "user_id": USER} for t in texts[lo : lo + BATCH]]
            mem.add_many(items, embeddings=list(vectors[lo : lo + BATCH]))
            bar.advance(task, len(items))
        task = bar.add_task(f"read {len(texts):,}", total=len(texts))
        ids = [r.id for r in mem.ctx.store.iter_memories()]
        for lo in range(0, len(ids), BATCH):
            records = mem.ctx.store.get_memories(ids[lo : lo + BATCH]).values()
            readings.prime(mem.ctx, records)
            reading_facts.forget()  # keep the process's cache small; the rows stay
            bar.advance(task, len(records))


def _drain_once(
    db: Path, embedder: LocalEmbedder, query: str, saves: int
) -> tuple[dict[str, Any], list[Any]]:
    """Drain the queued saves of ``db``: the timing, and the saves' log rows."""
    with Memory(db, embedder=embedder, consolidate="queue") as mem:
        mem.search(query, user_id=USER)  # load the index before the clock starts
        # As a worker that has run a while: the parse model and WordNet's index loaded
        # (0.45 s, once a process), no text read yet.
        reading_facts.forget()
        reading_parser.load()
        lexicon()
        cpu = time.process_time()
        started = time.perf_counter()
        handled = drain(mem.ctx, mem.judge)
        seconds = time.perf_counter() - started
        cpu = time.process_time() - cpu
        actions: dict[str, int] = {}
        rows = []
        for entry in mem.log(saves * 2):
            if entry.path == "on_save":
                actions[entry.action] = actions.get(entry.action, 0) + 1
                rows.append((entry.input_ids, entry.action, entry.output_ids, entry.reasoning))
    timing = {
        "handled": handled,
        "seconds": round(seconds, 3),
        "cpu_s": round(cpu, 3),
        "per_s": handled / seconds if seconds else 0.0,
        "actions": actions,
    }
    return timing, sorted(rows)


def drain_rate(
    folder: Path,
    embedder: LocalEmbedder,
    seeds: np.ndarray,
    base: list[str],
    n: int,
    saves: int,
    repeat: int,
) -> dict[str, Any]:
    texts = vary(base, n + saves)
    vectors = realistic_vectors(seeds, n + saves)
    loaded = folder / f"drain-{n}.db"
    _load(loaded, embedder, texts[:n], vectors[:n])
    with Memory(loaded, embedder=embedder, consolidate="queue") as mem:
        queued = [{"text": t, "user_id": USER} for t in texts[n:]]
        mem.add_many(queued, embeddings=list(vectors[n:]))
    runs, decisions = [], []
    for i in range(repeat):
        db = loaded if i == repeat - 1 else folder / f"drain-{n}-{i}.db"
        if db != loaded:
            shutil.copyfile(loaded, db)  # closed above: the WAL is checkpointed
        timing, rows = _drain_once(db, embedder, texts[0], saves)
        runs.append(timing)
        decisions.append(rows)
        if db != loaded:
            db.unlink()
    median = statistics.median(r["per_s"] for r in runs)
    return {
        "memories": n,
        "saves": saves,
        "handled": runs[0]["handled"],
        "seconds": statistics.median(r["seconds"] for r in runs),
        "cpu_s": statistics.median(r["cpu_s"] for r in runs),
        "per_s": median,
        "per_s_runs": [round(r["per_s"], 1) for r in runs],
        "same_decisions": all(d == decisions[0] for d in decisions),
        "actions": runs[0]["actions"],
    }


def main() -> None:
    p = parser(__doc__ or "", "bench_drain.json")
    p.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    p.add_argument("--saves", type=int, default=400)
    p.add_argument("--repeat", type=int, default=1, help="drains of copies of each store")
    args = p.parse_args()
    if args.repeat < 1:
        p.error("--repeat must be at least 1")
    out: dict[str, Any] = {"machine": machine(), "method": __doc__, "runs": []}
    embedder = LocalEmbedder()
    base = persona_sentences(args.data, 2000)
    seeds = np.asarray(embedder.embed(base), dtype=np.float32)
    with tempfile.TemporaryDirectory(prefix="memfold-bench-") as tmp:
        for n in args.sizes:
            out["runs"].append(
                drain_rate(Path(tmp), embedder, seeds, base, n, args.saves, args.repeat)
            )
    write_json(args.out, out)
    rows = []
    for run in out["runs"]:
        at_target = run["memories"] >= 100_000
        rows.append(
            [f"drain, rule judge, {run['memories']:,} memories in one scope",
             f"{run['per_s']:.0f} saves/s ({run['handled']} in {run['seconds']} s, "
             f"CPU {run['cpu_s']} s; median of {len(run['per_s_runs'])}"
             f"{'' if run['same_decisions'] else ', DECISIONS DIFFER'})",
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
