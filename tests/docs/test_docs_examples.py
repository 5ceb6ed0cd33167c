"""Every Python and shell example of the README and the docs runs, and prints what the
page says it prints (tests/docs/markdown_blocks.py says how a page marks its blocks).

Each page runs in a fresh folder, its Python blocks in order in one interpreter (a page
reads as one session), its shell blocks one by one with the project's ``.venv/bin``
first on PATH. An LLM address a page names (Ollama's, OpenAI's) is pointed at a
scripted OpenAI-compatible server on loopback, the one thing these tests replace.
"""

from __future__ import annotations

import os
import re
import shlex
import socket
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memfold.testing.fake_llm import FakeLLMServer
from memfold.testing.fake_replies import Reply, user_payload

from .markdown_blocks import RUN, Block, blocks, matches, page_skip
from .sessions import Failed, Sessions

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
LLM_ADDRESSES = (
    "http://localhost:11434/v1",
    "http://127.0.0.1:11434/v1",
    "https://api.openai.com/v1",
)
PAGE_TIMEOUT_S = 240
SERVICE_PORT = 8765  # the port the pages show for `memfold serve`
POSTGRES_URL = re.compile(r"postgresql://[^\s\"'`]+")


def _page_id(path: Path) -> str:
    return str(path.relative_to(ROOT))


def _scripted(body: dict[str, Any]) -> Reply:
    """A chat model that searches memory when it is offered tools, and a judge that keeps
    every new memory apart: what it decides is not the point of a page's example."""
    if body.get("tools"):
        question = str(body["messages"][-1]["content"])
        return Reply("", tool_calls=(("search_memories", {"query": question}),))
    try:
        items = user_payload(body)["items"]
    except (KeyError, TypeError, ValueError):
        return Reply("")
    return Reply("\n".join(f"{it['item']} distinct facts: KEEP_SEPARATE - main 5" for it in items))


@pytest.fixture(scope="module")
def llm() -> Iterator[FakeLLMServer]:
    with FakeLLMServer(_scripted) as server:
        yield server


def _env(folder: Path, llm: FakeLLMServer) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MEMFOLD_", "OPENAI_"))}
    home = folder / "home"
    home.mkdir(exist_ok=True)
    env.update(
        HOME=str(home),
        XDG_DATA_HOME=str(home / "data"),
        XDG_CONFIG_HOME=str(home / "config"),
        OPENAI_API_KEY="sk-docs-test",
        OPENAI_BASE_URL=llm.base_url,
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
        NO_COLOR="1",
        COLUMNS="100",
    )
    return env


def _check_output(block: Block, stdout: str) -> None:
    if block.expected is not None and not matches(block.expected, stdout):
        pytest.fail(
            f"{block.where} printed:\n{stdout}\nthe page says:\n{block.expected}", pytrace=False
        )


def _adapted(block: Block, llm: FakeLLMServer, port: int, pg_url: str | None) -> str:
    """The block as it runs here: the LLM addresses a page names point at the scripted
    server, the service's port at a free one, and a PostgreSQL URL at the test server."""
    code = block.code
    for address in LLM_ADDRESSES:
        code = code.replace(address, llm.base_url)
    code = code.replace(str(SERVICE_PORT), str(port))
    if pg_url is not None:
        url = pg_url if block.lang == "python" else shlex.quote(pg_url)
        code = POSTGRES_URL.sub(lambda _: url, code)
    return code


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize("path", PAGES, ids=_page_id)
def test_every_example_of_the_page_runs(
    path: Path, tmp_path: Path, llm: FakeLLMServer, request: pytest.FixtureRequest
) -> None:
    text = path.read_text(encoding="utf-8")
    reason = page_skip(text)
    if reason is not None:
        assert len(reason.strip()) >= 10, f"{_page_id(path)}: a skipped page needs its reason"
        return
    runnable = [b for b in blocks(path, ROOT) if b.runs]
    if not runnable:
        return
    needs_pg = any(POSTGRES_URL.search(b.code) for b in runnable)
    pg_url = str(request.getfixturevalue("pg_url")) if needs_pg else None
    port = _free_port()
    sessions = Sessions(tmp_path, _env(tmp_path, llm), PAGE_TIMEOUT_S)
    try:
        for block in runnable:
            code = _adapted(block, llm, port, pg_url)
            failed: str | None = None
            try:
                if block.lang == "python":
                    out = sessions.run_python(code)
                else:
                    out = sessions.run_shell(code)
            except Failed as failure:
                failed = f"{block.where} {failure}"
            if failed is not None:
                pytest.fail(failed, pytrace=False)
            _check_output(block, out)
    finally:
        sessions.close()


def test_a_skipped_block_says_why_and_few_are_skipped() -> None:
    skipped = [b for path in PAGES for b in blocks(path, ROOT) if b.skip is not None]
    assert all(b.skip and len(b.skip) >= 10 for b in skipped), [b.where for b in skipped]
    examples = [b for path in PAGES for b in blocks(path, ROOT) if b.lang in RUN]
    assert len(skipped) <= len(examples) // 4, [b.where for b in skipped]
