"""Search latency beside a writing process (issue 14: searches never take the write lock).

    .venv/bin/python benchmarks/bench_contention.py [--data PATH] [--out FILE]
        [--queries 800] [--rate 50] [--batch 1]

What is measured (one run, all ratios from it):
- A 100k store in one scope, built as in bench_store.py: MSC persona sentences varied,
  vectors near their real embeddings, loaded with add_many(embeddings=...).
- This process searches (Memory.search, hybrid, k=10; query vectors cached, so the
  model is not timed) in blocks of 100 queries, in four conditions interleaved block by
  block: idle or "busy" (another PROCESS adds memories to the same scope at ``--rate``
  per second: add() with a precomputed vector, consolidate="off", each add its own
  write transaction, or add_many of ``--batch`` per transaction; between busy blocks it
  waits on a flag file with no transaction open), and each search's accesses either
  batched (the code as it is) or written by the search itself in its own transaction,
  as before issue 14 (emulated exactly: buffer off, then ``store.record_access`` of
  the hits, timed with the search). So all four share one process, store, cache and
  the machine's load drift. ``--queries`` per condition.
- Reported: p50, p95 and p99 per condition, busy / idle ratios per way, the time the
  search's own write took, the writer's achieved rate, the load average.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
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
from memfold.model import utcnow

USER = "bench"
STORE_SIZE = 100_000
BLOCK = 100
BATCH = 5_000
SETTLE_S = 0.3  # after the writer starts or pauses, before the next block


def writer(folder: Path, rate: float, batch: int) -> None:
    """Runs in a subprocess: adds at ``rate`` per second while ``folder/go`` exists, until
    stdin closes; then prints how many it added and for how long it was writing.
    ``batch`` > 1: add_many of that many memories per transaction (longer lock holds)."""
    import threading

    texts = json.loads((folder / "writer_texts.json").read_text(encoding="utf-8"))
    vectors = np.load(folder / "writer_vectors.npy")
    done = threading.Event()

    def wait_for_stdin_close() -> None:
        sys.stdin.read()
        done.set()

    threading.Thread(target=wait_for_stdin_close, daemon=True).start()
    added, busy_s = 0, 0.0
    with Memory(folder / "big.db", consolidate="off") as mem:
        print("ready", flush=True)
        while not done.is_set():
            if not (folder / "go").exists():
                time.sleep(0.02)
                continue
            started = time.perf_counter()
            n = 0
            while (folder / "go").exists() and not done.is_set():
                picked = [(added + j) % len(texts) for j in range(batch)]
                if batch == 1:
                    mem.add(texts[picked[0]], user_id=USER, embedding=vectors[picked[0]].tolist())
                else:
                    items = [{"text": texts[i], "user_id": USER} for i in picked]
                    mem.add_many(items, embeddings=vectors[picked])
                added, n = added + batch, n + batch
                wait = started + n / rate - time.perf_counter()
                if wait > 0:
                    time.sleep(wait)
            busy_s += time.perf_counter() - started
    print(json.dumps({"added": added, "seconds": busy_s}), flush=True)


def build(mem: Memory, texts: list[str], vectors: np.ndarray) -> float:
    started = time.perf_counter()
    with progress() as bar:
        task = bar.add_task("add_many", total=len(texts))
        for lo in range(0, len(texts), BATCH):
            items = [{"text": t, "user_id": USER} for t in texts[lo : lo + BATCH]]
            mem.add_many(items, embeddings=list(vectors[lo : lo + BATCH]))
            bar.advance(task, len(items))
    return time.perf_counter() - started


CONDITIONS = ("batched", "sync_write")  # how a search records its hits' accesses


def timed_block(mem: Memory, queries: list[str], how: str, writes: list[float]) -> list[float]:
    """Each search's latency. ``batched``: the code as it is (counts to the in-process
    buffer). ``sync_write``: the code before issue 14, emulated: no buffer, and the
    search then writes its hits' counts itself (``store.record_access``, one BEGIN
    IMMEDIATE transaction; what engine/search.py did), timed as part of the search;
    the time of that write goes to ``writes``."""
    buffer = mem.ctx.accesses
    if how == "sync_write":
        mem.ctx.accesses = None
    out = []
    try:
        for q in queries:
            began = time.perf_counter()
            hits = mem.search(q, user_id=USER, k=10)
            wrote = time.perf_counter()
            if how == "sync_write" and hits:
                mem.store.record_access([h.memory.id for h in hits], utcnow())
            done = time.perf_counter()
            out.append(done - began)
            writes.append(done - wrote)
    finally:
        mem.ctx.accesses = buffer
    return out


def pct(seconds: list[float], q: float) -> float:
    return float(np.percentile(np.array(seconds) * 1000, q))


def main() -> None:
    p = parser(__doc__ or "", "bench_contention.json")
    p.add_argument("--queries", type=int, default=800, help="searches per condition")
    p.add_argument("--rate", type=float, default=50.0, help="writer adds per second")
    p.add_argument("--batch", type=int, default=1, help="memories per writer transaction")
    args = p.parse_args()
    from memfold.embed.local import LocalEmbedder
    from memfold.evaluation.embed_cache import CachingEmbedder

    cached = CachingEmbedder(LocalEmbedder(), Path("results") / "cache")
    base = persona_sentences(args.data, 2_000)
    pool = persona_sentences(args.data)[2_000 : 2_000 + 300]
    seeds, _ = cached.embed(base), cached.embed(pool)
    cached.save()
    vectors = realistic_vectors(seeds, STORE_SIZE)
    rounds = max(1, args.queries // BLOCK)
    # One round: idle (both ways), then busy (both ways); the order within each
    # alternates round by round, so neither way always runs first.
    plan = []
    for r in range(rounds):
        ways = CONDITIONS if r % 2 == 0 else CONDITIONS[::-1]
        plan += [(False, w) for w in ways] + [(True, w) for w in ways[::-1]]
    times: dict[tuple[bool, str], list[float]] = {k: [] for k in set(plan)}
    writes: dict[tuple[bool, str], list[float]] = {k: [] for k in set(plan)}
    out: dict[str, Any] = {"machine": machine(), "method": __doc__, "rate": args.rate}
    out["batch"] = args.batch
    with tempfile.TemporaryDirectory(prefix="memfold-contention-") as tmp:
        folder = Path(tmp)
        extra = vary(base, 20_000, seed=99)
        (folder / "writer_texts.json").write_text(json.dumps(extra), encoding="utf-8")
        np.save(folder / "writer_vectors.npy", realistic_vectors(seeds, len(extra), seed=99))
        with Memory(folder / "big.db", embedder=cached, consolidate="off") as mem:
            out["build_s"] = round(build(mem, vary(base, STORE_SIZE), vectors), 1)
            timed_block(mem, pool[:50], "batched", [])  # warm-up: the scope's index, caches
            proc = subprocess.Popen(
                [sys.executable, __file__, "--writer", tmp, str(args.rate), str(args.batch)],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
            )  # fmt: skip
            assert proc.stdout is not None and proc.stdin is not None
            assert proc.stdout.readline().strip() == "ready"
            writing = False
            with progress() as bar:
                task = bar.add_task("searching", total=len(plan) * BLOCK)
                for n, (busy, how) in enumerate(plan):
                    if busy != writing:
                        if busy:
                            (folder / "go").touch()
                        else:
                            (folder / "go").unlink()
                        writing = busy
                        time.sleep(SETTLE_S)
                    block = [pool[(n * BLOCK + i) % len(pool)] for i in range(BLOCK)]
                    times[busy, how] += timed_block(mem, block, how, writes[busy, how])
                    bar.advance(task, BLOCK)
            (folder / "go").unlink(missing_ok=True)
            proc.stdin.close()
            written = json.loads(proc.stdout.read().strip().splitlines()[-1])
            proc.wait(timeout=60)
            out["store_after"] = mem.store.count_memories()
    out["writer"] = {**written, "per_s": written["added"] / max(written["seconds"], 1e-9)}
    for (busy, how), ts in times.items():
        row: dict[str, Any] = {f"p{q}_ms": pct(ts, q) for q in (50, 95, 99)}
        row["n"] = len(ts)
        row["write_ms_mean"] = float(np.mean(writes[busy, how])) * 1000
        row["write_ms_p99"] = pct(writes[busy, how], 99)
        out[f"{how}_{'busy' if busy else 'idle'}"] = row
    for how in CONDITIONS:
        for q in (50, 95, 99):
            ratio = out[f"{how}_busy"][f"p{q}_ms"] / out[f"{how}_idle"][f"p{q}_ms"]
            out[f"{how}_ratio_p{q}"] = ratio
    out["loadavg_at_end"] = [round(x, 2) for x in os.getloadavg()]
    write_json(args.out, out)
    report(out)


def report(out: dict[str, Any]) -> None:
    rows = []
    for how, label in (("batched", "batched (now)"), ("sync_write", "a write per search")):
        idle, busy = out[f"{how}_idle"], out[f"{how}_busy"]
        rows += [
            [f"{label}: idle p50 / p95 / p99",
             f"{idle['p50_ms']:.2f} / {idle['p95_ms']:.2f} / {idle['p99_ms']:.2f} ms", "", ""],
            [f"{label}: writer beside p50 / p95 / p99",
             f"{busy['p50_ms']:.2f} / {busy['p95_ms']:.2f} / {busy['p99_ms']:.2f} ms", "", ""],
            [f"{label}: busy / idle p50 / p95",
             f"{out[how + '_ratio_p50']:.2f}x / {out[how + '_ratio_p95']:.2f}x", "", ""],
            [f"{label}: busy / idle p99", f"{out[how + '_ratio_p99']:.2f}x",
             "<= 1.3x" if how == "batched" else "",
             met(out[how + "_ratio_p99"] <= 1.3) if how == "batched" else ""],
            [f"{label}: time in the search's own write, busy: mean / p99",
             f"{busy['write_ms_mean']:.2f} / {busy['write_ms_p99']:.2f} ms", "", ""],
        ]  # fmt: skip
    rows.append(
        ["writer adds (another process)",
         f"{out['writer']['per_s']:.1f}/s ({out['writer']['added']} adds)", "", ""]
    )  # fmt: skip
    table("searches beside a writer", rows, ["measure", "figure", "target", ""])


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--writer":
        writer(Path(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]))
    else:
        main()
