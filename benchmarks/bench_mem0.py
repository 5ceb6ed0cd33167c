"""memfold and mem0 side by side: per-add overhead, LLM calls and tokens per add.

    .venv/bin/python benchmarks/bench_mem0.py [--data PATH] [--out FILE] [--n 150]

mem0 (PyPI ``mem0ai``, pinned below) is installed into its own venv under
``.bench-venvs/mem0`` on the first run and runs in a child process
(benchmarks/mem0_child.py). Both libraries talk to the same scripted
OpenAI-compatible server (memfold.testing.fake_llm) for chat and embeddings; the
server embeds with memfold's local model and records its own time per request.
The server runs in a process of its own (neither client shares its GIL); its
connections use TCP_NODELAY (see memfold.testing.fake_llm).
The memory stream is the first ``--n`` LoCoMo dev observations (conv-26), added one
at a time, alternating which library goes first. Per-add overhead = wall time of
the add minus the server time spent on that add's requests. memfold runs in sync
mode with the LLM judge; mem0 with its default add (LLM extraction, infer=True).
"""

from __future__ import annotations

import json
import multiprocessing
import statistics
import subprocess
import tempfile
import time
import venv
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import httpx

from bench_common import machine, met, parser, progress, table, write_json
from memfold import Memory
from memfold.config import EmbedSettings, LLMSettings, Settings
from memfold.evaluation.conversations import load_locomo
from memfold.testing.fake_llm import FakeLLMServer
from memfold.testing.fake_replies import count_tokens, prompt_tokens, user_payload

MEM0_SPEC = "mem0ai==2.2.1"
VENV = Path(".bench-venvs") / "mem0"
CHILD = Path(__file__).with_name("mem0_child.py")


def ensure_mem0_venv() -> Path:
    python = VENV / "bin" / "python"
    check = [str(python), "-c", "import mem0"]
    if python.exists() and subprocess.run(check, capture_output=True).returncode == 0:
        return python
    venv.create(VENV, with_pip=True)
    pip = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    subprocess.run([*pip, MEM0_SPEC], check=True)
    return python


def respond(body: dict[str, Any]) -> dict[str, Any]:
    """Answers both libraries' prompts from the request alone."""
    system = str((body.get("messages") or [{}])[0].get("content", ""))
    if "long-term memory of an AI agent" in system:  # memfold's consolidation prompt
        decisions = []
        for item in user_payload(body).get("items", []):
            decisions.append(
                {"item": item["item"], "action": "KEEP_SEPARATE", "target_ids": [],
                 "text": None, "confidence": 0.8, "reasoning": "distinct facts"}
            )  # fmt: skip
        return {"decisions": decisions}
    # mem0's additive extraction: keep the new message as one memory.
    user = str(body["messages"][-1].get("content", ""))
    section = user.split("## New Messages", 1)[-1].split("\n## ", 1)[0]
    lines = [ln.split(":", 1)[-1].strip() for ln in section.strip().splitlines() if ln.strip()]
    return {"memory": [{"text": " ".join(lines)}] if lines else []}


def _delta(server: FakeLLMServer, before: tuple[float, int]) -> dict[str, float]:
    with server._lock:
        new = server.requests[before[1] :]
        seconds = server.total_server_seconds - before[0]
    chats = [r.body for r in new if r.path.endswith("/chat/completions")]
    return {
        "server_s": seconds,
        "calls": len(chats),
        "embed_calls": sum(1 for r in new if r.path.endswith("/embeddings")),
        "prompt_tokens": sum(prompt_tokens(b) for b in chats),
        "completion_tokens": sum(count_tokens(json.dumps(respond(b))) for b in chats),
    }


def serve(conn: Connection) -> None:
    """The fake server in a process of its own, so neither library shares a GIL with it.
    Answers "snapshot" and ("delta", snapshot) requests on the pipe until "stop"."""
    with FakeLLMServer(respond) as server:
        conn.send(server.base_url)
        while True:
            msg = conn.recv()
            if msg == "stop":
                break
            if msg == "snapshot":
                with server._lock:
                    conn.send((server.total_server_seconds, len(server.requests)))
            else:
                conn.send(_delta(server, msg[1]))


class Meter:
    """Server-side deltas around one add: seconds, chat calls, tokens."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn

    def snapshot(self) -> tuple[float, int]:
        self.conn.send("snapshot")
        before: tuple[float, int] = self.conn.recv()
        return before

    def delta(self, before: tuple[float, int]) -> dict[str, float]:
        self.conn.send(("delta", before))
        out: dict[str, float] = self.conn.recv()
        return out


def summarize(rows: list[dict[str, float]], rtt_s: float) -> dict[str, float]:
    """``rtt_s``: the fake server's bare round trip (GET /v1/models), measured in the same
    run; it is transport time outside the server's own timer, charged per request."""
    n = len(rows)

    def adjusted(r: dict[str, float]) -> float:
        return r["wall"] - r["server_s"] - rtt_s * (r["calls"] + r["embed_calls"])

    return {
        "adds": n,
        "overhead_median_ms": 1000 * statistics.median(r["wall"] - r["server_s"] for r in rows),
        "overhead_mean_ms": 1000 * statistics.fmean(r["wall"] - r["server_s"] for r in rows),
        "overhead_net_of_rtt_median_ms": 1000 * statistics.median(adjusted(r) for r in rows),
        "wall_median_ms": 1000 * statistics.median(r["wall"] for r in rows),
        "llm_calls_per_add": sum(r["calls"] for r in rows) / n,
        "embed_calls_per_add": sum(r["embed_calls"] for r in rows) / n,
        "tokens_per_add": sum(r["prompt_tokens"] + r["completion_tokens"] for r in rows) / n,
    }


def amortized_background(
    db: Path, settings: Settings, stream: list[str], meter: Meter
) -> dict[str, float]:
    """memfold's default mode on the same stream: add() returns once stored; the worker
    decides pending saves in batches. Overhead = (all adds + flush) - server time, / n."""
    mem = Memory(db, settings=settings, consolidate="background")
    try:
        mem.add("warm-up", user_id="warm")
        mem.flush()
        before = meter.snapshot()
        started = time.perf_counter()
        for text in stream:
            mem.add(text, user_id="bench")
        mem.flush()
        wall = time.perf_counter() - started
        delta = meter.delta(before)
    finally:
        mem.close()
    n = len(stream)
    return {
        "adds": n,
        "overhead_per_add_ms": 1000 * (wall - delta["server_s"]) / n,
        "llm_calls_per_add": delta["calls"] / n,
    }


def main() -> None:
    p = parser(__doc__ or "", "bench_mem0.json")
    p.add_argument("--n", type=int, default=150, help="memories in the stream")
    args = p.parse_args()
    python = ensure_mem0_venv()
    conv = load_locomo(args.data, "dev")[0]
    stream = [o.text for o in conv.observations][: args.n + 1]
    rows: dict[str, list[dict[str, float]]] = {"memfold": [], "mem0": []}
    parent, child_end = multiprocessing.Pipe()
    server_proc = multiprocessing.Process(target=serve, args=(child_end,), daemon=True)
    server_proc.start()
    base_url: str = parent.recv()
    with tempfile.TemporaryDirectory() as tmp:
        meter = Meter(parent)
        llm = LLMSettings(base_url=base_url, model="fake-model", api_key="x")
        embed = EmbedSettings(
            provider="openai", base_url=base_url, model="fake-embedder", api_key="x"
        )
        settings = Settings(llm=llm, embed=embed)
        # memfold as shipped: the default judge (LLM, with the rule judge first and behind).
        mem = Memory(Path(tmp) / "memfold.db", settings=settings, consolidate="sync")
        child = subprocess.Popen(
            [str(python), str(CHILD), base_url, tmp],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )  # fmt: skip
        assert child.stdin is not None and child.stdout is not None
        json.loads(child.stdout.readline())  # ready

        def add_memfold(text: str) -> dict[str, float]:
            before = meter.snapshot()
            started = time.perf_counter()
            mem.add(text, user_id="bench")
            wall = time.perf_counter() - started
            return {"wall": wall, **meter.delta(before)}

        def add_mem0(text: str) -> dict[str, float]:
            before = meter.snapshot()
            child.stdin.write(json.dumps({"text": text}) + "\n")  # type: ignore[union-attr]
            child.stdin.flush()  # type: ignore[union-attr]
            reply = json.loads(child.stdout.readline())  # type: ignore[union-attr]
            return {"wall": reply["wall"], **meter.delta(before)}

        probe = httpx.Client()
        probe.get(f"{base_url}/models")
        rtts: list[float] = []
        try:
            with progress() as bar:
                task = bar.add_task("alternating adds", total=len(stream))
                for i, text in enumerate(stream):
                    order = [("memfold", add_memfold), ("mem0", add_mem0)]
                    for name, fn in order if i % 2 == 0 else reversed(order):
                        row = fn(text)
                        if i > 0:  # the first add of each warms clients and models up
                            rows[name].append(row)
                    began = time.perf_counter()
                    probe.get(f"{base_url}/models")
                    rtts.append(time.perf_counter() - began)
                    bar.advance(task)
        finally:
            child.stdin.close()
            child.wait(timeout=60)
            mem.close()
        batched = amortized_background(Path(tmp) / "background.db", settings, stream[1:], meter)
        parent.send("stop")
        server_proc.join(timeout=30)
    rtt = statistics.median(rtts)
    out: dict[str, Any] = {
        "fake_server_round_trip_ms": 1000 * rtt,
        "machine": machine(),
        "method": __doc__,
        "mem0": MEM0_SPEC,
        "memfold_summary": summarize(rows["memfold"], rtt),
        "mem0_summary": summarize(rows["mem0"], rtt),
        "memfold_background": batched,
    }
    a, b = out["memfold_summary"], out["mem0_summary"]
    out["overhead_ratio_mem0_over_memfold"] = b["overhead_median_ms"] / a["overhead_median_ms"]
    out["net_overhead_ratio_mem0_over_memfold"] = (
        b["overhead_net_of_rtt_median_ms"] / a["overhead_net_of_rtt_median_ms"]
    )
    write_json(args.out, out)
    ratio = out["overhead_ratio_mem0_over_memfold"]
    report_rows = [
        ["per-add overhead median (wall - server)", f"{a['overhead_median_ms']:.2f} ms",
         f"{b['overhead_median_ms']:.2f} ms", f"{1 / ratio:.3f}", f">= 5x lower {met(ratio >= 5)}"],
        ["  same, net of the fake server's round trip per request",
         f"{a['overhead_net_of_rtt_median_ms']:.2f} ms",
         f"{b['overhead_net_of_rtt_median_ms']:.2f} ms",
         f"{1 / out['net_overhead_ratio_mem0_over_memfold']:.3f}",
         f">= 5x lower {met(out['net_overhead_ratio_mem0_over_memfold'] >= 5)}"],
        ["amortized per-add overhead, memfold default mode (background, batched) vs mem0 mean",
         f"{batched['overhead_per_add_ms']:.2f} ms", f"{b['overhead_mean_ms']:.2f} ms",
         f"{batched['overhead_per_add_ms'] / b['overhead_mean_ms']:.3f}",
         f">= 5x lower {met(b['overhead_mean_ms'] >= 5 * batched['overhead_per_add_ms'])}"],
        ["  LLM calls per add in that mode", f"{batched['llm_calls_per_add']:.3f}", "", "", ""],
        ["fake server bare round trip (GET /models) median", f"{1000 * rtt:.2f} ms", "", "", ""],
        ["per-add wall median", f"{a['wall_median_ms']:.2f} ms", f"{b['wall_median_ms']:.2f} ms",
         f"{a['wall_median_ms'] / b['wall_median_ms']:.3f}", ""],
        ["LLM calls per add", f"{a['llm_calls_per_add']:.3f}", f"{b['llm_calls_per_add']:.3f}",
         "", ""],
        ["embedding calls per add", f"{a['embed_calls_per_add']:.2f}",
         f"{b['embed_calls_per_add']:.2f}", "", ""],
        ["tokens per add (prompt + completion)", f"{a['tokens_per_add']:.0f}",
         f"{b['tokens_per_add']:.0f}", "", ""],
    ]  # fmt: skip
    table(
        f"memfold vs mem0 ({MEM0_SPEC}), {a['adds']} adds each, alternating",
        report_rows,
        ["measure", "memfold", "mem0", "memfold / mem0", "target"],
    )


if __name__ == "__main__":
    main()
