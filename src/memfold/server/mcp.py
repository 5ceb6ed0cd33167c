"""``memfold mcp``: an MCP server (the official ``mcp`` SDK, 2.x ``MCPServer``) over a
Memory, on stdio or streamable HTTP.

Who the caller is, and so which scope the tools act in, is never up to the model:

- a fixed caller: ``--user-id U [--agent-id A]`` (a write caller bound to that scope), or
  ``--key TOKEN`` / ``MEMFOLD_API_KEY`` (the key's scope and role, checked against the
  store once at start). A read key gets only the read tools. Over HTTP a fixed caller
  has no per-request check, so it binds to a loopback address only.
- per request (HTTP without a fixed caller): every request carries
  ``Authorization: Bearer KEY``, checked by the SDK's bearer middleware against the
  store (401 without a valid key); each tool call acts as that request's key.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable
from dataclasses import replace
from typing import Literal

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from memfold.engine.keys import verify_key
from memfold.errors import InvalidInput
from memfold.integrations.tool_text import DESCRIPTIONS
from memfold.memory import Memory
from memfold.model import ApiKey, Role, utcnow
from memfold.policy.validate import clean_id
from memfold.server.mcp_lean import LeanMCPServer, compact_result
from memfold.server.mcp_tools import MemoryTools

Transport = Literal["stdio", "http"]

INSTRUCTIONS = (
    "memfold is this user's long-term memory. Search it (search_memories) before answering "
    "anything that may depend on what is known about the user; save new lasting facts, "
    "preferences and decisions with add_memory; correct or forget with update_memory and "
    "delete_memory; every change is logged (memory_history) and can be undone (undo_change). "
    "The scope (whose memory this is) is fixed by the server: tools take no user id."
)


class StoreKeyVerifier:
    """The SDK's TokenVerifier over memfold's API keys (engine/keys.py)."""

    def __init__(self, memory: Memory) -> None:
        self.memory = memory

    async def verify_token(self, token: str) -> AccessToken | None:
        key = verify_key(self.memory.store, token)
        if key is None:
            return None
        return AccessToken(token=token, client_id=key.id, scopes=[key.role.value])


def fixed_caller(
    memory: Memory,
    *,
    user_id: str | None,
    agent_id: str | None,
    token: str | None,
) -> ApiKey | None:
    """The caller fixed at start, or None (HTTP with per-request keys). A token must be a
    valid key; an admin key bound to no user takes ``user_id``/``agent_id`` as its scope."""
    user = None if user_id is None else clean_id(user_id, "user_id")
    agent = None if agent_id is None else clean_id(agent_id, "agent_id")
    if agent is not None and user is None:
        raise InvalidInput("--agent-id needs --user-id")
    if token is None:
        if user is None:
            return None
        return ApiKey(
            id="fixed-scope",
            prefix="",
            role=Role.WRITE,
            user_id=user,
            agent_id=agent,
            label="memfold mcp --user-id",
            created_at=utcnow(),
        )
    key = verify_key(memory.store, token)
    if key is None:
        raise InvalidInput("the API key is not valid for this store (unknown or revoked)")
    if user is None:
        if key.user_id is None:
            raise InvalidInput("this admin key names no user: give --user-id as well")
        return key
    if key.user_id is not None:
        raise InvalidInput("the key is bound to a scope already: drop --user-id/--agent-id")
    return replace(key, user_id=user, agent_id=agent)


def request_caller(memory: Memory) -> ApiKey:
    """The key of the HTTP request under way (the bearer middleware has checked it)."""
    token = get_access_token()
    key = None if token is None else verify_key(memory.store, token.token)
    if key is None:
        raise ToolError("a valid API key is required: Authorization: Bearer <key>")
    return key


def build_server(
    memory: Memory,
    caller: ApiKey | None,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
) -> MCPServer:
    """The MCP server over ``memory``: acting as ``caller``, or (None) as each HTTP
    request's bearer key, checked by the SDK's auth middleware."""
    from memfold import __version__

    auth: AuthSettings | None = None
    verifier: StoreKeyVerifier | None = None
    if caller is None:
        # Resource-server mode only: no OAuth routes, just the bearer check.
        auth = AuthSettings(issuer_url=f"http://{_url_host(host)}:{port}", resource_server_url=None)
        verifier = StoreKeyVerifier(memory)
    server: MCPServer = LeanMCPServer(
        "memfold",
        instructions=INSTRUCTIONS,
        version=__version__,
        log_level="WARNING",
        token_verifier=verifier,
        auth=auth,
    )
    current: Callable[[], ApiKey] = (
        (lambda: request_caller(memory)) if caller is None else (lambda: caller)
    )
    tools = MemoryTools(memory, current)
    for fn in tools.tools(None if caller is None else caller.role):
        # No output schema (each says only "an object"); the result comes back as
        # compact JSON text and as structured content (mcp_lean.compact_result).
        server.add_tool(
            compact_result(fn),
            description=DESCRIPTIONS[fn.__name__],
            annotations=tools.hints(fn.__name__),
            structured_output=False,
        )
    return server


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


async def serve(
    memory: Memory,
    caller: ApiKey | None,
    *,
    transport: Transport = "stdio",
    host: str = "127.0.0.1",
    port: int = 8766,
) -> None:
    """Serve until the client goes (stdio) or the process is stopped (HTTP)."""
    if transport == "stdio":
        if caller is None:
            raise InvalidInput("stdio needs a scope: --user-id U, or --key / MEMFOLD_API_KEY")
        await build_server(memory, caller).run_stdio_async()
        return
    if caller is not None and not is_loopback(host):
        raise InvalidInput(
            f"a fixed scope over HTTP has no per-request key check; bind to 127.0.0.1, not "
            f"{host!r}, or drop --user-id/--key so every request must carry a bearer key"
        )
    server = build_server(memory, caller, host=host, port=port)
    await server.run_streamable_http_async(
        host=host, port=port, max_request_body_size=memory.settings.server.max_body_bytes
    )
