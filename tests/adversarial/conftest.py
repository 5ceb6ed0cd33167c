"""One scripted OpenAI-compatible server for the whole suite; each test gives it the
answer function of its own case (the embedder is the session's, tests/conftest.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from memfold.testing.fake_llm import FakeLLMServer


@pytest.fixture(scope="module")
def llm_server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as server:
        yield server
