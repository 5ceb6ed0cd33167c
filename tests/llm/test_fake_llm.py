"""The scripted server itself: models, embeddings, script files, server time."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx

from memfold.testing.fake_llm import FakeLLMServer
from memfold.testing.fake_replies import Fault, Reply, load_script, user_payload


def test_models_and_embeddings(server: FakeLLMServer) -> None:
    with httpx.Client(base_url=server.base_url) as http:
        models = http.get("/models").json()
        assert models["data"][0]["id"] == "fake-model"
        reply = http.post("/embeddings", json={"model": "e", "input": ["a cat", "a dog"]}).json()
    vectors = [d["embedding"] for d in reply["data"]]
    assert len(vectors) == 2 and len(vectors[0]) == 384
    assert reply["usage"]["prompt_tokens"] == 4
    assert server.total_server_seconds > 0


def test_responder_function_sees_the_request(server: FakeLLMServer) -> None:
    def echo(body: dict[str, Any]) -> dict[str, Any]:
        return {"text": json.dumps(user_payload(body)), "reasoning": ""}

    server.set_script(echo)
    with httpx.Client(base_url=server.base_url) as http:
        body = {"model": "m", "messages": [{"role": "user", "content": '{"x": 1}'}]}
        answer = http.post("/chat/completions", json=body).json()
    assert json.loads(answer["choices"][0]["message"]["content"])["text"] == '{"x": 1}'
    assert server.chat_requests == [body]


def test_script_exhausted_answers_500_and_cycle_restarts() -> None:
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    with FakeLLMServer(["one"], cycle=True) as srv, httpx.Client(base_url=srv.base_url) as http:
        texts = [
            http.post("/chat/completions", json=body).json()["choices"][0]["message"]["content"]
            for _ in range(2)
        ]
    assert texts == ["one", "one"]
    with FakeLLMServer(["one"]) as srv, httpx.Client(base_url=srv.base_url) as http:
        assert http.post("/chat/completions", json=body).status_code == 200
        assert http.post("/chat/completions", json=body).status_code == 500


def test_script_files_json_and_jsonl(tmp_path: Path) -> None:
    entries = [
        "plain",
        {"content": {"text": "x"}, "usage": {"prompt_tokens": 3, "completion_tokens": 4}},
        {"fault": "429"},
        {"decisions": []},
    ]
    as_json = tmp_path / "s.json"
    as_json.write_text(json.dumps(entries))
    as_jsonl = tmp_path / "s.jsonl"
    as_jsonl.write_text("\n".join(json.dumps(e) for e in entries) + "\n")
    for path in (as_json, as_jsonl):
        replies = load_script(path)
        assert replies == [
            Reply(content="plain"),
            Reply(content={"text": "x"}, prompt_tokens=3, completion_tokens=4),
            Reply(fault=Fault.RATE_LIMIT),
            Reply(content={"decisions": []}),
        ]
