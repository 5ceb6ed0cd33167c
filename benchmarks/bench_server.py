"""Load test of the REST API on loopback (issue 13): mixed add/search/get from concurrent
clients against a real ``memfold serve`` process, then a check that no acknowledged
write is lost.

    .venv/bin/python benchmarks/bench_server.py [--data PATH] [--out FILE]
        [--clients 32] [--duration 60] [--users 8] [--preload 300]
        [--mix add=20,search=50,get=30] [--consolidate background] [--kill]

What is measured (one run):
- A fresh SQLite file: ``--users`` users with ``--preload`` memories each (MSC persona
  sentences varied as in bench_store.py, real embeddings, add_many without
  consolidation), and one write key per client made with ``memfold keys create``
  (client i: user i mod users).
- ``memfold serve --path FILE --port FREE --consolidate MODE`` in its own process (so
  this load generator does not share its GIL), with ``MEMFOLD_SERVER__RATE_LIMIT_PER_MINUTE``
  set to 1,000,000: the per-key limit (600 by default) would otherwise answer most
  requests with 429 and the run would measure the limiter, not the server. The limiter
  still runs on every request. The server writes its access log to a file.
- After one warm-up search per client (not counted: it loads the model and the index),
  each client (httpx.AsyncClient, one connection, one request at a time, no think time)
  draws an operation from ``--mix`` until ``--duration`` seconds have passed: add
  (``POST /v1/memories``, a persona sentence not in the preload), search
  (``POST /v1/memories/search``, limit 10, another persona sentence) or get
  (``GET /v1/memories/{id}`` of an id of its user it added, saw in a search, or that was
  preloaded). Every request's latency and status is recorded.
- Throughput = requests / the run's wall time; latencies are client-side (they include
  the client's own queueing on this machine). The server's CPU (``/proc``), this
  process's CPU and the load average are read at the start and end of the run.
- Durability: every add answered 2xx is an acknowledged write. After the run the server
  is stopped with SIGTERM (``--kill``: SIGKILL at the deadline, while requests are in
  flight; the requests it cuts are counted apart, not as errors), then the file is
  opened read-only with ``memfold.Memory`` and each acknowledged id must exist with its
  text (or a text that a logged consolidation change gave it). Exit 1 if any is lost.

The clients are in server_load.py.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx

from bench_common import console, machine, parser, persona_sentences, table, vary, write_json
from memfold import Memory
from memfold.errors import NotFound
from server_load import OPS, Client, Sample, Workload, parse_mix, run_load

MEMFOLD = (sys.executable, "-m", "memfold.cli")  # the ``memfold`` command of this venv
RATE_LIMIT = 1_000_000  # requests per key per minute: far above what the run can reach
STARTUP_S = 120.0  # the server imports memfold, FastAPI and uvicorn on a busy machine
PRELOAD_BASE = 2_000  # persona sentences varied for the preload; later ones are new


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def git_state() -> str:
    """The commit measured, and the source files changed beside it (a shared tree)."""
    git = ["git", "-C", str(Path(__file__).resolve().parent.parent)]
    head = subprocess.run([*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    changed = subprocess.run([*git, "status", "--porcelain", "src"], capture_output=True, text=True)
    files = [line[3:] for line in changed.stdout.splitlines()]
    return head.stdout.strip() + (f" + uncommitted {files}" if files else "")


# --- setup: the store, the keys, the server -------------------------------------------


def preload(path: Path, users: list[str], texts: list[str], per_user: int) -> dict[str, list[str]]:
    """``per_user`` memories per user, written directly; returns each user's ids."""
    ids: dict[str, list[str]] = {}
    with Memory(path, consolidate="off") as mem:
        for n, user in enumerate(users):
            chunk = texts[n * per_user : (n + 1) * per_user]
            added = mem.add_many([{"text": t, "user_id": user} for t in chunk], consolidate=False)
            ids[user] = [r.memory.id for r in added]
    return ids


def make_keys(path: Path, env: dict[str, str], users: list[str]) -> list[str]:
    """One write key per entry of ``users``, each by ``memfold keys create``."""

    def create(user: str) -> str:
        done = subprocess.run(
            [*MEMFOLD, "keys", "create", "--role", "write", "--user-id", user, "--path", str(path)],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        return done.stdout.strip()

    with ThreadPoolExecutor(max_workers=4) as pool:
        return list(pool.map(create, users))


def start_server(
    path: Path, env: dict[str, str], mode: str, log: Path
) -> tuple[subprocess.Popen[bytes], str]:
    """``memfold serve`` on a free loopback port, its output to ``log``; once it answers."""
    port = free_port()
    with log.open("w") as sink:
        process = subprocess.Popen(
            [*MEMFOLD, "serve", "--path", str(path), "--port", str(port), "--consolidate", mode],
            env=env,
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + STARTUP_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"memfold serve ended with {process.returncode}:\n{log.read_text()}")
        try:
            if httpx.get(f"{url}/openapi.json", timeout=2).status_code == 200:
                return process, url
        except httpx.TransportError:
            time.sleep(0.1)
    process.kill()
    raise SystemExit("memfold serve did not start")


# --- figures -----------------------------------------------------------------------------


def summarize(samples: list[Sample], seconds: float) -> dict[str, Any]:
    """Count, throughput, p50/p99 (ms) and statuses of answered requests and
    transport errors."""
    ms = sorted(s.latency * 1000 for s in samples)
    statuses = Counter(s.error or str(s.status) for s in samples)

    def pct(q: float) -> float | None:
        return round(ms[min(len(ms) - 1, round(q * (len(ms) - 1)))], 2) if ms else None

    return {
        "requests": len(samples),
        "per_s": round(len(samples) / seconds, 1),
        "p50_ms": pct(0.50),
        "p99_ms": pct(0.99),
        "ok": sum(1 for s in samples if 200 <= s.status < 300),
        "rate_limited": statuses.pop("429", 0),
        "errors": {k: v for k, v in sorted(statuses.items()) if not k.startswith("2")},
    }


def figures(clients: list[Client], run: dict[str, Any]) -> dict[str, Any]:
    samples = [s for c in clients for s in c.samples]
    killed_at = run["killed_at_s"]
    cut = []
    if killed_at is not None:  # requests the kill cut off are no server errors
        cut = [s for s in samples if s.status == 0 and s.ended >= killed_at]
        samples = [s for s in samples if not (s.status == 0 and s.ended >= killed_at)]
    seconds = killed_at or run["wall_s"]
    out: dict[str, Any] = {op: summarize([s for s in samples if s.op == op], seconds) for op in OPS}
    out["all"] = summarize(samples, seconds)
    out["cut_by_kill"] = len(cut)
    per_10s = Counter(int(s.ended // 10) for s in samples)
    out["per_s_by_10s"] = [round(per_10s[i] / 10, 1) for i in range(int(seconds // 10))]
    return out


def _strings(value: Any) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list):
        return {s for item in value for s in _strings(item)}
    return set()


def check_writes(path: Path, acknowledged: dict[str, str]) -> dict[str, Any]:
    """Each acknowledged id must exist with its text, or with a text a logged
    consolidation change gave it (its old text in the row's snapshots)."""
    intact = retexted = 0
    lost: list[str] = []
    with Memory(path, consolidate="off", read_only=True) as mem:
        for memory_id, text in acknowledged.items():
            try:
                record = mem.get(memory_id)
            except NotFound:
                lost.append(memory_id)
                continue
            if record.text == text:
                intact += 1
            elif any(text in _strings([e.before, e.after]) for e in mem.history(memory_id)):
                retexted += 1
            else:
                lost.append(memory_id)
        stats = mem.stats()
    return {
        "acknowledged": len(acknowledged),
        "intact": intact,
        "retexted_by_consolidation": retexted,
        "lost": len(lost),
        "lost_ids": lost[:20],
        "memories_by_status": stats["by_status"],
        "memories_in_file": stats["memories"],
        "jobs_after_stop": {k: stats[f"jobs_{k}"] for k in ("pending", "waiting", "running")},
    }


def stop_server(server: subprocess.Popen[bytes], kill: bool) -> dict[str, Any]:
    started = time.perf_counter()
    if not kill:
        server.send_signal(signal.SIGTERM)
    code = server.wait(timeout=120)
    return {
        "signal": "SIGKILL" if kill else "SIGTERM",
        "exit_code": code,
        "stop_s": round(time.perf_counter() - started, 2),
    }


# --- main --------------------------------------------------------------------------------


def main() -> int:
    p = parser(__doc__ or "", "bench_server.json")
    p.add_argument("--clients", type=int, default=32)
    p.add_argument("--duration", type=float, default=60.0, help="seconds")
    p.add_argument("--users", type=int, default=8)
    p.add_argument("--preload", type=int, default=300, help="memories per user")
    p.add_argument("--mix", default="add=20,search=50,get=30")
    p.add_argument("--consolidate", default="background", help="the server's mode")
    p.add_argument("--kill", action="store_true", help="SIGKILL the server at the deadline")
    args: argparse.Namespace = p.parse_args()
    weights = parse_mix(args.mix)
    users = [f"user{i:02d}" for i in range(args.users)]
    base = persona_sentences(args.data)
    fresh = base[PRELOAD_BASE:]
    add_texts = vary(fresh[: len(fresh) // 2], 20_000, seed=11)
    queries = fresh[len(fresh) // 2 :]
    out: dict[str, Any] = {"machine": machine(), "method": __doc__, "args": vars(args)}
    out["machine"]["code"] = git_state()
    with tempfile.TemporaryDirectory(prefix="memfold-server-") as tmp:
        folder = Path(tmp)
        path = folder / "memfold.db"
        (folder / "config.toml").write_text("")
        env = {
            **os.environ,
            "MEMFOLD_CONFIG": str(folder / "config.toml"),
            "MEMFOLD_SERVER__RATE_LIMIT_PER_MINUTE": str(RATE_LIMIT),
        }
        os.environ["MEMFOLD_CONFIG"] = env["MEMFOLD_CONFIG"]  # the preload's settings too
        console.print(f"preloading {args.users} users x {args.preload} memories")
        ids = preload(
            path, users, vary(base[:PRELOAD_BASE], args.users * args.preload), args.preload
        )
        client_users = [users[i % len(users)] for i in range(args.clients)]
        console.print(f"{args.clients} keys with memfold keys create")
        tokens = make_keys(path, env, client_users)
        server, url = start_server(path, env, args.consolidate, folder / "server.log")
        console.print(f"memfold serve at {url} (pid {server.pid}); {args.duration:.0f} s of load")
        clients = [
            Client(token, user, list(ids[user]), random.Random(1_000 + i))
            for i, (token, user) in enumerate(zip(tokens, client_users, strict=True))
        ]
        try:
            work = Workload(weights, add_texts, queries)
            run = asyncio.run(run_load(clients, url, work, args.duration, server, args.kill))
        finally:
            if server.poll() is None and not args.kill:
                out["stop"] = stop_server(server, kill=False)
            elif server.poll() is None:
                server.kill()
        if args.kill:
            out["stop"] = stop_server(server, kill=True)
        out["run"] = run
        out["ops"] = figures(clients, run)
        acknowledged = {k: v for c in clients for k, v in c.acknowledged.items()}
        out["durability"] = check_writes(path, acknowledged)
        out["server_log_tail"] = (folder / "server.log").read_text().splitlines()[-3:]
    write_json(args.out, out)
    report(out)
    return 1 if out["durability"]["lost"] else 0


def report(out: dict[str, Any]) -> None:
    ops, run, args = out["ops"], out["run"], out["args"]
    rows = []
    for op in (*OPS, "all"):
        f = ops[op]
        errors = ", ".join(f"{k}: {v}" for k, v in f["errors"].items()) or "0"
        rows.append(
            [
                op,
                f"{f['requests']:,}",
                f"{f['per_s']:.1f}",
                f"{f['p50_ms']}",
                f"{f['p99_ms']}",
                f"{f['ok']:,}",
                str(f["rate_limited"]),
                errors,
            ]
        )
    title = (
        f"memfold serve under load: {args['clients']} clients, {args['duration']:.0f} s, "
        f"mix {args['mix']}, --consolidate {args['consolidate']}"
        + (", SIGKILL at the deadline" if args["kill"] else "")
    )
    table(title, rows, ["op", "requests", "req/s", "p50 ms", "p99 ms", "2xx", "429", "errors"])
    seconds = run["killed_at_s"] or run["wall_s"]
    d, stop = out["durability"], out["stop"]
    console.print(
        f"wall {run['wall_s']} s; throughput by 10 s: {ops['per_s_by_10s']}\n"
        f"server CPU {run['server_cpu_s']} s = {100 * run['server_cpu_s'] / seconds:.0f} % of "
        f"one core; load generator CPU {run['own_cpu_s']} s = "
        f"{100 * run['own_cpu_s'] / seconds:.0f} %; {out['machine']['cpus']} cores\n"
        f"load average at start {run['load_start']}, at end {run['load_end']}; "
        f"code {out['machine']['code']}\n"
        f"server stopped by {stop['signal']}: exit {stop['exit_code']} after {stop['stop_s']} s"
        + (f"; requests cut by the kill: {ops['cut_by_kill']}" if args["kill"] else "")
        + f"\nconsolidation jobs after the stop: {d['jobs_after_stop']}; memories in the file: "
        f"{d['memories_in_file']:,} ({out['args']['users'] * out['args']['preload']:,} "
        f"preloaded), by status: {d['memories_by_status']}\n"
        f"acknowledged writes: {d['acknowledged']:,}, lost: {d['lost']} "
        f"(text as written: {d['intact']:,}, retexted by logged consolidation: "
        f"{d['retexted_by_consolidation']})"
    )


if __name__ == "__main__":
    raise SystemExit(main())
