"""Batch review scan vs the bare blocked matrix products it is built on.

    .venv/bin/python benchmarks/bench_scan.py            # 100k x 384, 3 runs
    .venv/bin/python benchmarks/bench_scan.py --n 20000  # quicker
    .venv/bin/python benchmarks/bench_scan.py --out FILE # JSON (default results/bench_scan.json)

Data: random-but-clustered unit vectors (clusters of 1-9 around random centres), so a
share of the pairs pass the 0.82 threshold. Timed, median over the runs:

- bare full:  ``block @ M.T`` for every row block (the brief's baseline);
- bare upper: the same tiles the scan multiplies (upper triangle only), no extraction;
- scan:       ``find_pairs`` = the products plus threshold extraction (no DB);
- insert:     queueing the found pairs into a fresh SQLite store (reported apart).
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from bench_common import parser as bench_parser
from bench_common import write_json
from memfold.config import ReviewSettings
from memfold.engine.review.scan import find_pairs
from memfold.store.sqlite import SQLiteStore


def clustered(n: int, dim: int, seed: int, noise: float) -> np.ndarray:
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 10, size=n)
    owner = np.repeat(np.arange(n), sizes)[:n]
    centres = rng.standard_normal((int(owner.max()) + 1, dim)).astype(np.float32)
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    points = centres[owner] + noise * rng.standard_normal((n, dim)).astype(np.float32) / np.sqrt(
        dim
    ).astype(np.float32)
    points /= np.linalg.norm(points, axis=1, keepdims=True)
    out: np.ndarray = points.astype(np.float32)
    return out


def bare_full(m: np.ndarray, block: int) -> None:
    for i0 in range(0, m.shape[0], block):
        _ = m[i0 : i0 + block] @ m.T


def bare_upper(m: np.ndarray, block: int) -> None:
    """The floor: the same upper-triangle tiles as the scan, into one reused buffer."""
    n = m.shape[0]
    side = min(block, n)
    buf = np.empty((side, side), dtype=np.float32)
    for i0 in range(0, n, block):
        rows = m[i0 : i0 + block]
        for j0 in range(i0, n, block):
            other = m[j0 : j0 + block]
            np.matmul(rows, other.T, out=buf[: rows.shape[0], : other.shape[0]])


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    cfg = ReviewSettings()
    parser = bench_parser((__doc__ or "").splitlines()[0], "bench_scan.json")
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--block", type=int, default=cfg.scan_block_rows)
    parser.add_argument("--threshold", type=float, default=cfg.scan_threshold)
    parser.add_argument("--noise", type=float, default=0.45)
    parser.add_argument(
        "--with-full", action="store_true", help="Also time the full n x n product (slow)."
    )
    args = parser.parse_args()
    m = clustered(args.n, args.dim, seed=7, noise=args.noise)
    print(f"n={args.n} dim={args.dim} block={args.block} threshold={args.threshold}")
    times: dict[str, list[float]] = {"bare upper": [], "scan": [], "insert": []}
    if args.with_full:
        times["bare full"] = []
    found = 0
    for run in range(args.runs):
        if args.with_full:
            times["bare full"].append(timed(lambda: bare_full(m, args.block)))
        times["bare upper"].append(timed(lambda: bare_upper(m, args.block)))
        start = time.perf_counter()
        r, c, s = find_pairs(m, args.threshold, args.block)
        times["scan"].append(time.perf_counter() - start)
        found = int(r.size)
        ids = [f"{i:032x}" for i in range(args.n)]
        with tempfile.TemporaryDirectory() as tmp:
            store = SQLiteStore(Path(tmp) / "bench.db")
            start = time.perf_counter()
            store.queue_pairs(
                "u=bench|a=|s=",
                (
                    (ids[i], ids[j], sim, 1, 1)
                    for i, j, sim in zip(r.tolist(), c.tolist(), s.tolist(), strict=True)
                ),
            )
            times["insert"].append(time.perf_counter() - start)
            store.close()
        print(f"run {run + 1}: " + ", ".join(f"{k} {v[-1]:.2f}s" for k, v in times.items()))
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"\npairs >= {args.threshold}: {found}")
    print(f"{'step':<12}{'median s':>10}")
    for key, value in med.items():
        print(f"{key:<12}{value:>10.2f}")
    print(f"\nscan / bare upper = {med['scan'] / med['bare upper']:.2f}  (target <= 2)")
    if args.with_full:
        print(f"scan / bare full  = {med['scan'] / med['bare full']:.2f}")
    result: dict[str, Any] = {
        "n": args.n,
        "dim": args.dim,
        "runs": args.runs,
        "block": args.block,
        "threshold": args.threshold,
        "noise": args.noise,
        "with_full": args.with_full,
        "pairs": found,
        "median_s": {k: round(v, 4) for k, v in med.items()},
        "runs_s": {k: [round(x, 4) for x in v] for k, v in times.items()},
        "scan_over_bare_upper": round(med["scan"] / med["bare upper"], 3),
        "scan_over_bare_full": (
            round(med["scan"] / med["bare full"], 3) if args.with_full else None
        ),
    }
    write_json(args.out, result)


if __name__ == "__main__":
    main()
