"""Fixtures for the LLM layer: a scripted server on loopback and settings pointing at it."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from memfold.config import LLMSettings, RoleSettings
from memfold.testing.fake_llm import FakeLLMServer

DATA = Path(__file__).parent / "data"
MakeSettings = Callable[..., LLMSettings]


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as srv:
        yield srv


@pytest.fixture
def make_settings(server: FakeLLMServer) -> MakeSettings:
    """LLMSettings for the fake server; keyword arguments go to the utility role."""

    def make(**role: Any) -> LLMSettings:
        values: dict[str, Any] = {"timeout_s": 1.0, "max_retries": 2}
        values.update(role)
        return LLMSettings(
            base_url=server.base_url,
            model="fake-model",
            api_key="test-key",
            utility=RoleSettings(**values),
        )

    return make


@pytest.fixture(scope="session")
def secret_corpus() -> list[dict[str, str]]:
    lines = (DATA / "secrets.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]
