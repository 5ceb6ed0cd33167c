"""Issue 27 end to end: a password stated with a qualifier never reaches the LLM on a
save, and what the LLM writes back holds the real password again."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memfold import Memory, Settings, Status
from memfold.embed.local import LocalEmbedder
from memfold.testing.fake_llm import FakeLLMServer, recorded_texts
from memfold.testing.fake_replies import user_payload

TEXT = "The password for the VPN is hunter2"


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as srv:
        yield srv


def _update_with_the_new_text(body: dict[str, Any]) -> dict[str, Any]:
    """UPDATE the first candidate with the new memory's text, as the LLM saw it."""
    decisions = [
        {
            "item": item["item"],
            "action": "UPDATE",
            "target_ids": [item["candidates"][0]["id"]],
            "text": item["new"]["text"] + " (again)",
            "area": "main",
            "importance": 0.5,
            "confidence": 0.95,
            "reasoning": "scripted UPDATE",
        }
        for item in user_payload(body)["items"]
    ]
    return {"decisions": decisions}


def test_a_qualified_password_never_reaches_the_llm_and_is_written_back(
    server: FakeLLMServer, db_path: Path, embedder: LocalEmbedder
) -> None:
    server.set_script(_update_with_the_new_text)
    settings = Settings(
        llm={
            "base_url": server.base_url,
            "model": "fake-model",
            "api_key": "k",
            "utility": {"timeout_s": 1.0, "max_retries": 1},
            "rules_first_confidence": None,  # every judged save goes to the LLM
        },
    )
    with Memory(db_path, settings=settings, embedder=embedder, consolidate="sync") as mem:
        first = mem.add(TEXT, user_id="u").memory
        r = mem.add(TEXT + ".", user_id="u")
        assert server.request_count("/chat/completions") == 1
        assert r.decision is not None and r.decision.action.value == "UPDATE"
        sent = list(recorded_texts(server))
        decoded = [json.dumps(user_payload(b), ensure_ascii=False) for b in server.chat_requests]
        assert any("The password for the VPN is [[SECRET_1]]" in d for d in decoded)
        for text in (*sent, *decoded):
            assert "hunter2" not in text
        updated = mem.get(first.id)
        assert updated.status is Status.ACTIVE
        assert updated.text == TEXT + ". (again)"  # the real password, restored
        active = [m.text for m in mem.list(user_id="u")]
        assert active == [TEXT + ". (again)"]
