"""Shared helpers of the benchmark scripts: arguments, timing, corpus, output.

Run the scripts from the repo root: ``.venv/bin/python benchmarks/<name>.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shlex
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

try:
    from memfold.evaluation.provenance import provenance
except ImportError:  # an older memfold on PYTHONPATH (bench_add.py compares two trees)

    def provenance(program: str | None = None) -> dict[str, Any]:
        """The command line, and no commit: the code that ran predates its stamp."""
        shown = program.split() if program else ["python", Path(sys.argv[0]).as_posix()]
        return {"command": shlex.join([*shown, *sys.argv[1:]]), "commit": None}


DEFAULT_DATA = Path("../shared/bench-data")
console = Console(width=150)


def parser(description: str, default_out: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--data", type=Path, default=DEFAULT_DATA, help="bench-data folder")
    p.add_argument("--out", type=Path, default=Path("results") / default_out, help="JSON file")
    return p


def progress() -> Progress:
    return Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
    )


def stats_ms(seconds: Sequence[float]) -> dict[str, float]:
    """Median, p95 and mean of durations, in milliseconds."""
    ms = sorted(s * 1000 for s in seconds)
    p95 = ms[min(len(ms) - 1, round(0.95 * (len(ms) - 1)))]
    return {
        "median_ms": round(statistics.median(ms), 3),
        "p95_ms": round(p95, 3),
        "mean_ms": round(statistics.fmean(ms), 3),
        "n": len(ms),
    }


def timed(fn: Callable[[], Any], repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        out.append(time.perf_counter() - started)
    return out


def machine() -> dict[str, Any]:
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    return {
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "loadavg_at_start": None if load is None else [round(x, 2) for x in load],
        "time": datetime.now(UTC).isoformat(timespec="seconds"),
    }


def write_json(path: Path, payload: dict[str, Any]) -> None:
    """The result, with the command and commit that made it and the machine it ran on
    (what scripts/render_benchmarks.py shows beside each figure)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    stamped = {**provenance(), "machine": machine(), **payload}
    path.write_text(json.dumps(stamped, indent=2, default=str), encoding="utf-8")
    console.print(f"results written to {path}")


def table(title: str, rows: Sequence[Sequence[str]], header: Sequence[str]) -> None:
    t = Table(title=title)
    for col in header:
        t.add_column(col)
    for row in rows:
        t.add_row(*row)
    console.print(t)


def met(ok: bool) -> str:
    return "[green]met[/]" if ok else "[red]missed[/]"


# --- a realistic corpus ----------------------------------------------------------------

_NAMES = ["Alice", "Bob", "Chen", "Dana", "Emeka", "Farah", "Goran", "Hana", "Ivan", "Jia"]
_PREFIXES = ["", "The user says ", "{name} mentioned that ", "Apparently ", "As of {year}, "]
_SUFFIXES = ["", " since {year}.", " on weekends.", " with {name}.", " most days."]


def persona_sentences(data: Path, limit: int | None = None) -> list[str]:
    """Distinct MSC persona sentences (train part) from bench-data."""
    raw = json.loads((data / "locomo" / "msc_personas_all.json").read_text(encoding="utf-8"))
    seen: dict[str, None] = {}
    for dialog in raw["train"]:
        for key, sentences in dialog.items():
            if key.startswith("Speaker") and isinstance(sentences, list):
                for s in sentences:
                    seen.setdefault(str(s).strip(), None)
    out = [s for s in seen if s]
    return out[:limit] if limit else out


def vary(base: Sequence[str], n: int, seed: int = 7) -> list[str]:
    """``n`` texts: persona sentences with a random prefix/suffix, name and year, so the
    keyword index sees realistic, mostly distinct texts."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        sentence = base[i % len(base)].rstrip(".")
        fill = {"name": rng.choice(_NAMES), "year": rng.randint(1995, 2025)}
        prefix = rng.choice(_PREFIXES).format(**fill)
        suffix = rng.choice(_SUFFIXES).format(**fill) or "."
        out.append(
            f"{prefix}{sentence[0].lower() if prefix else sentence[0]}{sentence[1:]}{suffix}"
        )
    return out


def realistic_vectors(seeds: np.ndarray, n: int, noise: float = 0.35, seed: int = 7) -> np.ndarray:
    """``n`` unit vectors near real sentence embeddings: row i is seeds[i % len] plus
    Gaussian noise (per-dimension sigma ``noise / sqrt(dim)``), renormalized. Cosine to its
    seed is about 0.94, so the matrix keeps the clustered geometry of real embeddings."""
    rng = np.random.default_rng(seed)
    dim = seeds.shape[1]
    out = seeds[np.arange(n) % len(seeds)].astype(np.float32)
    out += rng.standard_normal((n, dim)).astype(np.float32) * (noise / np.sqrt(dim))
    out /= np.linalg.norm(out, axis=1, keepdims=True)
    return out
