"""Could the on-save candidate search skip most of its matrix product and stay exact?

    .venv/bin/python benchmarks/probe_candidate_pruning.py [--size 100000] [--cache DIR]

A drain pass finds each pending save's candidates with one matrix-matrix product over
its scope (``IndexQueries.search_many``): every row's cosine with every save, then the
rows at or above ``consolidation.discovery_threshold``. This probe measures two sound
upper bounds of a row's cosine that would let a search skip rows without computing
them, on the synthetic store of ``bench_drain.py`` (2,000 MSC persona sentences, noisy
copies) and on real text (every distinct MSC train persona sentence plus the LoCoMo dev
conversations' turns, 400 of them held out as the saves):

- clusters: spherical k-means; a cluster is skipped when q.c + r (ball: centroid c,
  radius r = max |v - c|) or the cone bound cos(angle(q, u) - max angle(v, u)) is below
  the threshold (minus a float margin);
- a PCA prefix: q.v = q_P.v_P + q_R.v_R <= q_P.v_P + |q_R| |v_R| with P the first d
  principal directions of the scope (from a sample); a row is skipped when that is
  below the threshold. The bound is one product of d + 1 columns per row.

Reported: the share of rows each bound keeps per save (and over a pass of saves), and,
for the PCA prefix at the synthetic store's size, the CPU seconds of the full product
against the screen plus an exact rescoring of the kept rows, with the same ids checked.
Also how many cosines OpenBLAS computes differently for a row range of the same matrix
(the bits of a BLAS product depend on where a row sits).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from bench_common import parser, persona_sentences, realistic_vectors, table, write_json
from memfold.config import Settings
from memfold.embed.local import LocalEmbedder

MARGIN = 1e-4  # float32 error of a 384-term dot product is below 2.3e-5 (|q| = |v| = 1)
DEV_CONVERSATIONS = {"conv-26", "conv-30", "conv-41", "conv-42", "conv-43"}


def _embedded(
    embedder: LocalEmbedder, texts: list[str], cache: Path | None, name: str
) -> np.ndarray:
    path = None if cache is None else cache / f"{name}-{len(texts)}.npy"
    if path is not None and path.exists():
        cached: np.ndarray = np.load(path)
        return cached
    vectors = np.asarray(embedder.embed(texts), dtype=np.float32)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.save(path, vectors)
    return vectors


def _dev_turns(data: Path) -> list[str]:
    raw = json.loads((data / "locomo" / "locomo10.json").read_text(encoding="utf-8"))
    out = []
    for conv in raw:
        if conv["sample_id"] in DEV_CONVERSATIONS:
            for key, session in conv["conversation"].items():
                if key.startswith("session_") and isinstance(session, list):
                    out += [t["text"] for t in session if t.get("text")]
    return out


def _kept_share(keep: np.ndarray, weights: np.ndarray, pass_size: int) -> dict[str, float]:
    """keep: (saves x groups) bool; weights: rows per group."""
    total = float(weights.sum())
    per_save = float((keep @ weights).mean() / total)
    passes = [
        float(keep[lo : lo + pass_size].any(0) @ weights / total)
        for lo in range(0, keep.shape[0], pass_size)
    ]
    return {"per_save": round(per_save, 4), "per_pass": round(float(np.mean(passes)), 4)}


def cluster_bounds(
    rows: np.ndarray, saves: np.ndarray, k: int, threshold: float, pass_size: int
) -> dict[str, Any]:
    rng = np.random.default_rng(0)
    sample = rows[rng.choice(len(rows), min(16_384, len(rows)), replace=False)]
    centers = sample[rng.choice(len(sample), k, replace=False)].copy()
    for _ in range(6):  # spherical k-means on the sample
        owner = np.argmax(sample @ centers.T, axis=1)
        for c in range(k):
            members = sample[owner == c]
            if len(members):
                mean = members.sum(0)
                centers[c] = mean / np.linalg.norm(mean)
    owner = np.argmax(rows @ centers.T, axis=1)
    sizes = np.bincount(owner, minlength=k).astype(np.float64)
    mean_of = np.zeros((k, rows.shape[1]))
    radius, cos_widest = np.zeros(k), np.ones(k)
    for c in range(k):
        members = rows[owner == c].astype(np.float64)
        if len(members):
            mean_of[c] = members.mean(0)
            radius[c] = np.sqrt(((members - mean_of[c]) ** 2).sum(1)).max()
            axis = mean_of[c] / np.linalg.norm(mean_of[c])
            cos_widest[c] = (members @ axis).min()
            centers[c] = axis
    q = saves.astype(np.float64)
    ball = q @ mean_of.T + radius[None, :]
    apart = np.arccos(np.clip(q @ centers.T.astype(np.float64), -1, 1))
    cone = np.cos(np.maximum(0.0, apart - np.arccos(np.clip(cos_widest, -1, 1))[None, :]))
    return {
        "clusters": k,
        "ball": _kept_share(ball >= threshold - MARGIN, sizes, pass_size),
        "cone": _kept_share(np.minimum(ball, cone) >= threshold - MARGIN, sizes, pass_size),
    }


class PrefixScreen:
    """The PCA-prefix bound: each row's first ``dims`` principal coordinates and an
    upper bound of its residual's length, as one (rows x dims + 1) float32 matrix."""

    def __init__(self, rows: np.ndarray, dims: int) -> None:
        rng = np.random.default_rng(0)
        sample = rows[rng.choice(len(rows), min(8192, len(rows)), replace=False)]
        sample64 = sample.astype(np.float64)
        _, basis = np.linalg.eigh(sample64.T @ sample64)
        self.basis = np.ascontiguousarray(basis[:, ::-1][:, :dims], dtype=np.float32)
        self.matrix = self._augment(rows)

    def _augment(self, vectors: np.ndarray) -> np.ndarray:
        head = vectors @ self.basis
        rest = np.einsum("ij,ij->i", vectors, vectors) - np.einsum("ij,ij->i", head, head)
        # float32 cancellation in |v|^2 - |v_P|^2: a slack keeps the bound an upper one
        return np.hstack([head, np.sqrt(np.maximum(rest, 0.0) + 3e-5)[:, None]])

    def bounds(self, saves: np.ndarray) -> np.ndarray:
        """(saves x rows) upper bounds of the cosines."""
        out: np.ndarray = self._augment(saves) @ self.matrix.T
        return out


def full_product(rows: np.ndarray, saves: np.ndarray, threshold: float) -> list[np.ndarray]:
    """What search_many computes: every cosine, then the rows at or above threshold."""
    scores = rows @ saves.T
    positions, columns = np.divmod(np.flatnonzero(scores >= threshold), saves.shape[0])
    order = np.argsort(columns, kind="stable")
    positions, columns = positions[order], columns[order]
    bounds = np.searchsorted(columns, np.arange(saves.shape[0] + 1))
    return [positions[bounds[i] : bounds[i + 1]] for i in range(saves.shape[0])]


def screened(
    rows: np.ndarray, saves: np.ndarray, screen: PrefixScreen, threshold: float
) -> tuple[list[np.ndarray], int]:
    """The same hits from the screen's kept rows, rescored exactly (einsum: one fixed
    summation order per row, wherever the row sits). Also how many rows were rescored."""
    keep = screen.bounds(saves) >= np.float32(threshold - MARGIN)
    columns, positions = np.divmod(np.flatnonzero(keep), rows.shape[0])
    bounds = np.searchsorted(columns, np.arange(saves.shape[0] + 1))
    out = []
    for i in range(saves.shape[0]):
        candidates = positions[bounds[i] : bounds[i + 1]]
        scores = np.einsum("ij,j->i", rows[candidates], saves[i])
        out.append(candidates[scores >= threshold])
    return out, int(positions.size)


def timing(
    rows: np.ndarray, saves: np.ndarray, dims: list[int], threshold: float, pass_size: int
) -> list[dict[str, Any]]:
    cpu = time.process_time()
    reference: list[np.ndarray] = []
    for lo in range(0, len(saves), pass_size):
        reference += full_product(rows, saves[lo : lo + pass_size], threshold)
    out: list[dict[str, Any]] = [{"method": "full product", "cpu_s": time.process_time() - cpu}]
    for d in dims:
        cpu = time.process_time()
        screen = PrefixScreen(rows, d)
        built = time.process_time() - cpu
        cpu = time.process_time()
        found: list[np.ndarray] = []
        rescored = 0
        for lo in range(0, len(saves), pass_size):
            hits, kept = screened(rows, saves[lo : lo + pass_size], screen, threshold)
            found += hits
            rescored += kept
        out.append(
            {
                "method": f"PCA prefix, {d} dims",
                "cpu_s": time.process_time() - cpu,
                "build_cpu_s": built,
                "rows_rescored_per_save": rescored / len(saves),
                "same_ids": all(
                    np.array_equal(a, b) for a, b in zip(reference, found, strict=True)
                ),
            }
        )
    return out


def layout_bits(rows: np.ndarray, saves: np.ndarray) -> dict[str, int]:
    """Cosines of rows 10,000-12,999 that differ in their bits between one product over
    all rows and one over that range alone (same arithmetic, another blocking)."""
    whole = rows @ saves.T
    part = rows[10_000:13_000] @ saves.T
    return {"compared": part.size, "differ": int((part != whole[10_000:13_000]).sum())}


def main() -> None:
    p = parser(__doc__ or "", "probe_candidate_pruning.json")
    p.add_argument("--size", type=int, default=100_000, help="rows of the synthetic store")
    p.add_argument("--saves", type=int, default=400)
    p.add_argument("--pass-size", type=int, default=64)
    p.add_argument("--clusters", type=int, nargs="+", default=[256, 1024])
    p.add_argument("--dims", type=int, nargs="+", default=[64, 96, 128])
    p.add_argument("--cache", type=Path, default=None, help="folder for the embeddings")
    args = p.parse_args()
    threshold = Settings().consolidation.discovery_threshold
    embedder = LocalEmbedder()
    msc = _embedded(embedder, persona_sentences(args.data), args.cache, "msc-train")
    turns = _embedded(embedder, _dev_turns(args.data), args.cache, "locomo-dev-turns")
    synthetic = realistic_vectors(msc[:2000], args.size + args.saves)  # as bench_drain.py
    real = np.concatenate([msc, turns])
    real = real[np.random.default_rng(1).permutation(len(real))]
    stores = {
        f"synthetic ({args.size:,})": (synthetic[: args.size], synthetic[args.size :]),
        f"MSC + LoCoMo dev turns ({len(real) - args.saves:,})": (
            real[args.saves :],
            real[: args.saves],
        ),
    }
    out: dict[str, Any] = {"threshold": threshold, "stores": {}}
    rows_out = []
    for name, (rows, saves) in stores.items():
        found: dict[str, Any] = {"clusters": [], "prefix": []}
        for k in args.clusters:
            got = cluster_bounds(rows, saves, k, threshold, args.pass_size)
            found["clusters"].append(got)
            for kind in ("ball", "cone"):
                share = got[kind]
                rows_out.append(
                    [
                        name,
                        f"{k} clusters, {kind}",
                        f"{share['per_save']:.2%}",
                        f"{share['per_pass']:.2%}",
                    ]
                )
        for d in args.dims:
            keep = PrefixScreen(rows, d).bounds(saves) >= np.float32(threshold - MARGIN)
            share = _kept_share(keep, np.ones(rows.shape[0]), args.pass_size)
            found["prefix"].append({"dims": d, **share})
            rows_out.append(
                [
                    name,
                    f"PCA prefix, {d} dims",
                    f"{share['per_save']:.2%}",
                    f"{share['per_pass']:.2%}",
                ]
            )
        out["stores"][name] = found
    table(
        f"rows a bound cannot skip (cosine >= {threshold})",
        rows_out,
        ["store", "bound", "kept per save", f"kept per pass of {args.pass_size}"],
    )
    rows, saves = stores[f"synthetic ({args.size:,})"]
    out["timing"] = timing(rows, saves, args.dims, threshold, args.pass_size)
    out["layout_bits"] = layout_bits(rows, saves[: args.pass_size])
    table(
        f"CPU seconds for {args.saves} saves in passes of {args.pass_size}, {args.size:,} rows",
        [
            [
                t["method"],
                f"{t['cpu_s']:.3f}",
                f"{t.get('build_cpu_s', 0.0):.3f}",
                f"{t.get('rows_rescored_per_save', float(args.size)):.0f}",
                str(t.get("same_ids", True)),
            ]
            for t in out["timing"]
        ],
        ["method", "search CPU s", "build CPU s", "rows scored per save", "same ids"],
    )
    bits = out["layout_bits"]
    print(f"BLAS bits: {bits['differ']:,} of {bits['compared']:,} cosines differ by row range")
    write_json(args.out, out)


if __name__ == "__main__":
    main()
