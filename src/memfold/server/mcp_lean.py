"""What ``memfold mcp`` spends of an agent's context, kept small: tool schemas without
the titles and null branches pydantic adds, results as compact JSON.

An agent reads ``tools/list`` on every turn and every tool result stays in its context,
so both are measured (tests/server/test_mcp_lean.py: ``tools/list`` under 4,000
characters, four search hits under 1,000). The arguments are still validated by the
full models; only what is advertised is trimmed.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult, TextContent
from mcp_types import Tool as MCPTool

JSON = dict[str, Any]


class LeanMCPServer(MCPServer):
    """The SDK's server, its tool list trimmed (``lean_schema``)."""

    async def list_tools(self) -> list[MCPTool]:
        tools = await super().list_tools()
        return [
            tool.model_copy(
                update={
                    "input_schema": lean_schema(inline_refs(tool.input_schema)),
                    "description": _one_paragraph(tool.description),
                }
            )
            for tool in tools
        ]


def inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """``{"$ref": "#/$defs/X"}`` replaced by X itself, and ``$defs`` dropped (memfold's
    tool schemas are not recursive)."""
    defs = schema.get("$defs", {})

    def resolve(node: Any) -> Any:
        if isinstance(node, list):
            return [resolve(n) for n in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            return resolve(defs[ref.removeprefix("#/$defs/")])
        return {k: resolve(v) for k, v in node.items() if k != "$defs"}

    resolved: dict[str, Any] = resolve(schema)
    return resolved


def lean_schema(schema: Any) -> Any:
    """A JSON schema without ``title`` keys, with ``anyOf [X, null]`` as X and no
    ``"default": null`` (an argument left out is null already)."""
    if isinstance(schema, list):
        return [lean_schema(part) for part in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: lean_schema(v) for k, v in schema.items() if k != "title"}
    branches = out.get("anyOf")
    if isinstance(branches, list):
        kept = [b for b in branches if b != {"type": "null"}]
        if len(kept) == 1 and len(kept) < len(branches):
            del out["anyOf"]
            out = {**kept[0], **out}
    if "default" in out and out["default"] is None:
        del out["default"]
    if out.get("additionalProperties") is True:
        del out["additionalProperties"]  # JSON schema's default
    if "description" in out and "properties" in out and "type" in out:
        del out["description"]  # a nested model's docstring: the argument says it
    return out


def _one_paragraph(text: str | None) -> str | None:
    """A docstring's lines joined (no indentation carried into every tool listing)."""
    return None if text is None else " ".join(text.split())


def compact_result(fn: Callable[..., JSON]) -> Callable[..., CallToolResult]:
    """The tool's dict as compact JSON text (what the agent reads) and as structured
    content (what a program reads)."""

    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> CallToolResult:
        data = fn(*args, **kwargs)
        text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=str)
        return CallToolResult(
            content=[TextContent(type="text", text=text)], structured_content=data
        )

    return run
