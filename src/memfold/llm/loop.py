"""A private event loop in a daemon thread, so synchronous judges can use the async client.

The Judge protocol is synchronous (the engine's worker threads call it), but
the OpenAI client, its connection pool and the rate limiters belong to one
event loop. Running every call on one private loop keeps them on that loop
whether the caller is a plain thread or some other running event loop.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


class LoopThread:
    """Runs coroutines on its own loop; ``run`` blocks, ``run_async`` awaits."""

    def __init__(self, name: str = "memfold-llm") -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._main, name=name, daemon=True)
        self._thread.start()

    def _main(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._loop.run_forever()

    @property
    def closed(self) -> bool:
        return self._loop.is_closed()

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` on the private loop and wait for its result."""
        if threading.current_thread() is self._thread:
            coro.close()
            raise RuntimeError("LoopThread.run called from its own loop (would deadlock)")
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result()

    async def run_async(self, coro: Coroutine[Any, Any, T]) -> T:
        """Await ``coro`` from another event loop; it still runs on the private loop."""
        if threading.current_thread() is self._thread:
            return await coro
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, self._loop))

    def close(self) -> None:
        if self._loop.is_closed():
            return
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self._loop.close()
