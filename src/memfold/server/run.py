"""Running the app with uvicorn: ``serve`` (``memfold serve``, blocks) and
``start_server`` (a server in a thread on a free port, for tests and benchmarks)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable
from typing import NamedTuple

import uvicorn

from memfold.memory import Memory
from memfold.server.app import create_app

_START_TIMEOUT_S = 15.0


class RunningServer(NamedTuple):
    """``base_url`` (``http://127.0.0.1:PORT``, no trailing slash) and ``stop()``."""

    base_url: str
    stop: Callable[[], None]


def _config(memory: Memory, log_level: str) -> uvicorn.Config:
    return uvicorn.Config(
        create_app(memory),
        log_config=None,
        log_level=log_level,
        access_log=False,
        lifespan="off",
        timeout_graceful_shutdown=2,
    )


def serve(memory: Memory, host: str, port: int, *, log_level: str = "info") -> None:
    """Serve until interrupted (uvicorn handles SIGINT/SIGTERM); the caller closes
    ``memory`` afterwards."""
    config = _config(memory, log_level)
    config.host, config.port = host, port
    config.access_log = True
    uvicorn.Server(config).run()


def start_server(memory: Memory, host: str = "127.0.0.1", port: int = 0) -> RunningServer:
    """The app serving ``memory`` in a daemon thread, started (port 0: a free one).
    ``stop()`` shuts it down and waits for the thread; ``memory`` stays open."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    bound = int(sock.getsockname()[1])
    server = uvicorn.Server(_config(memory, "warning"))
    thread = threading.Thread(
        target=server.run, kwargs={"sockets": [sock]}, daemon=True, name="memfold-serve"
    )
    thread.start()
    deadline = time.monotonic() + _START_TIMEOUT_S
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            server.should_exit = True
            sock.close()
            raise RuntimeError("the memfold server did not start")
        time.sleep(0.01)

    def stop() -> None:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()

    return RunningServer(f"http://{host}:{bound}", stop)
