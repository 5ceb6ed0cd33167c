"""The load generator of bench_server.py: concurrent clients of the REST API (one
httpx.AsyncClient, one connection and one key each), every request's latency and status
recorded, and the server's CPU and the machine's load read around the run."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

OPS = ("add", "search", "get")
REQUEST_TIMEOUT_S = 60.0


@dataclass
class Sample:
    op: str
    started: float  # seconds since the run began
    latency: float  # seconds
    status: int  # 0: no answer (transport error)
    error: str = ""  # the transport error's type

    @property
    def ended(self) -> float:
        return self.started + self.latency


@dataclass
class Client:
    token: str
    user: str
    known_ids: list[str]  # ids of its user it may get: preloaded, added or seen
    rng: random.Random
    samples: list[Sample] = field(default_factory=list)
    acknowledged: dict[str, str] = field(default_factory=dict)  # id -> text, add got 2xx
    warmup_error: str = ""


@dataclass
class Workload:
    weights: dict[str, float]  # op -> weight
    texts: list[str]  # what adds write
    queries: list[str]  # what searches ask


@dataclass
class Window:
    """The timed run: ``began``/``deadline`` are set once every client has warmed up,
    before ``go`` is set."""

    warmed: asyncio.Barrier
    go: asyncio.Event = field(default_factory=asyncio.Event)
    began: float = 0.0
    deadline: float = 0.0


def parse_mix(text: str) -> dict[str, float]:
    """``add=20,search=50,get=30`` -> weights; a clear exit on anything else."""
    weights: dict[str, float] = {}
    for part in text.split(","):
        name, _, value = part.partition("=")
        try:
            weight = float(value)
        except ValueError:
            weight = -1.0
        if name.strip() not in OPS or weight < 0:
            raise SystemExit(f"--mix: expected add=N,search=N,get=N (N >= 0); got {text!r}")
        weights[name.strip()] = weight
    if sum(weights.values()) <= 0:
        raise SystemExit("--mix: the weights add up to 0")
    return weights


def cpu_seconds(pid: int) -> float:
    """User + system CPU of a process so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def loadavg() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


async def one_request(http: httpx.AsyncClient, client: Client, op: str, work: Workload) -> Sample:
    """Send one ``op`` and time it (``started`` is absolute here)."""
    started = time.perf_counter()
    try:
        if op == "add":
            text = client.rng.choice(work.texts)
            reply = await http.post("/v1/memories", json={"text": text})
            if reply.is_success:
                memory_id = reply.json()["memory"]["id"]
                client.acknowledged[memory_id] = text
                client.known_ids.append(memory_id)
        elif op == "search":
            body = {"query": client.rng.choice(work.queries), "limit": 10}
            reply = await http.post("/v1/memories/search", json=body)
            if reply.is_success:
                client.known_ids.extend(h["id"] for h in reply.json()["results"])
        else:
            reply = await http.get(f"/v1/memories/{client.rng.choice(client.known_ids)}")
        status, error = reply.status_code, ""
    except httpx.TransportError as exc:
        status, error = 0, type(exc).__name__
    return Sample(op, started, time.perf_counter() - started, status, error)


async def run_client(client: Client, url: str, work: Workload, window: Window) -> None:
    """One search to warm up (not recorded), then requests one after another until the
    deadline."""
    async with httpx.AsyncClient(
        base_url=url,
        headers={"Authorization": f"Bearer {client.token}"},
        limits=httpx.Limits(max_connections=1),
        timeout=REQUEST_TIMEOUT_S,
    ) as http:
        warmup = await one_request(http, client, "search", work)
        if warmup.status != 200:
            client.warmup_error = f"{warmup.status} {warmup.error}"
        await window.warmed.wait()
        await window.go.wait()
        ops, weights = list(work.weights), list(work.weights.values())
        while not client.warmup_error and time.perf_counter() < window.deadline:
            sample = await one_request(http, client, client.rng.choices(ops, weights)[0], work)
            sample.started -= window.began
            client.samples.append(sample)


async def run_load(
    clients: list[Client],
    url: str,
    work: Workload,
    duration: float,
    server: subprocess.Popen[bytes],
    kill: bool,
) -> dict[str, Any]:
    """Run the clients for ``duration`` seconds after their warm-up; ``kill``: SIGKILL
    the server at the deadline, with requests in flight. The run's wall time, CPU, load."""
    window = Window(asyncio.Barrier(len(clients) + 1))
    tasks = [asyncio.create_task(run_client(c, url, work, window)) for c in clients]
    await window.warmed.wait()
    load_start, own_cpu, server_cpu = loadavg(), time.process_time(), cpu_seconds(server.pid)
    window.began = time.perf_counter()
    window.deadline = window.began + duration
    window.go.set()
    killed_at = None
    if kill:
        await asyncio.sleep(duration)
        server_cpu = cpu_seconds(server.pid) - server_cpu
        server.send_signal(signal.SIGKILL)
        killed_at = round(time.perf_counter() - window.began, 3)
    await asyncio.gather(*tasks)
    if not kill:
        server_cpu = cpu_seconds(server.pid) - server_cpu
    failed = [c.warmup_error for c in clients if c.warmup_error]
    if failed:
        raise SystemExit(f"warm-up searches failed: {failed[:3]}")
    return {
        "wall_s": round(time.perf_counter() - window.began, 2),
        "killed_at_s": killed_at,
        "load_start": load_start,
        "load_end": loadavg(),
        "server_cpu_s": round(server_cpu, 2),
        "own_cpu_s": round(time.process_time() - own_cpu, 2),
    }
