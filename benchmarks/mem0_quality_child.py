"""The mem0 side of bench_mem0_quality.py; runs inside a mem0 venv (.bench-venvs/...).

    python mem0_quality_child.py BASE_URL FOLDER MODEL

Works with mem0 2.x (ADD-only ``add``) and 1.x (``add`` with UPDATE/DELETE); the API
differences (``get_all``/``search`` arguments) are bridged here. One JSON command a line on
stdin, one JSON answer a line on stdout:

- ``{"op": "seed", "user_id": U, "texts": [...]}``: each text stored verbatim
  (``add(..., infer=False)``: no LLM), in order; answers ``{"stored": [{"id", "text"}]}``.
- ``{"op": "add", "user_id": U, "text": T}``: ``add(T, user_id=U)`` as mem0 ships it (LLM
  extraction on); answers ``{"wall": seconds, "events": [...], "error": str | null}``.
- ``{"op": "state", "user_id": U, "queries": [Q, ...], "k": K}``: ``get_all`` of the scope
  and a ``search`` for each Q; answers ``{"active": [{"id", "text"}], "hits": [[{"id",
  "text"}, ...] per query]}``.
"""

from __future__ import annotations

import json
import os
import sys
import time
from importlib.metadata import version
from typing import Any

os.environ.setdefault("MEM0_TELEMETRY", "False")  # no network calls besides the proxy

MEM0_VERSION = version("mem0ai")
V2 = int(MEM0_VERSION.split(".")[0]) >= 2


def build(base_url: str, folder: str, model: str) -> Any:
    from mem0 import Memory  # lives in mem0's own venv

    config = {
        "llm": {
            "provider": "openai",
            "config": {"model": model, "openai_base_url": base_url, "api_key": "x"},
        },
        "embedder": {
            "provider": "openai",
            "config": {
                "model": "memfold-local",
                "openai_base_url": base_url,
                "api_key": "x",
                "embedding_dims": 384,
            },
        },
        # mem0's default vector store is Qdrant; its local (embedded, on-disk) mode works
        # offline, with no server.
        "vector_store": {
            "provider": "qdrant",
            "config": {
                "collection_name": "quality",
                "path": os.path.join(folder, "qdrant"),
                "embedding_model_dims": 384,
                "on_disk": True,
            },
        },
        "history_db_path": os.path.join(folder, "history.db"),
    }
    return Memory.from_config(config)


def _records(result: Any) -> list[dict[str, Any]]:
    rows = result.get("results", []) if isinstance(result, dict) else result
    return [
        {"id": str(r["id"]), "text": str(r.get("memory", ""))}
        for r in rows or []
        if isinstance(r, dict) and "id" in r
    ]


def seed(memory: Any, user_id: str, texts: list[str]) -> dict[str, Any]:
    stored: list[dict[str, Any]] = []
    for text in texts:
        stored.extend(_records(memory.add(text, user_id=user_id, infer=False)))
    return {"stored": stored}


def add(memory: Any, user_id: str, text: str) -> dict[str, Any]:
    started = time.perf_counter()
    try:
        result = memory.add(text, user_id=user_id)
        error = None
    except Exception as exc:  # mem0 2.x raises when the LLM call fails; report, go on
        result, error = {}, f"{type(exc).__name__}: {exc}"[:500]
    wall = time.perf_counter() - started
    rows = result.get("results", []) if isinstance(result, dict) else result
    events = [
        {"event": r.get("event"), "id": r.get("id"), "text": r.get("memory")}
        for r in rows or []
        if isinstance(r, dict)
    ]
    return {"wall": wall, "events": events, "error": error}


def state(memory: Any, user_id: str, queries: list[str], k: int) -> dict[str, Any]:
    if V2:
        everything = memory.get_all(filters={"user_id": user_id}, top_k=100)
        hits = [memory.search(q, filters={"user_id": user_id}, top_k=k) for q in queries]
    else:
        everything = memory.get_all(user_id=user_id, limit=100)
        hits = [memory.search(q, user_id=user_id, limit=k) for q in queries]
    return {"active": _records(everything), "hits": [_records(h) for h in hits]}


def main(base_url: str, folder: str, model: str) -> None:
    memory = build(base_url, folder, model)
    print(json.dumps({"ready": True, "mem0": MEM0_VERSION}), flush=True)
    for line in sys.stdin:
        command = json.loads(line)
        op, user_id = command["op"], command["user_id"]
        if op == "seed":
            answer = seed(memory, user_id, command["texts"])
        elif op == "add":
            answer = add(memory, user_id, command["text"])
        elif op == "state":
            answer = state(memory, user_id, command["queries"], int(command.get("k", 5)))
        else:
            answer = {"error": f"unknown op {op!r}"}
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3])
