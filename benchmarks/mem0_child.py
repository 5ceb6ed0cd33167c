"""The mem0 side of bench_mem0.py; runs inside .bench-venvs/mem0 (mem0's own venv).

Reads one JSON command a line on stdin ({"text": ...}), adds it to mem0, answers one
JSON line with the wall time of ``Memory.add`` measured here (no pipe overhead).
"""

from __future__ import annotations

import json
import os
import sys
import time

os.environ.setdefault("MEM0_TELEMETRY", "False")  # no network calls besides the fake server


def main(base_url: str, folder: str) -> None:
    from mem0 import Memory  # lives in mem0's own venv

    config = {
        "llm": {
            "provider": "openai",
            "config": {"model": "fake-model", "openai_base_url": base_url, "api_key": "x"},
        },
        "embedder": {
            "provider": "openai",
            "config": {
                "model": "fake-embedder",
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
                "collection_name": "bench",
                "path": os.path.join(folder, "qdrant"),
                "embedding_model_dims": 384,
                "on_disk": True,
            },
        },
        "history_db_path": os.path.join(folder, "history.db"),
    }
    memory = Memory.from_config(config)
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        command = json.loads(line)
        started = time.perf_counter()
        result = memory.add(command["text"], user_id=command.get("user_id", "bench"))
        wall = time.perf_counter() - started
        stored = len(result.get("results", [])) if isinstance(result, dict) else 0
        print(json.dumps({"wall": wall, "stored": stored}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
