"""ASGI helpers shared by the service's middleware."""

from __future__ import annotations

from starlette.types import Message, Receive


def replay(messages: list[Message], receive: Receive) -> Receive:
    """``messages`` (a request body already read) first, then the connection's own
    ``receive``: a streamed response (a file, an export) listens for the client's
    disconnect while it sends, and an invented one would cut it off after its headers."""
    pending = list(messages)

    async def next_message() -> Message:
        if pending:
            return pending.pop(0)
        return await receive()

    return next_message
