"""``run_eval``: the whole quality evaluation, as ``memfold eval`` runs it."""

from __future__ import annotations

import json
import os
import platform
import tempfile
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from rich.console import Console

from memfold.config import Settings
from memfold.embed import make_embedder
from memfold.evaluation.embed_cache import CachingEmbedder
from memfold.evaluation.env import JUDGES, EvalEnv, make_progress
from memfold.evaluation.pairs_data import PAIR_DATASETS
from memfold.evaluation.provenance import provenance
from memfold.evaluation.report import print_report
from memfold.evaluation.run_beam import run_beam
from memfold.evaluation.run_locomo import run_locomo
from memfold.evaluation.run_pairs import run_pair_dataset
from memfold.evaluation.run_scenarios import run_scenarios
from memfold.evaluation.run_turns import run_turns
from memfold.evaluation.scripted_judge import is_scripted
from memfold.evaluation.splits import check_split
from memfold.model import JSONDict

SUITES = ("pairs", "locomo", "turns", "beam", "beam-facts", "scenarios")
DEFAULT_DATASETS = ("sick", "msrp", "stsb")


def run_eval(
    data: Path,
    *,
    split: str = "dev",
    judge: str = "rules",
    suites: Sequence[str] = SUITES,
    datasets: Sequence[str] = DEFAULT_DATASETS,
    limit: int | None = None,
    max_convs: int | None = None,
    out: Path = Path("results"),
    cache: Path | None = None,
    console: Console | None = None,
    settings: Settings | None = None,
    scenarios: Path | None = None,
) -> JSONDict:
    """Run the chosen suites, print the tables, write ``out``/eval-<split>-<judge>.json.
    ``scenarios``: a scenario file to run instead of the split's (``data``/scenarios/)."""
    chosen_split = check_split(split)
    if judge not in JUDGES:
        raise ValueError(f"--judge must be one of {', '.join(JUDGES)}")
    if is_scripted(judge) and set(suites) != {"scenarios"}:
        raise ValueError(f"--judge {judge} is scripted per scenario: use --suite scenarios")
    bad = [s for s in suites if s not in SUITES] + [d for d in datasets if d not in PAIR_DATASETS]
    if bad:
        raise ValueError(f"unknown suite or data set: {', '.join(bad)}")
    if not data.is_dir():
        raise FileNotFoundError(f"no data folder at {data}")
    if scenarios is not None and not scenarios.is_file():
        raise FileNotFoundError(f"no scenario file at {scenarios}")
    # Wide tables stay readable when written to a file or a narrow terminal.
    console = console or Console(width=170)
    settings = settings or Settings()
    out_file = out if out.suffix == ".json" else out / f"eval-{chosen_split}-{judge}.json"
    cache_dir = cache or out_file.parent / "cache"
    embedder = CachingEmbedder(make_embedder(settings.embed), cache_dir)
    results: JSONDict = {
        "split": chosen_split,
        "judge": judge,
        "data": str(data),
        "limit": limit,
        "max_convs": max_convs,
        "started": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {
            "python": platform.python_version(),
            "cpus": _cpus(),
            "loadavg_at_start": [round(x, 2) for x in os.getloadavg()],
        },
        **provenance("memfold"),
        "seconds": {},
    }
    with tempfile.TemporaryDirectory(prefix="memfold-eval-") as tmp, make_progress() as progress:
        env = EvalEnv(
            data, chosen_split, judge, settings, embedder, Path(tmp), progress, limit, max_convs
        )
        env.scenario_path = scenarios
        if "pairs" in suites:
            started = time.perf_counter()
            results["pairs"] = [run_pair_dataset(env, name) for name in datasets]
            results["seconds"]["pairs"] = round(time.perf_counter() - started, 1)
        if "locomo" in suites:
            started = time.perf_counter()
            results["locomo"] = run_locomo(env)
            results["seconds"]["locomo"] = round(time.perf_counter() - started, 1)
        if "turns" in suites:
            started = time.perf_counter()
            results["turns"] = run_turns(env)
            results["seconds"]["turns"] = round(time.perf_counter() - started, 1)
        if "beam" in suites:
            started = time.perf_counter()
            results["beam"] = run_beam(env)
            results["seconds"]["beam"] = round(time.perf_counter() - started, 1)
        if "beam-facts" in suites:
            started = time.perf_counter()
            results["beam_facts"] = run_beam(env, ingest="facts")
            results["seconds"]["beam_facts"] = round(time.perf_counter() - started, 1)
        if "scenarios" in suites:
            started = time.perf_counter()
            results["scenarios"] = run_scenarios(env)
            results["seconds"]["scenarios"] = round(time.perf_counter() - started, 1)
        embedder.save()
    print_report(console, results)
    out_file.parent.mkdir(parents=True, exist_ok=True)
    out_file.write_text(json.dumps(results, indent=2, default=str), encoding="utf-8")
    console.print(f"results written to {out_file}")
    return results


def _cpus() -> int | None:
    import os

    return os.cpu_count()
