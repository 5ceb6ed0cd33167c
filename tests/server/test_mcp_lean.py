"""What ``memfold mcp`` costs an agent's context, measured through the MCP SDK's own
client: ``tools/list`` under 4,000 characters, four search hits under 1,000, and the
hit shape the same as REST's, the tool schemas' and the Python API's."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memfold import Memory
from memfold.embed.local import LocalEmbedder
from memfold.integrations.tools import MemoryTools, tool_schemas
from memfold.server.mcp_lean import inline_refs, lean_schema
from server.mcp_client import StdioServer, mcp_args, server_env, structured, text_of

TOOLS_LIST_MAX_CHARS = 4_000
FOUR_HITS_MAX_CHARS = 1_000
FACTS = (
    "Sam's favourite tea is jasmine green tea",
    "Sam lives in Porto, in a flat near the river Douro",
    "Sam works night shifts as a nurse at the children's hospital",
    "Sam's sister Ana visits every summer from Toronto",
    "Sam is allergic to peanuts and carries an adrenaline pen",
    "Sam plays the cello in an amateur orchestra on Sundays",
)


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory, embedder: LocalEmbedder) -> Path:
    folder = tmp_path_factory.mktemp("lean")
    (folder / "config.toml").write_text("")
    with Memory(folder / "memfold.db", embedder=embedder, consolidate="off") as mem:
        for text in FACTS:
            mem.add(text, user_id="u1", metadata={"source": "onboarding form, page 2"})
    return folder


@pytest.fixture(scope="module")
def server(store: Path) -> Iterator[StdioServer]:
    args = mcp_args("--path", str(store / "memfold.db"), "--user-id", "u1")
    with StdioServer(args, server_env(store / "config.toml"), store / "stderr.txt") as running:
        yield running


def test_tools_list_fits_in_4000_characters(server: StdioServer) -> None:
    listed = server.list_tools()
    wire = listed.model_dump_json(by_alias=True, exclude_none=True)
    spaced = json.dumps(listed.model_dump(by_alias=True, exclude_none=True, mode="json"))
    assert len(listed.tools) == 10
    assert len(wire) < TOOLS_LIST_MAX_CHARS, len(wire)
    assert len(spaced) < TOOLS_LIST_MAX_CHARS, len(spaced)


def test_four_hits_fit_in_1000_characters_of_compact_json(server: StdioServer) -> None:
    result = server.call("search_memories", query="what should Sam's friends know", limit=4)
    text = text_of(result)
    assert len(structured(result)["results"]) == 4
    assert len(text) < FOUR_HITS_MAX_CHARS, len(text)
    assert json.loads(text) == structured(result)  # the text is the same data, compact
    assert "\n" not in text


def test_a_hit_has_one_shape_everywhere(
    server: StdioServer, store: Path, embedder: LocalEmbedder
) -> None:
    query = "where does Sam live"
    mcp_hit = structured(server.call("search_memories", query=query, limit=1))["results"][0]
    with Memory(store / "memfold.db", embedder=embedder, read_only=True) as mem:
        python_hit = mem.search(query, user_id="u1", k=1)[0].to_dict()
        tool_hit = MemoryTools(mem, user_id="u1").dispatch(
            "search_memories", {"query": query, "limit": 1}
        )["results"][0]
    assert mcp_hit == python_hit == tool_hit
    assert list(mcp_hit) == ["id", "text", "score", "created_at"]


def test_the_tool_schemas_are_the_mcp_tools_of_the_same_names(server: StdioServer) -> None:
    mcp_tools = {t.name: t for t in server.list_tools().tools}
    for entry in tool_schemas():
        function = entry["function"]
        mcp = mcp_tools[function["name"]]
        assert function["description"] == mcp.description
        assert set(function["parameters"]["properties"]) == set(mcp.input_schema["properties"])


def test_lean_schema_drops_titles_and_null_branches_only() -> None:
    given: dict[str, Any] = {
        "title": "x",
        "type": "object",
        "properties": {
            "n": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": None},
            "m": {"anyOf": [{"type": "integer"}, {"type": "string"}], "title": "M"},
            "o": {"$ref": "#/$defs/O"},
        },
        "$defs": {"O": {"type": "object", "properties": {"k": {"type": "string"}}}},
    }
    assert lean_schema(inline_refs(given)) == {
        "type": "object",
        "properties": {
            "n": {"type": "integer"},
            "m": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
            "o": {"type": "object", "properties": {"k": {"type": "string"}}},
        },
    }
