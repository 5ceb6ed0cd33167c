"""Running the five sections with one configuration; the figures as one JSON object."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reliability.adversarial import run_adversarial
from reliability.bad_input import run_bad_input, summarize
from reliability.common import isolated_env
from reliability.concurrent import run_concurrent
from reliability.injection import run_injection
from reliability.kills import Trial, run_kills

SECTIONS = ("kills", "concurrent", "adversarial", "injection", "bad_input")


@dataclass(slots=True)
class Config:
    kills_per_mode: int = 36
    max_delay_s: float = 2.0
    processes: int = 4
    adds: int = 500
    decisions: int = 2000
    timeout_s: float = 0.4
    injections: int = 36
    cli: bool = True
    small: bool = False
    seed: int = 7
    sections: tuple[str, ...] = SECTIONS

    @classmethod
    def small_preset(cls, **overrides: Any) -> Config:
        values: dict[str, Any] = {
            "kills_per_mode": 1,
            "max_delay_s": 1.0,
            "processes": 2,
            "adds": 25,
            "decisions": 120,
            "injections": 12,
            "small": True,
        }
        values.update(overrides)
        return cls(**values)


Log = Callable[[str], None]


def run_all(config: Config, folder: Path, log: Log = print) -> dict[str, Any]:
    """Run the chosen sections in ``folder`` (fresh stores); returns every figure."""
    from memfold.embed.local import LocalEmbedder

    folder.mkdir(parents=True, exist_ok=True)
    out: dict[str, Any] = {"config": dataclasses.asdict(config), "seconds": {}}
    with isolated_env(folder):
        embedder = LocalEmbedder()
        for section in config.sections:
            started = time.monotonic()
            log(f"section {section}...")
            out[section] = _run(section, config, folder, embedder, log)
            out["seconds"][section] = round(time.monotonic() - started, 1)
    return out


def _run(section: str, config: Config, folder: Path, embedder: Any, log: Log) -> Any:
    if section == "kills":

        def progress(trial: Trial) -> None:
            if trial.notes:
                log(f"  {trial.mode}: {'; '.join(trial.notes)[:300]}")

        return run_kills(
            folder / "kills",
            embedder,
            kills_per_mode=config.kills_per_mode,
            max_delay_s=config.max_delay_s,
            seed=config.seed,
            progress=progress,
        ).to_dict()
    if section == "concurrent":
        (folder / "concurrent").mkdir(exist_ok=True)
        result = run_concurrent(
            folder / "concurrent",
            embedder,
            processes=config.processes,
            adds=config.adds,
            seed=config.seed,
        )
        return result.to_dict()
    if section == "adversarial":
        (folder / "adversarial").mkdir(exist_ok=True)
        return run_adversarial(
            folder / "adversarial",
            embedder,
            decisions=config.decisions,
            seed=config.seed,
            timeout_s=config.timeout_s,
        ).to_dict()
    if section == "injection":
        (folder / "injection").mkdir(exist_ok=True)
        return {
            judge: dataclasses.asdict(
                run_injection(
                    folder / "injection",
                    embedder,
                    attempts=config.injections,
                    seed=config.seed,
                    judge=judge,
                )
            )
            for judge in ("obeying", "rules")
        }
    if section == "bad_input":
        cases = run_bad_input(folder / "bad_input", embedder, cli=config.cli, small=config.small)
        return summarize(cases)
    raise ValueError(f"unknown section {section!r}")
