"""A recording proxy for an OpenAI-compatible server, so an LLM evaluation can be re-run
after a change that does not touch the prompts, without paying for the model again.

    .venv/bin/python benchmarks/llm_replay.py --upstream http://127.0.0.1:18080 \
        --cache /tmp/llm-replay.jsonl --port 18090

then point ``MEMFOLD_LLM_BASE_URL`` at ``http://127.0.0.1:18090/v1``. A POST whose body
(the request, byte for byte after JSON normalisation) was seen before is answered from
the cache file; any other is forwarded, and a 200 answer is appended to the cache. The
cache is one JSON object per line: ``{"key": sha256, "status": 200, "body": "..."}``.
``--offline`` answers 502 to anything not cached (a replay that must not call out).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx


def request_key(path: str, body: bytes) -> str:
    """The cache key of a request: its path and its JSON body with sorted keys."""
    try:
        normal = json.dumps(json.loads(body), sort_keys=True, ensure_ascii=False)
    except ValueError:
        normal = body.decode("utf-8", "replace")
    return hashlib.sha256(f"{path}\n{normal}".encode()).hexdigest()


class ReplayCache:
    """Recorded answers, loaded from and appended to one JSONL file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.lock = threading.Lock()
        self.answers: dict[str, str] = {}
        if path.exists():
            for line in path.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    row = json.loads(line)
                    self.answers[row["key"]] = row["body"]

    def get(self, key: str) -> str | None:
        with self.lock:
            return self.answers.get(key)

    def put(self, key: str, body: str) -> None:
        with self.lock:
            self.answers[key] = body
            with self.path.open("a", encoding="utf-8") as fh:
                fh.write(json.dumps({"key": key, "status": 200, "body": body}) + "\n")


def make_handler(upstream: str, cache: ReplayCache, offline: bool) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def _send(self, status: int, body: str) -> None:
            data = body.encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            key = request_key(self.path, body)
            cached = cache.get(key)
            if cached is not None:
                self._send(200, cached)
                return
            if offline:
                self._send(502, json.dumps({"error": {"message": "not in the replay cache"}}))
                return
            reply = httpx.post(
                upstream + self.path,
                content=body,
                headers={"Content-Type": "application/json"},
                timeout=None,
            )
            if reply.status_code == 200:
                cache.put(key, reply.text)
            self._send(reply.status_code, reply.text)

        def do_GET(self) -> None:
            if offline:
                self._send(502, json.dumps({"error": {"message": "offline replay"}}))
                return
            reply = httpx.get(upstream + self.path, timeout=None)
            self._send(reply.status_code, reply.text)

        def log_message(self, format: str, *args: object) -> None:
            return

    return Handler


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--upstream", default="http://127.0.0.1:18080")
    parser.add_argument("--cache", type=Path, required=True)
    parser.add_argument("--port", type=int, default=18090)
    parser.add_argument("--offline", action="store_true")
    args = parser.parse_args()
    cache = ReplayCache(args.cache)
    server = ThreadingHTTPServer(
        ("127.0.0.1", args.port), make_handler(args.upstream, cache, args.offline)
    )
    print(f"replaying {len(cache.answers)} answers; listening on 127.0.0.1:{args.port}")
    server.serve_forever()


if __name__ == "__main__":
    main()
