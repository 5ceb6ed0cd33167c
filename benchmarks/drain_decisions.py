"""The decisions of one background drain on a fixed input, to compare two trees.

    .venv/bin/python benchmarks/drain_decisions.py --out before.json [--profile prof.out]
    .venv/bin/python benchmarks/drain_decisions.py --out after.json --compare before.json

The input is bench_drain.py's (N memories of the persona corpus in one scope, then SAVES
queued with precomputed vectors). The loaded store is built once and kept at ``--cache``
(rebuilt when missing); each run drains a copy with the rule judge and writes the saves'
log rows (inputs, action, outputs, reasoning, confidence), sorted, to ``--out``.
``--compare`` exits 1, naming the first rows that differ, unless both files hold the same
rows. ``--profile`` writes the drain's cProfile statistics (pstats format).
"""

from __future__ import annotations

import cProfile
import functools
import json
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from bench_common import parser, persona_sentences, realistic_vectors, vary, write_json
from bench_drain import USER, _load
from memfold import Memory
from memfold.embed.local import LocalEmbedder
from memfold.engine import jobs as job_steps
from memfold.engine import on_save
from memfold.engine.worker import drain

_PHASES = {"prepare": (on_save, "_prepare_all"), "judge": (job_steps, "decide"),
           "apply": (on_save, "_settle"), "check": (on_save, "_stale")}  # fmt: skip


def _timed_phases() -> dict[str, float]:
    """Wrap each phase's function to add up the calling thread's CPU seconds in it."""
    spent = dict.fromkeys(_PHASES, 0.0)

    def wrap(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def timed(*args: Any, **kwargs: Any) -> Any:
            started = time.thread_time()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[name] += time.thread_time() - started

        return timed

    for name, (module, attr) in _PHASES.items():
        setattr(module, attr, wrap(name, getattr(module, attr)))
    return spent


def _build(cache: Path, embedder: LocalEmbedder, data: Path, n: int, saves: int) -> None:
    base = persona_sentences(data, 2000)
    seeds = np.asarray(embedder.embed(base), dtype=np.float32)
    texts = vary(base, n + saves)
    vectors = realistic_vectors(seeds, n + saves)
    part = cache.with_suffix(".part")
    part.unlink(missing_ok=True)
    _load(part, embedder, texts[:n], vectors[:n])
    with Memory(part, embedder=embedder, consolidate="queue") as mem:
        queued = [{"text": t, "user_id": USER} for t in texts[n:]]
        mem.add_many(queued, embeddings=list(vectors[n:]))
    part.rename(cache)  # closed above: the WAL is checkpointed


def _drain(db: Path, embedder: LocalEmbedder, profile: Path | None, phases: bool) -> dict[str, Any]:
    spent = _timed_phases() if phases else {}
    with Memory(db, embedder=embedder, consolidate="queue") as mem:
        mem.search("warm the index", user_id=USER)
        profiler = cProfile.Profile() if profile else None
        started = time.perf_counter()
        cpu = time.process_time()
        if profiler is not None:
            profiler.enable()
        handled = drain(mem.ctx, mem.judge)
        if profiler is not None:
            profiler.disable()
            profiler.dump_stats(str(profile))
        cpu = time.process_time() - cpu
        seconds = time.perf_counter() - started
        rows = [
            [e.input_ids, e.action, e.output_ids, e.reasoning, e.confidence]
            for e in mem.log(100_000)
            if e.path == "on_save"
        ]
    rows.sort(key=json.dumps)
    return {"handled": handled, "seconds": seconds, "cpu_s": cpu, "phases": spent, "rows": rows}


def main() -> None:
    p = parser(__doc__ or "", "drain_decisions.json")
    p.add_argument("--memories", type=int, default=100_000)
    p.add_argument("--saves", type=int, default=400)
    p.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "drain-in.db")
    p.add_argument("--profile", type=Path, default=None)
    p.add_argument("--compare", type=Path, default=None)
    p.add_argument("--phases", action="store_true", help="CPU seconds per step of the drain")
    args = p.parse_args()
    embedder = LocalEmbedder()
    cache = args.cache.with_name(f"{args.cache.stem}-{args.memories}-{args.saves}.db")
    if not cache.exists():
        _build(cache, embedder, args.data, args.memories, args.saves)
    with tempfile.TemporaryDirectory(prefix="memfold-drain-") as tmp:
        db = Path(tmp) / "drain.db"
        shutil.copyfile(cache, db)
        result = _drain(db, embedder, args.profile, args.phases)
    write_json(args.out, result)
    actions: dict[str, int] = {}
    for row in result["rows"]:
        actions[row[1]] = actions.get(row[1], 0) + 1
    print(
        f"{result['handled']} saves in {result['seconds']:.2f} s "
        f"({result['handled'] / result['seconds']:.0f}/s), CPU {result['cpu_s']:.2f} s; "
        + ", ".join(f"{k} {v}" for k, v in sorted(actions.items()))
    )
    if result["phases"]:
        print(
            "main thread CPU s: " + ", ".join(f"{k} {v:.3f}" for k, v in result["phases"].items())
        )
    if args.compare is not None:
        other = json.loads(args.compare.read_text(encoding="utf-8"))["rows"]
        if other == result["rows"]:
            print(f"same decisions as {args.compare} ({len(other)} log rows)")
            return
        diff = [i for i, (a, b) in enumerate(zip(other, result["rows"], strict=False)) if a != b]
        print(f"DECISIONS DIFFER from {args.compare}: {len(other)} vs {len(result['rows'])} rows")
        for i in diff[:5]:
            print(f"  before {other[i]}\n  after  {result['rows'][i]}")
        sys.exit(1)


if __name__ == "__main__":
    main()
