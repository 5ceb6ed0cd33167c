"""Every timeout setting is applied: store.busy_timeout_ms, embed.timeout_s, llm probe_timeout_s.

(llm.<role>.timeout_s is covered in tests/llm/test_client.py: a call, retries included,
ends within it.) The stalled servers here are real loopback sockets that accept a
request and then answer never, or one byte at a time.
"""

from __future__ import annotations

import contextlib
import socket
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from memfold import Memory, Settings
from memfold.config import EmbedSettings, LLMSettings, RoleSettings
from memfold.embed import make_embedder
from memfold.embed.local import LocalEmbedder
from memfold.embed.openai_compat import OpenAIEmbedder
from memfold.errors import LLMUnavailable, StoreBusy
from memfold.llm.client import LLMClient


class StalledServer:
    """Accepts connections; ``trickle``: sends headers, then one body byte per 50 ms."""

    def __init__(self, *, trickle: bool) -> None:
        self.trickle = trickle
        self.stop = threading.Event()
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.sock.settimeout(0.05)
        self.port = int(self.sock.getsockname()[1])
        self.thread = threading.Thread(target=self._serve, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def _serve(self) -> None:
        conns: list[socket.socket] = []
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
                conns.append(conn)
                if self.trickle:
                    conn.sendall(
                        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                        b"Content-Length: 100000\r\n\r\n{"
                    )
            except TimeoutError:
                pass
            if self.trickle:
                for conn in conns:
                    with contextlib.suppress(OSError):
                        conn.sendall(b" ")
        for conn in conns:
            conn.close()
        self.sock.close()


@pytest.fixture
def stalled(request: pytest.FixtureRequest) -> Iterator[StalledServer]:
    server = StalledServer(trickle=bool(request.param))
    server.thread.start()
    yield server
    server.stop.set()
    server.thread.join(5)


@pytest.mark.parametrize("stalled", [False, True], indirect=True, ids=["silent", "trickle"])
def test_embed_timeout_cuts_off_a_stalled_endpoint(stalled: StalledServer) -> None:
    remote = OpenAIEmbedder(base_url=stalled.base_url, model="m", dim=4, timeout_s=0.3)
    with pytest.raises(LLMUnavailable, match="embedding endpoint"):
        remote.embed(["hello"])
    remote.close()
    # The setting reaches the embedder memfold builds (its dimension probe stalls too).
    settings = EmbedSettings(provider="openai", base_url=stalled.base_url, model="m", timeout_s=0.3)
    with pytest.raises(LLMUnavailable):
        make_embedder(settings)


@pytest.mark.parametrize("stalled", [False], indirect=True)
async def test_probe_timeout_bounds_the_availability_probe(stalled: StalledServer) -> None:
    settings = LLMSettings(
        base_url=stalled.base_url,
        model="m",
        utility=RoleSettings(timeout_s=120, probe_timeout_s=0.2, max_retries=0),
    )
    client = LLMClient(settings)
    assert await client.available() is False
    assert client.is_down()
    await client.aclose()


def test_busy_timeout_is_how_long_a_write_waits_for_a_lock(
    tmp_path: Path, embedder: LocalEmbedder
) -> None:
    path = tmp_path / "m.db"
    impatient = Settings(store={"busy_timeout_ms": 0})
    patient = Settings(store={"busy_timeout_ms": 60_000})
    with (
        Memory(path, settings=impatient, embedder=embedder, consolidate="off") as now,
        Memory(path, settings=patient, embedder=embedder, consolidate="off") as later,
    ):
        for mem, expect_wait in ((now, False), (later, True)):
            holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            holder.execute("BEGIN IMMEDIATE")
            release = threading.Timer(0.3, holder.execute, args=("COMMIT",))
            release.start()
            try:
                if expect_wait:
                    mem.add("written once the lock is released", user_id="u")
                else:
                    with pytest.raises(StoreBusy, match="locked"):
                        mem.add("refused while the file is locked", user_id="u")
            finally:
                release.join()
                holder.close()
        texts = [m.text for m in later.list(user_id="u")]
    assert texts == ["written once the lock is released"]
