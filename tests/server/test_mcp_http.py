"""``memfold mcp --transport http`` (streamable HTTP) through the SDK's HTTP client, a
real subprocess on a free loopback port: each request acts as its own bearer key."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from memfold import Memory
from memfold.cli import main
from memfold.embed.local import LocalEmbedder
from memfold.engine.keys import create_key
from server.mcp_client import free_port, mcp_args, server_env, structured, text_of, wait_for_port

STARTUP_TIMEOUT_S = 60.0


@pytest.fixture(scope="module")
def http_server(
    tmp_path_factory: pytest.TempPathFactory, embedder: LocalEmbedder
) -> Iterator[dict[str, Any]]:
    folder = tmp_path_factory.mktemp("mcp-http")
    path = folder / "memfold.db"
    (folder / "config.toml").write_text("")
    with Memory(path, embedder=embedder, consolidate="off") as mem:
        tokens = {
            name: create_key(mem.store, role=role, user_id=user)[1]
            for name, role, user in (
                ("u1_write", "write", "u1"),
                ("u1_read", "read", "u1"),
                ("u2_write", "write", "u2"),
            )
        }
    port = free_port()
    args = mcp_args("--transport", "http", "--port", str(port), "--path", str(path))
    env = server_env(folder / "config.toml", MEMFOLD_CONSOLIDATION__MODE="sync")
    with (folder / "stderr.txt").open("w") as errlog:
        process = subprocess.Popen([sys.executable, *args], env=env, stderr=errlog)
        try:
            wait_for_port(port, process, STARTUP_TIMEOUT_S)
            yield {"url": f"http://127.0.0.1:{port}/mcp", "tokens": tokens, "path": path}
        finally:
            process.terminate()
            process.wait(30)


async def _calls(url: str, token: str, *calls: tuple[str, dict[str, Any]]) -> list[Any]:
    """One client session as ``token``'s bearer; the results of ``calls`` in order."""
    headers = {"Authorization": f"Bearer {token}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=60) as client,
        streamable_http_client(url, http_client=client) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        return [await session.call_tool(name, arguments) for name, arguments in calls]


async def test_each_request_acts_as_its_own_key(http_server: dict[str, Any]) -> None:
    url, tokens = http_server["url"], http_server["tokens"]
    (added,) = await _calls(url, tokens["u1_write"], ("add_memory", {"text": "Ada's cat is Io"}))
    memory = structured(added)
    assert memory["text"] == "Ada's cat is Io"

    got, hits, refused = await _calls(
        url,
        tokens["u2_write"],
        ("get_memory", {"memory_id": memory["id"]}),
        ("search_memories", {"query": "Ada's cat"}),
        ("delete_memory", {"memory_id": memory["id"]}),
    )
    assert got.is_error and "no memory" in text_of(got) and "Io" not in text_of(got)
    assert structured(hits)["results"] == []
    assert refused.is_error and "no memory" in text_of(refused)

    read_add, read_get = await _calls(
        url,
        tokens["u1_read"],
        ("add_memory", {"text": "A read key must not write this"}),
        ("get_memory", {"memory_id": memory["id"]}),
    )
    assert read_add.is_error and "needs a write key" in text_of(read_add)
    assert structured(read_get)["status"] == "active"
    assert structured(read_get)["user_id"] == "u1"
    with Memory(http_server["path"], read_only=True) as mem:
        assert [m.text for m in mem.list(user_id="u1")] == ["Ada's cat is Io"]


@pytest.mark.parametrize("header", [None, "Bearer mf_not-a-key", "Basic dTE6cHc="])
def test_a_request_without_a_valid_key_is_401(
    http_server: dict[str, Any], header: str | None
) -> None:
    headers = {"Accept": "application/json, text/event-stream"}
    if header is not None:
        headers["Authorization"] = header
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    reply = httpx.post(http_server["url"], json=body, headers=headers, timeout=30)
    assert reply.status_code == 401
    assert reply.headers["www-authenticate"].startswith("Bearer")


def _run_cli(
    args: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> tuple[int, str]:
    """``memfold ARGS`` in this process: its exit code and stderr."""
    config = tmp_path / "config.toml"
    config.write_text("")
    monkeypatch.setenv("MEMFOLD_CONFIG", str(config))
    monkeypatch.delenv("MEMFOLD_API_KEY", raising=False)
    with pytest.raises(SystemExit) as info:
        main(args)
    return int(info.value.code or 0), capsys.readouterr().err


def test_a_fixed_scope_over_http_binds_to_loopback_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["mcp", "--transport", "http", "--host", "0.0.0.0", "--user-id", "u1"]
    code, err = _run_cli([*args, "--path", str(tmp_path / "m.db")], tmp_path, monkeypatch, capsys)
    assert code == 2 and "bind to 127.0.0.1" in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "stdio needs a scope"),
        (["--agent-id", "bot"], "--agent-id needs --user-id"),
        (["--key", "mf_unknown"], "not valid for this store"),
        (["--transport", "sse"], "--transport must be stdio or http"),
    ],
)
def test_a_server_without_a_valid_scope_does_not_start(
    args: list[str],
    message: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = ["--path", str(tmp_path / "m.db")]
    code, err = _run_cli(["mcp", *path, *args], tmp_path, monkeypatch, capsys)
    assert code == 2 and message in err
