"""Reliability suite: crashes, concurrent writers, a hostile judge, injected
instructions, bad input. Counts what must never happen; writes docs/reliability.md.

    .venv/bin/python benchmarks/bench_reliability.py            # full run (~10 min, 2 cores)
    .venv/bin/python benchmarks/bench_reliability.py --small    # the test suite's size

Sections and their size flags: 1 SIGKILL (--kills per mode, --max-delay), 2 concurrent
writers (--processes, --adds), 3 adversarial judge (--decisions, --timeout), 4 injected
instructions (--injections), 5 bad input (--no-cli). --sections picks some of them.
"""

from __future__ import annotations

import argparse
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench_common import console, machine, table, write_json
from reliability.docs import render
from reliability.report import section_tables, summary
from reliability.run import SECTIONS, Config, run_all

ROOT = Path(__file__).resolve().parents[1]


def _args(argv: list[str] | None) -> argparse.Namespace:
    d = Config()
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--small", action="store_true", help="the small preset (test suite)")
    p.add_argument("--kills", type=int, help=f"SIGKILLs per mode ({d.kills_per_mode})")
    p.add_argument("--max-delay", type=float, help=f"latest kill, s ({d.max_delay_s})")
    p.add_argument("--processes", type=int, help=f"concurrent writers ({d.processes})")
    p.add_argument("--adds", type=int, help=f"adds per writer ({d.adds})")
    p.add_argument("--decisions", type=int, help=f"adversarial decisions ({d.decisions})")
    p.add_argument("--timeout", type=float, help=f"LLM timeout, s ({d.timeout_s})")
    p.add_argument("--injections", type=int, help=f"injection attempts ({d.injections})")
    p.add_argument("--no-cli", action="store_true", help="skip the CLI bad-input cases")
    p.add_argument("--seed", type=int, help=f"random seed ({d.seed})")
    p.add_argument("--sections", default=",".join(SECTIONS), help="comma-separated")
    p.add_argument("--out", type=Path, default=Path("results/reliability.json"))
    p.add_argument("--doc", type=Path, default=Path("docs/reliability.md"))
    p.add_argument("--no-doc", action="store_true", help="do not write the doc page")
    p.add_argument("--work", type=Path, help="folder for the stores (default: a temp dir)")
    return p.parse_args(argv)


def config_from(ns: argparse.Namespace) -> Config:
    overrides: dict[str, Any] = {}
    for flag, field in (
        ("kills", "kills_per_mode"),
        ("max_delay", "max_delay_s"),
        ("processes", "processes"),
        ("adds", "adds"),
        ("decisions", "decisions"),
        ("timeout", "timeout_s"),
        ("injections", "injections"),
        ("seed", "seed"),
    ):
        if getattr(ns, flag) is not None:
            overrides[field] = getattr(ns, flag)
    sections = tuple(s.strip() for s in ns.sections.split(",") if s.strip())
    unknown = set(sections) - set(SECTIONS)
    if unknown:
        raise SystemExit(f"unknown sections: {', '.join(sorted(unknown))}")
    overrides["sections"] = sections
    overrides["cli"] = not ns.no_cli
    return Config.small_preset(**overrides) if ns.small else Config(**overrides)


def _git(*args: str) -> str:
    try:
        out = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return "?"
    return out.stdout.strip()


def print_tables(results: dict[str, Any]) -> None:
    for title, header, rows in section_tables(results):
        table(title, rows, header)
    rows = [
        [s, what, str(n), "[green]0[/]" if n == 0 else "[red]not zero[/]"]
        for s, what, n in summary(results)
    ]
    table("Summary: counts that must be zero", rows, ["section", "counted", "count", "zero"])


def main(argv: list[str] | None = None) -> int:
    ns = _args(argv)
    config = config_from(ns)
    info = machine()
    info["commit"] = _git("rev-parse", "--short", "HEAD")
    info["dirty_files"] = len([ln for ln in _git("status", "--porcelain").splitlines() if ln])
    with tempfile.TemporaryDirectory(prefix="memfold-reliability-") as tmp:
        work = ns.work or Path(tmp)
        results = run_all(config, work, log=lambda m: console.print(m))
    results["machine"] = info
    command = "python benchmarks/bench_reliability.py " + shlex.join(
        sys.argv[1:] if argv is None else argv
    )
    results["command"] = command.strip()
    print_tables(results)
    write_json(ns.out, results)
    if not ns.no_doc:
        ns.doc.parent.mkdir(parents=True, exist_ok=True)
        ns.doc.write_text(render(results, results["command"], info), encoding="utf-8")
        console.print(f"doc written to {ns.doc}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
