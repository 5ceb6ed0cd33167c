"""``memfold serve`` as a user runs it: a process on a loopback port over a store with
a key, answering with that key, ending with exit 0 on Ctrl-C or SIGTERM with what it
acknowledged on disk; a missing store is one line and exit 2."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from memfold import Memory
from memfold.embed.local import LocalEmbedder
from memfold.engine.keys import create_key

STARTUP_S = 60.0  # the process imports memfold, FastAPI and uvicorn (seconds under load)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _env(tmp_path: Path) -> dict[str, str]:
    config = tmp_path / "config.toml"
    config.write_text("")
    return {**os.environ, "MEMFOLD_CONFIG": str(config)}


def _serve(tmp_path: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "memfold.cli", "serve", *args],
        env=_env(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _wait_until_up(process: subprocess.Popen[str], url: str) -> None:
    deadline = time.monotonic() + STARTUP_S
    while time.monotonic() < deadline:
        assert process.poll() is None, process.communicate()
        try:
            if httpx.get(f"{url}/openapi.json", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            time.sleep(0.1)
    raise AssertionError("memfold serve did not start")


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "term"])
def test_memfold_serve_answers_and_stops_cleanly(
    tmp_path: Path, embedder: LocalEmbedder, stop: signal.Signals
) -> None:
    path = tmp_path / "memfold.db"
    with Memory(path, embedder=embedder, consolidate="off") as memory:
        token = create_key(memory.store, role="write", user_id="sam")[1]
    port = _free_port()
    process = _serve(tmp_path, "--path", str(path), "--port", str(port))
    try:
        url = f"http://127.0.0.1:{port}"
        _wait_until_up(process, url)
        headers = {"Authorization": f"Bearer {token}"}
        added = httpx.post(f"{url}/v1/memories", json={"text": "Sam swims."}, headers=headers)
        assert added.status_code == 200, added.text
        assert httpx.get(f"{url}/v1/memories", headers={}).status_code == 401
    finally:
        process.send_signal(stop)
        _, err = process.communicate(timeout=30)
    assert process.returncode == 0, err
    assert f"http://127.0.0.1:{port}" in err and err.endswith("memfold serve stopped\n")
    with Memory(path, embedder=embedder, consolidate="off") as memory:
        (stored,) = memory.list(user_id="sam")
        assert stored.text == "Sam swims."


def test_memfold_serve_on_a_missing_store_is_one_line_and_exit_2(tmp_path: Path) -> None:
    missing = tmp_path / "nope.db"
    process = _serve(tmp_path, "--path", str(missing), "--port", str(_free_port()))
    _, err = process.communicate(timeout=60)
    assert process.returncode == 2
    assert err.strip().splitlines() == [
        f"error: store {missing} does not exist (check --path or MEMFOLD_PATH; "
        "`memfold keys create` creates one with its first key)"
    ]
    assert not missing.exists()
