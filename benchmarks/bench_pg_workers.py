"""Queued saves drained by 1, 2 and 4 ``memfold worker`` processes, SQLite vs PostgreSQL,
with the rule judge or an LLM judge that answers after a fixed latency.

    .venv/bin/python benchmarks/bench_pg_workers.py [--saves 600] [--workers 1,2,4]
        [--judge rules|llm|both] [--llm-saves 320] [--llm-latency-ms 200] [--out FILE]

Each configuration gets a fresh store (a SQLite file, or a fresh schema of the tests'
pgserver) with SAVES queued saves (``consolidate="queue"``, vectors precomputed with the
local model): restatements of SAVES / 4 synthetic facts, so most saves find candidates
and reach the judge. W worker processes (``memfold worker``, poll 0.05 s) start on the
empty store; once each has taken a warm-up save (a scope of its own), the saves are
queued in one transaction (``add_many``, vectors given) and the clock runs until no job
is pending or running.

``--judge llm``: the workers' judge is the LLM judge (``batch_size`` saves a call, rules
first off: every judged save is asked) against the scripted OpenAI-compatible server
(``memfold.testing.fake_llm``) on 127.0.0.1 in this process. Like an API it answers each
call after ``--llm-latency-ms``: REPLACE for a candidate that states the same fact (the
same words once the restatement's wrapper is taken off), else KEEP_SEPARATE. That is the
deployment several workers are for: a decision waits on the network, and the workers
overlap those waits.

So ``drain_s`` is the rate of a worker pool that is already running; ``startup_s``
(each worker imports memfold and opens the store) is reported apart. Saves per second
and the ratio to one worker are computed on ``drain_s``. ``cpu_s`` is the workers' CPU
time in the drain (user + system, from /proc), ``pg_cpu_s`` PostgreSQL's (its processes'
times in /proc, while the workers run), ``lock_waiters_mean`` the sessions found
waiting on an advisory lock (the writer lock) at each poll, on average.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from contextlib import ExitStack
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from bench_common import parser, write_json
from helpers.postgres import running_server
from memfold import Memory
from memfold.embed.local import LocalEmbedder
from memfold.testing.fake_llm import FakeLLMServer
from memfold.testing.fake_replies import Reply, user_payload

CITIES = ["Lyon", "Oslo", "Porto", "Kyoto", "Quito", "Accra", "Hanoi", "Perth"]
JOBS = ["teacher", "nurse", "pilot", "chef", "baker", "welder", "lawyer", "farmer"]
FORMS = ["{}", "{}.", "Note: {}", "{} (confirmed)"]


def saves(n: int) -> list[str]:
    facts = [f"Person{i} works as a {JOBS[i % 8]} in {CITIES[(i // 8) % 8]}" for i in range(n // 4)]
    return [form.format(fact) for form in FORMS for fact in facts]


def _fact(text: str) -> str:
    """The fact under a restatement's wrapper (FORMS)."""
    return re.sub(r"^Note: | \(confirmed\)$|\.$", "", text)


def responder(latency_s: float) -> Any:
    """The scripted judge: one decision per item, answered after ``latency_s``."""

    def respond(body: dict[str, Any]) -> Reply:
        decisions = []
        for item in user_payload(body).get("items", []):
            fact = _fact(item["new"]["text"])
            same = [c["id"] for c in item["candidates"] if _fact(c["text"]) == fact]
            action = "REPLACE" if same else "KEEP_SEPARATE"
            decisions.append(
                {"item": item["item"], "reasoning": "same fact" if same else "another person",
                 "action": action, "targets": same[:1], "category": "semantic",
                 "confidence": 0.95}
            )  # fmt: skip
        return Reply({"decisions": decisions}, delay_s=latency_s)

    return respond


def _server_cpu(data: Path) -> float:
    """CPU seconds PostgreSQL has spent: its postmaster, the backends that exited (their
    time lands in the postmaster's children's fields) and those still running."""
    tick = os.sysconf("SC_CLK_TCK")
    postmaster = int((data / "postmaster.pid").read_text().split()[0])
    total = 0.0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # the process ended meanwhile
            continue
        pid, ppid = int(stat.parent.name), int(fields[1])
        if pid == postmaster:
            total += sum(int(f) for f in fields[11:15]) / tick  # utime stime cutime cstime
        elif ppid == postmaster:
            total += sum(int(f) for f in fields[11:13]) / tick
    return total


def _process_cpu(pid: int) -> float:
    """CPU seconds (user + system) the live process ``pid`` has spent."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(f) for f in fields[11:13]) / os.sysconf("SC_CLK_TCK")


def _wait_started(
    mem: Memory, procs: list[subprocess.Popen[str]], vector: list[float], timeout_s: float = 300.0
) -> None:
    """Until every worker has claimed and finished a job: one warm-up save at a time, each
    in a scope of its own (nothing to judge), while any worker has taken none."""
    pids = {str(p.pid) for p in procs}
    deadline = time.monotonic() + timeout_s
    n = 0
    while time.monotonic() < deadline:
        if any(p.poll() is not None for p in procs):
            raise RuntimeError("a worker exited before the drain (its output follows)")
        owners = {j.owner.split(":")[1] for j in mem.store.list_jobs("done") if j.owner}
        if pids <= owners:
            return
        if not mem.store.count_jobs("pending"):
            mem.add(f"warm-up {n}", user_id=f"warm-up-{n}", embedding=vector)
            n += 1
        time.sleep(0.05)
    raise RuntimeError("the workers did not start")


def drain(
    where: dict[str, Any],
    env: dict[str, str],
    workers: int,
    texts: list[str],
    vectors: Any,
    embedder: LocalEmbedder,
    pg_data: Path,
) -> dict[str, Any]:
    """Start ``workers`` on an empty store, wait until each has done a warm-up job, queue
    every save in one transaction (``add_many``), and time the drain."""
    exe = str(Path(sys.executable).parent / "memfold")
    extra = env.pop("ARGS", "").split()
    with Memory(**where, embedder=embedder, consolidate="queue") as mem, ExitStack() as stack:
        started = time.perf_counter()
        # Output to files: a pipe read only at the end fills up and blocks a worker.
        logs = [stack.enter_context(tempfile.TemporaryFile("w+")) for _ in range(workers)]
        procs = [
            subprocess.Popen(
                [exe, "worker", *extra], env=env, stdout=log, stderr=subprocess.STDOUT, text=True
            )
            for log in logs
        ]
        # PostgreSQL: sessions waiting on the writer lock, sampled at each poll.
        probe = psycopg.connect(where["url"], autocommit=True) if "url" in where else None
        waiting: list[int] = []
        try:
            _wait_started(mem, procs, vectors[0].tolist())
            startup = time.perf_counter() - started
            cpu_before = sum(_process_cpu(p.pid) for p in procs)
            pg_before = _server_cpu(pg_data)
            items = [{"text": text, "user_id": "bench"} for text in texts]
            start = time.perf_counter()
            ids = {r.memory.id for r in mem.add_many(items, embeddings=vectors)}
            while True:
                if probe is not None:
                    waiting.append(_lock_waiters(probe))
                if not mem.store.count_jobs("pending") + mem.store.count_jobs("running"):
                    break
                time.sleep(0.05)
            end = time.perf_counter()
            cpu = sum(_process_cpu(p.pid) for p in procs) - cpu_before
            pg_cpu = _server_cpu(pg_data) - pg_before
        finally:
            if probe is not None:
                probe.close()
            for proc in procs:
                proc.send_signal(signal.SIGINT)
            for proc in procs:
                proc.wait(timeout=60)
            failed = [out for out in map(_read, logs) if "Traceback" in out]
            for out in failed:
                print(out[-3000:], file=sys.stderr)
        if failed:
            raise RuntimeError("a worker failed (its output is above)")
        actions = Counter(e.action for e in mem.log(1_000_000) if e.path == "on_save")
        active = len(mem.list(user_id="bench", limit=1_000_000))
        done = mem.store.list_jobs("done")
    return {
        "startup_s": round(startup, 1),
        "drain_s": round(end - start, 2),
        "saves_per_s": round(len(texts) / (end - start), 1),
        "cpu_s": round(cpu, 1),
        "pg_cpu_s": round(pg_cpu, 1) if probe is not None else None,
        "lock_waiters_mean": round(sum(waiting) / len(waiting), 2) if waiting else None,
        "attempts": sum(j.attempts for j in done if j.memory_id in ids),
        # Version conflicts re-planned (a jobs column since 043b742; 0 before it, when
        # each conflict spent an attempt instead).
        "conflicts": sum(getattr(j, "conflicts", 0) for j in done if j.memory_id in ids),
        "actions": dict(actions),
        "active_after": active,
    }


def _read(log: IO[str]) -> str:
    log.seek(0)
    return log.read()


def _lock_waiters(probe: psycopg.Connection[Any]) -> int:
    """Sessions of this database now waiting on an advisory lock (the writer lock)."""
    sql = (
        "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
        "AND wait_event = 'advisory' AND datname = current_database()"
    )
    row = probe.execute(sql).fetchone()
    return int(row[0]) if row else 0


def _workers_env(base: dict[str, str], judge: str, llm_url: str | None) -> dict[str, str]:
    if judge == "rules":
        return dict(base)
    llm = {"base_url": llm_url, "model": "fake-model", "api_key": "x"}
    # Rules first off (null, only expressible as JSON): every judged save asks the LLM.
    return {**base, "MEMFOLD_LLM": json.dumps({**llm, "rules_first_confidence": None})}


def main() -> None:
    p = parser(__doc__ or "", "bench_pg_workers.json")
    p.add_argument("--saves", type=int, default=600, help="saves queued, rule judge")
    p.add_argument("--llm-saves", type=int, default=320, help="saves queued, LLM judge")
    p.add_argument("--workers", default="1,2,4", help="worker counts, in this order")
    p.add_argument("--judge", choices=["rules", "llm", "both"], default="both")
    p.add_argument("--llm-latency-ms", type=float, default=200.0)
    p.add_argument("--backends", default="sqlite,postgres")
    args = p.parse_args()
    counts = [int(w) for w in args.workers.split(",")]
    judges = ["rules", "llm"] if args.judge == "both" else [args.judge]
    embedder = LocalEmbedder()
    base = {k: v for k, v in os.environ.items() if not k.startswith("MEMFOLD_")}
    base["MEMFOLD_CONSOLIDATION__WORKER_POLL_S"] = "0.05"
    results: dict[str, Any] = {
        "started": datetime.now(UTC).isoformat(timespec="seconds"),
        "cores": os.cpu_count(),
        "llm_latency_ms": args.llm_latency_ms,
        "load_before": os.getloadavg(),
        "runs": {},
    }
    server = FakeLLMServer(responder(args.llm_latency_ms / 1000)).start()
    try:
        with tempfile.TemporaryDirectory() as tmp, running_server() as pg:
            pg_data = pg.folder / "data"
            for judge in judges:
                texts = saves(args.saves if judge == "rules" else args.llm_saves)
                vectors = embedder.embed(texts)
                env = _workers_env(base, judge, server.base_url)
                for backend in args.backends.split(","):
                    for workers in counts:
                        key = f"{judge}_{backend}_{workers}w"
                        where: dict[str, Any]
                        if backend == "sqlite":
                            db = Path(tmp) / f"{key}.db"
                            where, run_env = {"path": db}, {**env, "ARGS": f"-p {db}"}
                        else:
                            url = pg.fresh_url("workers")
                            where, run_env = {"url": url}, {**env, "MEMFOLD_URL": url}
                        server.reset_records()
                        run = drain(where, run_env, workers, texts, vectors, embedder, pg_data)
                        run |= {"saves": len(texts), "llm_calls": server.request_count()}
                        run["load"] = round(os.getloadavg()[0], 1)
                        one = results["runs"].get(f"{judge}_{backend}_1w")
                        if one is not None:
                            run["ratio_to_1"] = round(run["saves_per_s"] / one["saves_per_s"], 2)
                        results["runs"][key] = run
                        print(key, json.dumps(run), flush=True)
    finally:
        server.stop()
    results["load_after"] = os.getloadavg()
    write_json(args.out, results)


if __name__ == "__main__":
    main()
