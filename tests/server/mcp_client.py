"""The MCP SDK's own client against a real ``memfold mcp`` subprocess, for the tests.

``StdioServer`` keeps one client session open on a thread of its own (one event loop),
so a test module starts the server once and its tests call tools synchronously.
"""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.stdio import get_default_environment
from mcp_types import CallToolResult, ListToolsResult

T = TypeVar("T")
STARTUP_TIMEOUT_S = 60.0
CALL_TIMEOUT_S = 60.0


def server_env(config: Path, **extra: str) -> dict[str, str]:
    """The environment of a server under test: the SDK's safe defaults, the test run's
    PYTHONPATH (the same memfold), an empty config file of the test's own, and ``extra``."""
    env = {**get_default_environment(), "MEMFOLD_CONFIG": str(config), **extra}
    if "PYTHONPATH" in os.environ:
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    return env


def mcp_args(*args: str) -> list[str]:
    return ["-m", "memfold.cli", "mcp", *args]


class StdioServer:
    """``python -m memfold.cli mcp ARGS`` with an initialized ClientSession."""

    def __init__(self, args: list[str], env: dict[str, str], stderr: Path) -> None:
        self.params = StdioServerParameters(command=sys.executable, args=args, env=env)
        self.stderr_path = stderr
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self.session: ClientSession | None = None
        self._thread = threading.Thread(target=asyncio.run, args=(self._main(),), daemon=True)

    def __enter__(self) -> StdioServer:
        self._thread.start()
        if not self._ready.wait(STARTUP_TIMEOUT_S):
            raise TimeoutError(f"memfold mcp did not start: {self.stderr_path.read_text()}")
        if self._error is not None:
            raise RuntimeError(f"memfold mcp failed: {self.stderr_path.read_text()}") from (
                self._error
            )
        return self

    def __exit__(self, *exc: object) -> None:
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(30)

    async def _main(self) -> None:
        try:
            with self.stderr_path.open("w") as errlog:
                async with (
                    stdio_client(self.params, errlog=errlog) as (read, write),
                    ClientSession(read, write) as session,
                ):
                    await session.initialize()
                    self.session = session
                    self._loop = asyncio.get_running_loop()
                    self._stop = asyncio.Event()
                    self._ready.set()
                    await self._stop.wait()
        except BaseException as exc:  # reported to the test thread
            self._error = exc
            self._ready.set()

    def _run(self, work: Coroutine[Any, Any, T]) -> T:
        assert self._loop is not None
        return asyncio.run_coroutine_threadsafe(work, self._loop).result(CALL_TIMEOUT_S)

    def list_tools(self) -> ListToolsResult:
        assert self.session is not None
        return self._run(self.session.list_tools())

    def call(self, name: str, **arguments: Any) -> CallToolResult:
        assert self.session is not None
        return self._run(self.session.call_tool(name, arguments))

    def ok(self, name: str, **arguments: Any) -> dict[str, Any]:
        """A call that must succeed: its structured result."""
        return structured(self.call(name, **arguments))

    def error(self, name: str, **arguments: Any) -> str:
        """A call that must fail as a tool error: its message."""
        result = self.call(name, **arguments)
        assert result.is_error, result.structured_content
        return text_of(result)


def text_of(result: CallToolResult) -> str:
    return " ".join(getattr(block, "text", "") for block in result.content)


def structured(result: CallToolResult) -> dict[str, Any]:
    assert not result.is_error, text_of(result)
    assert result.structured_content is not None, text_of(result)
    data: dict[str, Any] = dict(result.structured_content)
    return data


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def wait_for_port(port: int, process: subprocess.Popen[bytes], timeout: float) -> None:
    """Poll until something accepts connections on 127.0.0.1:port (or the process ends)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"memfold mcp exited with {process.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise TimeoutError(f"nothing listens on 127.0.0.1:{port} after {timeout} s")
