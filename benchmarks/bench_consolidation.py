"""Consolidation cost: sync add() with the rule judge at 10k, LLM calls per memory.

    .venv/bin/python benchmarks/bench_consolidation.py [--data PATH] [--out FILE]

1. Rule judge: a store bulk-loaded with 10,000 memories (texts and vectors made as in
   bench_store.py), then 500 add() calls in sync mode with new variations of the same
   persona sentences, so most adds find candidates and reach the judge. The default
   embedder runs inside each add (end to end), and a second pass uses precomputed vectors.
2. LLM judge: the LoCoMo dev observation stream (conv-26, 30, 41, 42, 43) through the
   scripted OpenAI-compatible server (memfold.testing.fake_llm). The server answers each
   consolidation request from its content: MERGE with the best candidate when its cosine
   is >= 0.95 (text = both texts joined), else KEEP_SEPARATE. Two ways to save: sync
   (one add at a time, one call per add that has candidates) and batched (add_many per
   session, then flush: one call per batch of up to 8 pending saves).
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_common import (
    machine,
    met,
    parser,
    persona_sentences,
    progress,
    realistic_vectors,
    table,
    vary,
    write_json,
)
from memfold import Memory
from memfold.config import LLMSettings, Settings
from memfold.embed.local import LocalEmbedder
from memfold.evaluation.conversations import load_locomo
from memfold.evaluation.embed_cache import CachingEmbedder
from memfold.evaluation.metrics import tally
from memfold.judge.llm import LLMJudge
from memfold.judge.rules import RuleJudge
from memfold.testing.fake_llm import FakeLLMServer
from memfold.testing.fake_replies import count_tokens, prompt_tokens, user_payload

ADDS = 500


def rule_judge_at_10k(data: Path, folder: Path) -> dict[str, Any]:
    embedder = LocalEmbedder()
    cached = CachingEmbedder(embedder, Path("results") / "cache")
    base = persona_sentences(data, 2_000)
    seeds = cached.embed(base)
    cached.save()
    texts = vary(base, 10_000)
    vectors = realistic_vectors(seeds, 10_000)
    db = folder / "rules.db"
    with Memory(db, embedder=embedder, consolidate="off") as mem:
        mem.add_many([{"text": t, "user_id": "u"} for t in texts], embeddings=list(vectors))
    new_texts = vary(base, 2 * ADDS, seed=99)
    out: dict[str, Any] = {}
    for label, with_vectors in (("end_to_end", False), ("precomputed_vectors", True)):
        chunk = new_texts[:ADDS] if not with_vectors else new_texts[ADDS:]
        vecs = cached.embed(chunk) if with_vectors else None
        actions: list[str] = []
        with Memory(db, embedder=embedder, judge=RuleJudge(), consolidate="sync") as mem:
            mem.add(chunk[0], user_id="u")  # warm-up
            started = time.perf_counter()
            for i, text in enumerate(chunk):
                vec = None if vecs is None else vecs[i].tolist()
                result = mem.add(text, user_id="u", embedding=vec)
                actions.append("none" if result.decision is None else result.decision.action.value)
            elapsed = time.perf_counter() - started
        out[label] = {
            "adds": len(chunk),
            "per_s": len(chunk) / elapsed,
            "judged": sum(1 for a in actions if a != "none"),
            "actions": tally(actions),
        }
    return out


def _overlap(a: str, b: str) -> float:
    """Jaccard overlap of the two texts' lower-cased word sets."""
    wa, wb = set(a.lower().split()), set(b.lower().split())
    return len(wa & wb) / max(1, len(wa | wb))


def respond(body: dict[str, Any]) -> dict[str, Any]:
    """The scripted consolidation judge: a function of the request only."""
    decisions = []
    for item in user_payload(body).get("items", []):
        cands = item.get("candidates") or []
        # The prompt sends no similarity: near-identical = the same words, almost all.
        best = max(cands, key=lambda c: _overlap(c["text"], item["new"]["text"]), default=None)
        if best is not None and _overlap(best["text"], item["new"]["text"]) >= 0.8:
            text = f"{best['text']} {item['new']['text']}"
            decisions.append(
                {"item": item["item"], "action": "MERGE", "target_ids": [best["id"]],
                 "text": text, "confidence": 0.9, "reasoning": "near-identical"}
            )  # fmt: skip
        else:
            decisions.append(
                {"item": item["item"], "action": "KEEP_SEPARATE", "target_ids": [],
                 "text": None, "confidence": 0.8, "reasoning": "distinct facts"}
            )  # fmt: skip
    return {"decisions": decisions}


def llm_calls_on_locomo(data: Path, folder: Path) -> dict[str, Any]:
    convs = load_locomo(data, "dev")
    embedder = CachingEmbedder(LocalEmbedder(), Path("results") / "cache")
    embedder.embed([o.text for c in convs for o in c.observations])
    embedder.save()
    out: dict[str, Any] = {}
    with FakeLLMServer(respond) as server:
        llm = LLMSettings(base_url=server.base_url, model="fake-model", api_key="x")
        settings = Settings(llm=llm)
        for judge in ("llm", "default"):
            for mode in ("sync", "batched"):
                out[f"{judge}-{mode}"] = _count_calls(
                    server, convs, settings, embedder, folder, judge, mode
                )
    return out


def _count_calls(
    server: FakeLLMServer,
    convs: list[Any],
    settings: Settings,
    embedder: CachingEmbedder,
    folder: Path,
    judge: str,
    mode: str,
) -> dict[str, Any]:
    """``llm``: the LLM judge alone. ``default``: what Memory builds (rules first)."""
    server.reset_records()
    memories = 0
    with progress() as bar:
        task = bar.add_task(
            f"LoCoMo stream, {judge} judge, {mode}",
            total=sum(len(c.observations) for c in convs),
        )
        for conv in convs:
            path = folder / f"llm-{judge}-{mode}-{conv.sample_id}.db"
            mem = Memory(path, settings=settings, embedder=embedder, consolidate="sync")
            if judge == "llm":
                mem.judge = LLMJudge(
                    settings.llm,
                    batch_size=settings.consolidation.batch_size,
                    usage_sink=mem.store,
                )
            try:
                _stream(mem, conv, mode, lambda t=task: bar.advance(t))
            finally:
                mem.close()
            memories += len(conv.observations)
    requests = server.chat_requests
    p_tokens = sum(prompt_tokens(r) for r in requests)
    c_tokens = sum(count_tokens(json.dumps(respond(r))) for r in requests)
    return {
        "memories": memories,
        "llm_calls": len(requests),
        "calls_per_memory": len(requests) / memories,
        "prompt_tokens_per_memory": p_tokens / memories,
        "completion_tokens_per_memory": c_tokens / memories,
    }


def _stream(mem: Memory, conv: Any, mode: str, tick: Any) -> None:
    items = [
        {
            "text": o.text,
            "user_id": conv.sample_id,
            "sources": list(o.sources),
            "created_at": o.created_at,
        }
        for o in conv.observations
    ]
    if mode == "sync":
        for item in items:
            mem.add(**item)
            tick()
        return
    # Batched: one add_many per LoCoMo session (same date), consolidated in batches of 8.
    sessions: dict[Any, list[dict[str, Any]]] = {}
    for item in items:
        sessions.setdefault(item["created_at"], []).append(item)
    for group in sessions.values():
        mem.add_many(group)
        for _ in group:
            tick()


def main() -> None:
    args = parser(__doc__ or "", "bench_consolidation.json").parse_args()
    out: dict[str, Any] = {"machine": machine(), "method": __doc__}
    with tempfile.TemporaryDirectory(prefix="memfold-bench-") as tmp:
        out["rules_10k"] = rule_judge_at_10k(args.data, Path(tmp))
        out["llm_locomo"] = llm_calls_on_locomo(args.data, Path(tmp))
    write_json(args.out, out)
    r, llm = out["rules_10k"], out["llm_locomo"]
    rows = [
        ["sync add(), rule judge, 10k store, end to end", f"{r['end_to_end']['per_s']:.0f}/s",
         ">= 100/s", met(r["end_to_end"]["per_s"] >= 100)],
        ["  same, precomputed vectors", f"{r['precomputed_vectors']['per_s']:.0f}/s", "", ""],
        ["  adds that reached the judge",
         f"{r['end_to_end']['judged']} of {r['end_to_end']['adds']}", "", ""],
    ]  # fmt: skip
    for key, m in llm.items():
        judge, mode = key.split("-")
        who = "LLM judge alone" if judge == "llm" else "default judge (rules first)"
        rows.append(
            [f"LLM calls per memory, LoCoMo dev stream, {who}, {mode}",
             f"{m['calls_per_memory']:.3f}", "<= 0.2 (default)" if judge == "default" else "",
             met(m["calls_per_memory"] <= 0.2) if judge == "default" else ""]
        )  # fmt: skip
        rows.append(
            [f"  prompt / completion tokens per memory, {mode}",
             f"{m['prompt_tokens_per_memory']:.0f} / {m['completion_tokens_per_memory']:.0f}",
             "", ""]
        )  # fmt: skip
    table("memfold consolidation benchmark", rows, ["measure", "figure", "target", ""])


if __name__ == "__main__":
    main()
