"""Where an erased text is left on a PostgreSQL server's disk after ``forget``.

A real PostgreSQL (PyPI's pgserver, run as its superuser) gets one memory holding a
marker; then ``forget(id, vacuum=True)``; then the server's own WAL switches and
checkpoints. After each step every file under the data folder is searched for the
marker: table and index files, and ``pg_wal``. The table says which files still hold it.

    .venv/bin/python benchmarks/probe_pg_forget_wal.py
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from bench_common import machine, parser, table, write_json
from helpers.postgres import running_server
from memfold import Memory

MARKER = "Zorblax quintessence 98127"


def holding(data: Path) -> list[str]:
    """The files under ``data`` that hold the marker, by kind (pg_wal, base, other)."""
    found = subprocess.run(
        ["grep", "-rl", "--binary-files=text", MARKER, str(data)],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.split()
    return sorted(str(Path(p).relative_to(data)) for p in found)


def main() -> None:
    args = parser(__doc__ or "", "probe_pg_forget_wal.json").parse_args()
    steps: list[tuple[str, list[str]]] = []
    with running_server() as pg:
        data = pg.folder / "data"
        with Memory(url=pg.fresh_url(), consolidate="off") as mem:
            added = mem.add(f"Sam's note: {MARKER}", user_id="u").memory
            mem.add("Sam likes tea", user_id="u")
            steps.append(("after add", holding(data)))
            report = mem.forget(added.id, vacuum=True)
            steps.append(("after forget(vacuum=True)", holding(data)))
        with psycopg.connect(pg.base_url, autocommit=True) as conn:
            for n in range(1, 4):
                conn.execute("SELECT pg_switch_wal()")
                conn.execute("CHECKPOINT")
                steps.append((f"after {n} more WAL switch + CHECKPOINT", holding(data)))
    rows = [(step, str(len(files)), ", ".join(files) or "-") for step, files in steps]
    table("Files holding an erased text (PostgreSQL)", rows, ["step", "files", "which"])
    write_json(
        args.out,
        {
            "machine": machine(),
            "checkpointed": report.checkpointed,
            "vacuumed": report.vacuumed,
            "steps": [{"step": s, "files": f} for s, f in steps],
        },
    )


if __name__ == "__main__":
    main()
