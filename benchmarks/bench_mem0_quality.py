"""memfold and mem0 side by side on quality: the same consolidation scenarios, scored alike.

    .venv/bin/python benchmarks/bench_mem0_quality.py [--llm-url fake] [--limit N]
        [--scenarios FILE] [--llm-url URL --llm-model NAME] [--systems rules,default,...]

Four systems run the same scenarios (bench-data/scenarios, see its README):

- ``rules``: memfold with the offline rule judge, ``consolidate="sync"``, no LLM;
- ``default``: memfold's default judge (rules first, then the LLM), built as
  ``memfold eval --suite scenarios --judge default`` builds it (``EvalEnv.memory``);
- ``mem0-2``: mem0 2.x as it ships (``add`` extracts, ADD only);
- ``mem0-1``: the last mem0 release whose ``add`` still asks the LLM for
  ADD/UPDATE/DELETE/NONE against the memories it finds (1.0.11).

Each mem0 runs in its own venv under ``.bench-venvs/`` (made on first use) and in a child
process (benchmarks/mem0_quality_child.py), spoken to in JSON lines. Every scenario gets a
scope of its own: its ``existing`` memories are stored verbatim with no LLM (memfold
``add_many(consolidate=False)``, mem0 ``add(infer=False)``), then its ``new`` memory goes
through each system's own ``add``. By default each system runs all its scenarios in a row
(``--order system``): a llama.cpp server keeps the last prompt's prefix cached, so a system
pays its long fixed instructions once, as it would serving one user (mem0 2.x's extraction
prompt is ~8k tokens, minutes a call on 2 cores when evicted). ``--order scenario`` has the
systems take turns scenario by scenario, so a drift in the server's load touches them alike.

One loopback proxy serves all four (``Proxy``): ``/v1/chat/completions`` is forwarded to
``--llm-url`` (or answered by ``respond`` with ``--llm-url fake``), ``/v1/embeddings`` is
answered by memfold's local embedder (384 dims), which memfold itself uses directly. LLM
calls and tokens per add are counted at the proxy (tokens from the server's ``usage``);
seconds per add are the wall time of that ``add``.

Scored from the final state alone (``score``: the active memories of the scope and a
search for the new text), the same way for every system, following memfold's own scenario
evaluation (evaluation/run_scenarios.py): a distinct or contradicting fact is *lost* when
the related memory is no longer active and unchanged or no other active memory holds the
new fact; a duplicate is *left twice* when two or more active memories hold the fact; an
update is *stale* unless the old memory is retired (or rewritten to the new value) and
the search's first hit holds the new value (*old first*: a memory holding only the old
value ranks above every one holding the new); distractors must stay active and unchanged.
memfold's native verdict (run_scenarios._outcome) is kept beside it per row.

A real LLM on llama-cpp-python: memfold's default judge streams its calls (for the
log-probabilities), and that server cuts a stream after its first chunk whenever another
request waits for the model (its ``interrupt_requests``, on by default): on a server that
serves anyone else at the same time, memfold gets empty replies (the ``cut`` column) and
its saves fall back (SKIP), while mem0's unstreamed calls only wait. Run it on a server
of its own, or one started with ``--interrupt_requests false``. memfold's settings are
the eval's (``MEMFOLD_CONSOLIDATION__TIMEOUT_S`` and the like apply to both).
"""

from __future__ import annotations

import ast
import json
import re
import statistics
import subprocess
import tempfile
import time
import venv
from collections.abc import AsyncIterable, AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import httpx
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from bench_common import machine, parser, progress, table, write_json
from bench_mem0 import MEM0_SPEC
from bench_mem0 import VENV as MEM0_2_VENV
from bench_mem0 import respond as respond_memfold_or_mem0_2
from memfold.config import EmbedSettings, LLMSettings, Settings
from memfold.embed import make_embedder
from memfold.evaluation.embed_cache import CachingEmbedder
from memfold.evaluation.env import EvalEnv
from memfold.evaluation.run_scenarios import (
    KINDS,
    Scenario,
    _holds,
    _outcome,
    _Saved,
    load_scenarios,
)
from memfold.model import AddResult, MemoryRecord
from memfold.testing.fake_llm import FakeLLMServer
from memfold.testing.fake_replies import count_tokens, prompt_tokens

SYSTEMS = ("rules", "default", "mem0-2", "mem0-1")
MEM0_1_SPEC = "mem0ai==1.0.11"  # the last release before 2.0 dropped UPDATE/DELETE from add
MEM0 = {
    "mem0-2": (MEM0_SPEC, MEM0_2_VENV),
    "mem0-1": (MEM0_1_SPEC, Path(".bench-venvs") / "mem0-1"),
}
LABELS = {
    "rules": "memfold, rules",
    "default": "memfold, default",
    "mem0-2": f"mem0 {MEM0_SPEC.split('==')[1]}",
    "mem0-1": f"mem0 {MEM0_1_SPEC.split('==')[1]}",
}
ABOUT = {
    "rules": "memfold, offline rule judge, consolidate='sync', no LLM",
    "default": "memfold, default judge (rules first, then the LLM), consolidate='sync'",
    "mem0-2": f"{MEM0_SPEC}, add() as shipped: one extraction call, ADD only",
    "mem0-1": f"{MEM0_1_SPEC}, add(): fact extraction, then ADD/UPDATE/DELETE/NONE",
}
CHILD = Path(__file__).with_name("mem0_quality_child.py")
DEFAULT_LLM_URL = "http://127.0.0.1:18080/v1"
DEFAULT_LLM_MODEL = "qwen2.5-coder-1.5b"
ORDERS = ("system", "scenario")
DEFAULT_LIMIT = 8  # two scenarios of each kind: a real 1.5B model on 2 cores is slow
SEARCH_K = 5


# --- scoring (pure: no store, no mem0) ---------------------------------------------------


@dataclass(frozen=True, slots=True)
class Stored:
    id: str
    text: str


@dataclass(frozen=True, slots=True)
class FinalState:
    """What one system holds for one scenario after its ``add`` of the new memory."""

    seeded: tuple[Stored, ...]  # ``existing`` as stored before it, the related one first
    active: tuple[Stored, ...]  # every active memory of the scope now
    hits: tuple[Stored, ...]  # a search for the new memory's text, best first
    topic_hits: tuple[Stored, ...] = ()  # a search for ``topic_query``, best first


def score(scenario: Scenario, state: FinalState) -> dict[str, Any]:
    """The scenario's outcome from the final state, the same for every system.

    ``ok`` as memfold's scenario evaluation means it; ``lost`` (distinct, contradiction,
    duplicate: a fact that must stay is gone), ``twice`` (duplicate: the fact still held
    by two or more memories), ``stale`` and ``old_first`` (update), ``touched``
    (distractors no longer active and unchanged)."""
    related, *distractors = state.seeded
    intact = {s.id for s in state.seeded if s in state.active}
    out: dict[str, Any] = {
        "ok": False,
        "lost": False,
        "twice": False,
        "stale": False,
        "old_first": False,
        "touched": sum(d.id not in intact for d in distractors),
    }
    # A memory other than an unchanged seeded one that holds the new fact.
    new_held = any(_holds(m.text, scenario.new) for m in state.active if m.id not in intact)
    if scenario.kind in ("distinct", "contradiction"):
        out["related_kept"] = related.id in intact
        out["new_kept"] = new_held
        out["ok"] = out["related_kept"] and new_held
        out["lost"] = not out["ok"]
    elif scenario.kind == "duplicate":
        kept = {d.id for d in distractors} & intact
        holders = sum(
            _holds(m.text, related.text) or _holds(m.text, scenario.new)
            for m in state.active
            if m.id not in kept
        )
        out["holders"] = holders
        out["ok"] = holders == 1
        out["twice"] = holders >= 2
        out["lost"] = holders == 0
    else:
        now = next((m for m in state.active if m.id == related.id), None)
        # Stricter than run_scenarios' rule, which also takes an unchanged old text that
        # happens to hold the new one's words ("in Spanish" / "in English instead of
        # Spanish") for retired: an ADD-only store would pass on those.
        retired = now is None or (now.text != related.text and _holds(now.text, scenario.new))
        hits = state.hits
        out["retired"] = retired
        out["ok"] = retired and bool(hits) and _holds(hits[0].text, scenario.new)
        out["stale"] = not out["ok"]
        probe = state.topic_hits or hits
        rank_new = _first(probe, lambda t: _holds(t, scenario.new))
        rank_old = _first(probe, lambda t: _holds(t, related.text) and not _holds(t, scenario.new))
        out["old_first"] = rank_old is not None and (rank_new is None or rank_old < rank_new)
    return out


_STOP = frozenset(
    [
        "a",
        "an",
        "the",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "to",
        "of",
        "in",
        "on",
        "at",
        "and",
        "for",
        "now",
        "as",
        "by",
    ]
)


def topic_query(old: str, new: str) -> str:
    """The words the old and the new memory share, in the new one's order (stop words
    left out): a query that favours neither value. The new text when they share none."""
    shared = _words(old) & _words(new)
    kept = dict.fromkeys(w for w in _WORD.findall(new.lower()) if w in shared - _STOP)
    return " ".join(kept) or new


def _first(hits: Sequence[Stored], test: Callable[[str], bool]) -> int | None:
    return next((rank for rank, hit in enumerate(hits) if test(hit.text)), None)


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """One system's figures over its scored rows (``score``'s keys plus ``kind``,
    ``seconds``, ``calls``, ``prompt_tokens``, ``completion_tokens``, ``error``)."""
    by_kind = {k: [r for r in rows if r["kind"] == k] for k in KINDS}
    n = len(rows)

    def count(kind: str, key: str) -> int:
        return sum(bool(r[key]) for r in by_kind[kind])

    seconds = [float(r["seconds"]) for r in rows]
    native = [r for r in rows if r.get("native_ok") is not None]
    calls = sum(int(r["calls"]) for r in rows)
    tokens = sum(int(r["prompt_tokens"]) + int(r["completion_tokens"]) for r in rows)
    return {
        "scenarios": n,
        "ok": sum(bool(r["ok"]) for r in rows),
        "by_kind": {k: {"n": len(v), "ok": count(k, "ok")} for k, v in by_kind.items()},
        "distinct_lost": count("distinct", "lost"),
        "contradictions_lost": count("contradiction", "lost"),
        "duplicates_twice": count("duplicate", "twice"),
        "duplicates_lost": count("duplicate", "lost"),
        "updates_stale": count("update", "stale"),
        "updates_old_first": count("update", "old_first"),
        "distractors_touched": sum(int(r["touched"]) for r in rows),
        "llm_calls_per_add": calls / n if n else None,
        "tokens_per_add": tokens / n if n else None,
        "prompt_tokens_per_add": sum(int(r["prompt_tokens"]) for r in rows) / n if n else None,
        "seconds_per_add_median": statistics.median(seconds) if seconds else None,
        "seconds_per_add_mean": statistics.fmean(seconds) if seconds else None,
        "llm_errors": sum(int(r.get("llm_errors", 0)) for r in rows),
        "llm_cut": sum(int(r.get("llm_cut", 0)) for r in rows),
        "add_errors": sum(bool(r.get("error")) for r in rows),
        # memfold only: rows where ``score`` and run_scenarios' own verdict agree.
        "native_agreement": None
        if not native
        else f"{sum(r['native_ok'] == r['ok'] for r in native)}/{len(native)}",
    }


def stratified(scenarios: Sequence[Scenario], limit: int | None) -> list[Scenario]:
    """The first ``limit`` scenarios taking the kinds in turn (file order within a kind);
    all of them, in file order, when ``limit`` is None."""
    if limit is None:
        return list(scenarios)
    queues = [[s for s in scenarios if s.kind == k] for k in KINDS]
    out: list[Scenario] = []
    while len(out) < limit and any(queues):
        for queue in queues:
            if queue and len(out) < limit:
                out.append(queue.pop(0))
    return out


# --- the scripted answers of --llm-url fake -----------------------------------------------

_BLOCK = re.compile(r"```\s*(\[.*?\])\s*```", re.S)
_WORD = re.compile(r"[a-z0-9']+")


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def _input_lines(user: str) -> list[str]:
    body = user.split("Input:", 1)[-1]
    return [ln.split(":", 1)[-1].strip() for ln in body.strip().splitlines() if ln.strip()]


def _mem0_1_update(prompt: str) -> dict[str, Any]:
    """mem0 1.x's update step, scripted: a fact sharing at least half its words with a
    memory it found rewrites that memory (UPDATE), the same text is NONE, else ADD."""
    blocks = [ast.literal_eval(b) for b in _BLOCK.findall(prompt)]
    facts = [str(f) for f in blocks[-1]] if blocks else []
    old = [m for m in blocks[-2] if isinstance(m, dict)] if len(blocks) >= 2 else []
    out: list[dict[str, Any]] = []
    for number, fact in enumerate(facts):
        best, overlap = None, 0.0
        for memory in old:
            a, b = _words(fact), _words(str(memory.get("text", "")))
            share = len(a & b) / max(1, len(a | b))
            if share > overlap:
                best, overlap = memory, share
        if best is not None and str(best.get("text")) == fact:
            out.append({"id": best["id"], "text": fact, "event": "NONE"})
        elif best is not None and overlap >= 0.5:
            out.append(
                {"id": best["id"], "text": fact, "event": "UPDATE", "old_memory": best["text"]}
            )
        else:
            out.append({"id": str(len(old) + number), "text": fact, "event": "ADD"})
    return {"memory": out}


def respond(body: dict[str, Any]) -> dict[str, Any]:
    """Answers memfold's and both mem0 versions' prompts from the request alone (for
    ``--llm-url fake``: the harness's plumbing, not any model's quality)."""
    messages = body.get("messages") or [{}]
    system = str(messages[0].get("content", ""))
    user = str(messages[-1].get("content", ""))
    if "smart memory manager" in user:  # mem0 1.x: ADD/UPDATE/DELETE/NONE
        return _mem0_1_update(user)
    if "Personal Information Organizer" in system and user.startswith("Input:"):
        return {"facts": _input_lines(user)}  # mem0 1.x: fact extraction
    # memfold's consolidation (KEEP_SEPARATE) or mem0 2.x's additive extraction.
    return respond_memfold_or_mem0_2(body)


# --- the shared endpoint ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Call:
    status: int
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    counted: bool  # tokens from the server's usage (else estimated at 4 characters each)
    # A streamed reply that ended with no finish_reason: llama-cpp-python's server cuts a
    # stream after its first chunk when another request waits (its interrupt_requests
    # setting, on by default), so a shared server answers memfold's streamed calls empty.
    cut: bool = False


class Proxy(FakeLLMServer):
    """One OpenAI-compatible endpoint for all four systems: chat forwarded to
    ``upstream`` (None: answered by ``respond``), embeddings from memfold's local
    embedder; each chat call's status, tokens and seconds kept in ``calls``."""

    def __init__(self, upstream: str | None, model: str) -> None:
        super().__init__(respond if upstream is None else [], models=(model,))
        self.upstream = None if upstream is None else upstream.rstrip("/")
        self.calls: list[Call] = []
        self._client: httpx.AsyncClient | None = None

    async def _chat(self, request: Request) -> Response:
        started = time.perf_counter()
        if self.upstream is None:
            response = await super()._chat(request)
            body = json.loads(await request.body())
        else:
            body = await self._record(request)
            response = await self._forward(request)
        return self._metered(response, body if isinstance(body, dict) else {}, started)

    async def _forward(self, request: Request) -> Response:
        raw = await request.body()
        if self._client is None:  # made in the server's own event loop
            self._client = httpx.AsyncClient(timeout=httpx.Timeout(1800.0, connect=10.0))
        sent = self._client.build_request(
            "POST",
            f"{self.upstream}/chat/completions",
            content=raw,
            headers={"content-type": "application/json"},
        )
        try:
            upstream = await self._client.send(sent, stream=True)
        except httpx.HTTPError as exc:  # the LLM server down or gone: a failed call
            error = {"error": {"message": f"proxy: {exc!r}", "type": "upstream_error"}}
            return Response(json.dumps(error), status_code=502, media_type="application/json")
        if upstream.status_code != 200 or "event-stream" not in upstream.headers.get(
            "content-type", ""
        ):
            content = await upstream.aread()
            await upstream.aclose()
            media = upstream.headers.get("content-type", "application/json")
            return Response(content, status_code=upstream.status_code, media_type=media)

        async def relay() -> AsyncIterator[bytes]:
            try:
                async for chunk in upstream.aiter_raw():
                    yield chunk
            finally:
                await upstream.aclose()

        return StreamingResponse(relay(), media_type="text/event-stream")

    def _metered(self, response: Response, body: dict[str, Any], started: float) -> Response:
        if isinstance(response, StreamingResponse):
            response.body_iterator = self._sniffed(response.body_iterator, body, started)
            return response
        usage, text = None, ""
        if response.status_code == 200:
            try:
                reply = json.loads(bytes(response.body))
                usage = reply.get("usage")
                choice = (reply.get("choices") or [{}])[0]
                text = str((choice.get("message") or {}).get("content"))
            except (ValueError, AttributeError, IndexError):
                pass  # not an OpenAI reply: tokens estimated from the request
        self._log(response.status_code, body, usage, text, started)
        return response

    async def _sniffed(
        self, chunks: AsyncIterable[Any], body: dict[str, Any], started: float
    ) -> AsyncIterator[Any]:
        """Relays a streamed reply, reading its text and its ``usage`` chunk on the way;
        the call is logged before that chunk goes out (the client returns soon after)."""
        buffer, text, logged, finished = "", [], False, False
        try:
            async for chunk in chunks:
                buffer += (
                    chunk if isinstance(chunk, str) else bytes(chunk).decode("utf-8", "replace")
                )
                *lines, buffer = buffer.split("\n")
                for line in lines:
                    data = line.removeprefix("data:").strip()
                    if not line.startswith("data:") or not data or data == "[DONE]":
                        continue
                    try:
                        event = json.loads(data)
                    except ValueError:
                        continue
                    for choice in event.get("choices") or []:
                        text.append(str((choice.get("delta") or {}).get("content") or ""))
                        finished = finished or bool(choice.get("finish_reason"))
                    if event.get("usage") and not logged:
                        self._log(200, body, event["usage"], "".join(text), started)
                        logged = True
                yield chunk
        finally:
            if not logged:
                self._log(200, body, None, "".join(text), started, cut=not finished)

    def _log(
        self,
        status: int,
        body: dict[str, Any],
        usage: Any,
        text: str,
        started: float,
        *,
        cut: bool = False,
    ) -> None:
        counted = isinstance(usage, dict) and "prompt_tokens" in usage
        call = Call(
            status=status,
            prompt_tokens=int(usage["prompt_tokens"]) if counted else prompt_tokens(body),
            completion_tokens=int(usage.get("completion_tokens") or 0)
            if counted
            else count_tokens(text),
            seconds=time.perf_counter() - started,
            counted=counted,
            cut=cut,
        )
        with self._lock:
            self.calls.append(call)

    def __enter__(self) -> Proxy:
        self.start()
        return self

    def mark(self) -> int:
        with self._lock:
            return len(self.calls)

    def since(self, mark: int) -> dict[str, int]:
        """Chat calls logged since ``mark``: count, tokens, failures."""
        time.sleep(0.01)  # a streamed reply's last bytes may still be on their way
        with self._lock:
            new = self.calls[mark:]
        return {
            "calls": len(new),
            "prompt_tokens": sum(c.prompt_tokens for c in new),
            "completion_tokens": sum(c.completion_tokens for c in new),
            "llm_errors": sum(c.status != 200 for c in new),
            "llm_cut": sum(c.cut for c in new),
            "estimated_tokens": sum(not c.counted for c in new),
        }


# --- the systems -------------------------------------------------------------------------


def ensure_venv(spec: str, folder: Path) -> Path:
    """A venv at ``folder`` with ``spec`` (``mem0ai==X``) installed; made on first use."""
    python = folder / "bin" / "python"
    wanted = spec.split("==")[1]
    check = [str(python), "-c", "from importlib.metadata import version; print(version('mem0ai'))"]
    if python.exists():
        found = subprocess.run(check, capture_output=True, text=True)
        if found.returncode == 0 and found.stdout.strip() == wanted:
            return python
    venv.create(folder, with_pip=True, clear=True)
    pip = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    done = subprocess.run([*pip, spec], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"pip install {spec} into {folder} failed:\n{done.stderr[-3000:]}")
    return python


@dataclass
class Outcome:
    """One system's ``add`` of one scenario's new memory, and what it left."""

    state: FinalState
    seconds: float
    action: str
    error: str | None = None
    native_ok: bool | None = None
    extra: dict[str, Any] = field(default_factory=dict)


class MemfoldSystem:
    """memfold in this process, built as ``memfold eval`` builds it (``EvalEnv.memory``)."""

    def __init__(self, env: EvalEnv, name: str) -> None:
        self.mem = env.memory(name, "sync")

    def seed(self, scenario: Scenario, scope: str) -> list[MemoryRecord]:
        stored = self.mem.add_many(
            [{"text": t, "user_id": scope} for t in scenario.existing], consolidate=False
        )
        return [r.memory for r in stored]

    def add(self, scenario: Scenario, scope: str) -> tuple[AddResult, float]:
        started = time.perf_counter()
        result = self.mem.add(scenario.new, user_id=scope)
        return result, time.perf_counter() - started

    def finish(
        self,
        scenario: Scenario,
        scope: str,
        seeded: list[MemoryRecord],
        added: tuple[AddResult, float],
    ) -> Outcome:
        result, seconds = added
        related, *distractors = seeded
        saved = _Saved(scenario, scope, related, tuple(distractors), result.memory)
        native = _outcome(self.mem, saved)  # memfold's own verdict, beside ``score``'s
        state = FinalState(
            seeded=tuple(Stored(m.id, m.text) for m in seeded),
            active=tuple(Stored(m.id, m.text) for m in self.mem.list(user_id=scope)),
            hits=self._search(scenario.new, scope),
            topic_hits=self._search(topic_query(related.text, scenario.new), scope),
        )
        decision = result.decision
        action = "ADD" if decision is None else decision.action.value
        return Outcome(state, seconds, action, native_ok=bool(native["ok"]))

    def _search(self, query: str, scope: str) -> tuple[Stored, ...]:
        hits = self.mem.search(query, user_id=scope, k=SEARCH_K)
        return tuple(Stored(h.memory.id, h.memory.text) for h in hits)

    def close(self) -> None:
        self.mem.close()


class Mem0System:
    """A mem0 child process in its own venv."""

    def __init__(self, python: Path, base_url: str, folder: Path, model: str) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.log = folder / "child.log"
        self._stderr: IO[str] = self.log.open("w", encoding="utf-8")
        self.proc = subprocess.Popen(
            [str(python), str(CHILD), base_url, str(folder), model],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            text=True,
        )
        self.version = str(self._ask(None)["mem0"])

    def _ask(self, command: dict[str, Any] | None) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        if command is not None:
            self.proc.stdin.write(json.dumps(command) + "\n")
            self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            tail = self.log.read_text(encoding="utf-8")[-3000:]
            raise RuntimeError(f"mem0 child exited ({self.log}):\n{tail}")
        answer: dict[str, Any] = json.loads(line)
        return answer

    def seed(self, scenario: Scenario, scope: str) -> tuple[Stored, ...]:
        answer = self._ask({"op": "seed", "user_id": scope, "texts": list(scenario.existing)})
        return tuple(Stored(s["id"], s["text"]) for s in answer["stored"])

    def add(self, scenario: Scenario, scope: str) -> dict[str, Any]:
        return self._ask({"op": "add", "user_id": scope, "text": scenario.new})

    def finish(
        self, scenario: Scenario, scope: str, seeded: tuple[Stored, ...], added: dict[str, Any]
    ) -> Outcome:
        topic = topic_query(scenario.existing[0], scenario.new)
        got = self._ask(
            {"op": "state", "user_id": scope, "queries": [scenario.new, topic], "k": SEARCH_K}
        )
        new_hits, topic_hits = (tuple(Stored(m["id"], m["text"]) for m in h) for h in got["hits"])
        state = FinalState(
            seeded=seeded,
            active=tuple(Stored(m["id"], m["text"]) for m in got["active"]),
            hits=new_hits,
            topic_hits=topic_hits,
        )
        events = [str(e.get("event")) for e in added["events"]]
        action = "+".join(events) if events else ("ERROR" if added["error"] else "NOTHING")
        return Outcome(
            state,
            float(added["wall"]),
            action,
            error=added["error"],
            extra={"events": added["events"]},
        )

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self._stderr.close()


# --- the run -----------------------------------------------------------------------------


def run_order(systems: Sequence[str], count: int, order: str) -> list[tuple[str, int]]:
    """(system, scenario number) pairs in the order they run: system-major or scenario-major."""
    if order == "system":
        return [(name, number) for name in systems for number in range(count)]
    return [(name, number) for number in range(count) for name in systems]


def run_one(
    system: MemfoldSystem | Mem0System, proxy: Proxy, scenario: Scenario, scope: str
) -> dict[str, Any]:
    """Seed the scope (no LLM), add the new memory (metered), read and score the state."""
    seeded: Any = system.seed(scenario, scope)
    mark = proxy.mark()
    added: Any = system.add(scenario, scope)
    usage = proxy.since(mark)
    outcome = system.finish(scenario, scope, seeded, added)
    row: dict[str, Any] = {
        "id": scenario.id,
        "kind": scenario.kind,
        "action": outcome.action,
        "seconds": round(outcome.seconds, 4),
        **usage,
        **score(scenario, outcome.state),
        "error": outcome.error,
    }
    if outcome.native_ok is not None:
        row["native_ok"] = outcome.native_ok
    if not row["ok"]:
        row["active_after"] = [m.text for m in outcome.state.active]
        row["hits"] = [m.text for m in outcome.state.hits]
        row["topic_hits"] = [m.text for m in outcome.state.topic_hits]
    row.update(outcome.extra)
    return row


def report(summaries: dict[str, dict[str, Any]], title: str) -> None:
    def frac(s: dict[str, Any], key: str, kind: str) -> str:
        return f"{s[key]}/{s['by_kind'][kind]['n']}"

    def num(value: float | None, fmt: str) -> str:
        return "-" if value is None else format(value, fmt)

    rows = []
    for name, s in summaries.items():
        rows.append(
            [
                LABELS[name],
                f"{s['ok']}/{s['scenarios']}",
                frac(s, "distinct_lost", "distinct"),
                frac(s, "contradictions_lost", "contradiction"),
                f"{frac(s, 'duplicates_twice', 'duplicate')} ({s['duplicates_lost']})",
                f"{frac(s, 'updates_stale', 'update')} ({s['updates_old_first']})",
                str(s["distractors_touched"]),
                num(s["llm_calls_per_add"], ".2f"),
                num(s["tokens_per_add"], ".0f"),
                num(s["seconds_per_add_median"], ".2f"),
                f"{s['llm_errors']}/{s['llm_cut']}/{s['add_errors']}",
            ]
        )
    header = [
        "system",
        "ok",
        "distinct lost",
        "contra. lost",
        "dup. twice (lost)",
        "update stale (old 1st)",
        "distr. touched",
        "LLM calls /add",
        "tokens /add",
        "s/add median",
        "errors LLM cut add",
    ]
    table(title, rows, header)


def main() -> None:
    p = parser(__doc__ or "", "bench_mem0_quality.json")
    p.add_argument(
        "--scenarios", type=Path, help="scenario file (default: DATA/scenarios/dev.jsonl)"
    )
    p.add_argument(
        "--limit",
        type=int,
        default=DEFAULT_LIMIT,
        help=f"first N scenarios, kinds in turn (default {DEFAULT_LIMIT}; 0: all, file order)",
    )
    p.add_argument(
        "--llm-url", default=DEFAULT_LLM_URL, help="OpenAI-compatible base URL, or 'fake'"
    )
    p.add_argument("--llm-model", default=DEFAULT_LLM_MODEL)
    p.add_argument("--systems", default=",".join(SYSTEMS), help=f"a subset of {','.join(SYSTEMS)}")
    p.add_argument(
        "--order",
        choices=ORDERS,
        default="system",
        help="system: each system runs all its scenarios in a row (the server keeps its prompt "
        "prefix cached, as for a user); scenario: systems take turns scenario by scenario",
    )
    args = p.parse_args()
    systems = [s.strip() for s in args.systems.split(",") if s.strip()]
    unknown = [s for s in systems if s not in SYSTEMS]
    if unknown or not systems:
        p.error(f"--systems: unknown {unknown}; choose from {','.join(SYSTEMS)}")
    fake = args.llm_url == "fake"
    model = "fake-model" if fake else args.llm_model
    args.scenarios = args.scenarios or args.data / "scenarios" / "dev.jsonl"
    scenarios = stratified(load_scenarios(args.scenarios), args.limit or None)
    pythons = {s: ensure_venv(*MEM0[s]) for s in systems if s in MEM0}
    _holds("warm the parser up", "warm the parser up")  # not inside the first timed add

    out: dict[str, Any] = {
        "machine": machine(),
        "method": __doc__,
        "scenarios_file": str(args.scenarios),
        "limit": args.limit,
        "llm": "fake (scripted respond())" if fake else {"url": args.llm_url, "model": model},
        "embedder": "memfold LocalEmbedder (384 dims), mem0 through the proxy's /v1/embeddings",
        "systems": {s: ABOUT[s] for s in systems},
        "mem0": {s: MEM0[s][0] for s in systems if s in MEM0},
    }
    rows: dict[str, list[dict[str, Any]]] = {s: [] for s in systems}
    with (
        tempfile.TemporaryDirectory(prefix="mem0-quality-") as tmp,
        Proxy(None if fake else args.llm_url, model) as proxy,
        progress() as bar,
    ):
        work = Path(tmp)
        base = make_embedder(EmbedSettings())  # local, whatever MEMFOLD_EMBED__* says
        opened: dict[str, MemfoldSystem | Mem0System] = {}
        installed: dict[str, str] = out["mem0"]
        try:
            for name in systems:
                if name in MEM0:
                    child = Mem0System(pythons[name], proxy.base_url, work / name, model)
                    installed[name] = f"mem0ai=={child.version}"
                    opened[name] = child
                    continue
                llm = LLMSettings(base_url=proxy.base_url, model=model, api_key="x")
                chosen = llm if name == "default" else LLMSettings()
                settings = Settings(llm=chosen, embed=EmbedSettings())
                out.setdefault("memfold_settings", {})[name] = {
                    "consolidation_timeout_s": settings.consolidation.timeout_s,
                    "llm_timeout_s": settings.llm.utility.timeout_s,
                    "logprobs": settings.llm.utility.logprobs,
                }
                env = EvalEnv(
                    data=args.data,
                    split="dev",
                    judge_kind=name,
                    settings=settings,
                    embedder=CachingEmbedder(base, None),
                    workdir=work,
                    progress=bar,
                )
                opened[name] = MemfoldSystem(env, name)
            task = bar.add_task("scenarios x systems", total=len(scenarios) * len(systems))
            for name, number in run_order(systems, len(scenarios), args.order):
                row = run_one(opened[name], proxy, scenarios[number], f"scenario-{number}")
                rows[name].append(row)
                bar.advance(task)
                out["rows"] = rows
                _checkpoint(args.out, out)
        finally:
            for system in opened.values():
                system.close()
    out["rows"] = rows
    out["summary"] = {name: summarize(r) for name, r in rows.items()}
    write_json(args.out, out)
    args.out.with_suffix(".partial.json").unlink(missing_ok=True)
    served = "fake LLM (scripted)" if fake else f"{model} at {args.llm_url}"
    report(
        out["summary"],
        f"consolidation scenarios, {len(scenarios)} from {args.scenarios.name}; {served}",
    )


def _checkpoint(path: Path, payload: dict[str, Any]) -> None:
    """The rows so far, for a long real run cut short."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial.json")
    partial.write_text(json.dumps(payload, indent=2, default=str), encoding="utf-8")


if __name__ == "__main__":
    main()
