"""``memfold links`` (a memory's neighbours) and ``memfold graph`` (a scope as JSON or
GraphML): tables at 80 columns, --json, files, and errors as one line, exit 2."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from cli.support import Cli, Result
from memfold import Memory
from memfold.embed.local import LocalEmbedder

# The rule judge links them as saved: the second supersedes the first, the third
# contradicts the second.
CHAIN = ("Ana likes green tea", "Ana likes green tea a lot", "Ana no longer likes green tea")
NS = "{http://graphml.graphdrawing.org/xmlns}"


@pytest.fixture
def chain(db_path: Path, embedder: LocalEmbedder, config_file: Path) -> list[str]:
    with Memory(db_path, embedder=embedder, consolidate="sync") as mem:
        ids = [mem.add(text, user_id="ana").memory.id for text in CHAIN]
        mem.add("Bo keeps his bike in the shed", user_id="bo")
    return ids


def _lines(result: Result) -> list[str]:
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    assert all(len(line) <= 80 for line in lines), lines
    return lines


def _error(result: Result) -> str:
    assert result.code == 2 and len(result.err_lines) == 1, (result.out, result.err)
    return result.err_lines[0]


def test_links_as_a_table(cli: Cli, chain: list[str], db_path: Path) -> None:
    old, mid, new = chain
    text = "\n".join(_lines(cli("links", mid, "-p", str(db_path))))
    assert f"links of {mid[:8]}" in text
    for needed in ("supersedes", "out", old[:8], "contradicts", "in", new[:8], "superseded"):
        assert needed in text
    assert "hop" not in text and "Ana likes green tea" in text
    walked = "\n".join(_lines(cli("links", new[:8], "-p", str(db_path), "--depth", "2")))
    assert "hop" in walked and "via" in walked and old[:8] in walked


def test_links_as_json_and_narrowed_by_kind(
    cli: Cli, chain: list[str], db_path: Path, embedder: LocalEmbedder
) -> None:
    old, mid, new = chain
    result = cli("links", new, "-p", str(db_path), "--depth", "2", "--json")
    assert result.code == 0, result.err
    body = json.loads(result.out)
    with Memory(db_path, embedder=embedder, read_only=True) as mem:
        assert body == mem.links(new, depth=2).to_dict()
    assert [lk["id"] for lk in body["links"]] == [mid, old]
    only = json.loads(cli("links", mid, "-p", str(db_path), "-k", "supersedes", "--json").out)
    assert [(lk["kind"], lk["id"]) for lk in only["links"]] == [("supersedes", old)]
    both = cli("links", mid, "-p", str(db_path), "-k", "supersedes", "-k", "contradicts", "--json")
    assert len(json.loads(both.out)["links"]) == 2
    none = cli("links", mid, "-p", str(db_path), "--kind", "related")
    assert none.code == 0 and none.out.strip() == f"memory {mid[:8]} has no links of kind related"


def test_links_errors_are_one_line(cli: Cli, chain: list[str], db_path: Path) -> None:
    p = str(db_path)
    unknown = _error(cli("links", "ffffffffffff", "-p", p))
    assert unknown == "error: no memory with id 'ffffffffffff'"
    kind = _error(cli("links", chain[1], "-p", p, "--kind", "nope"))
    assert kind.startswith("error: unknown link kind 'nope': kinds are derived_from, supersedes")
    depth = _error(cli("links", chain[1], "-p", p, "--depth", "9"))
    assert depth == "error: depth must be an integer between 1 and 5, got 9"
    typo = db_path.with_name("memfodl.db")
    missing = _error(cli("links", chain[1], "-p", str(typo)))
    assert missing.startswith(f"error: store {typo} does not exist")
    assert not typo.exists()


def test_graph_to_stdout_and_to_a_file(
    cli: Cli, chain: list[str], db_path: Path, tmp_path: Path
) -> None:
    old, mid, new = chain
    result = cli("graph", "-u", "ana", "-p", str(db_path))
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert [n["id"] for n in data["nodes"]] == [old, mid, new]  # not bo's
    assert [e["kind"] for e in data["edges"]] == ["supersedes", "contradicts"]

    out = tmp_path / "ana.graphml"
    wrote = cli("graph", "-u", "ana", "-p", str(db_path), "--format", "graphml", "-o", str(out))
    assert wrote.code == 0, wrote.err
    assert " ".join(wrote.out.split()) == (
        f"wrote user 'ana': 3 memories, 2 links (graphml) to {out}"
    )
    body = ET.parse(out).getroot().find(f"{NS}graph")
    assert body is not None and len(body.findall(f"{NS}node")) == 3


def test_graph_errors_write_nothing(
    cli: Cli, chain: list[str], db_path: Path, tmp_path: Path
) -> None:
    p = str(db_path)
    size = db_path.stat().st_size
    onto = _error(cli("graph", "-u", "ana", "-p", p, "-o", p))
    assert onto == f"error: export target {db_path} is the open store; refusing to overwrite it"
    assert db_path.stat().st_size == size
    out = tmp_path / "g.dot"
    bad = _error(cli("graph", "-u", "ana", "-p", p, "--format", "dot", "-o", str(out)))
    assert (
        bad.startswith("error: Invalid value for '--format'")
        and "'dot' is not one of 'json', 'graphml'" in bad
    )
    assert not out.exists()
    big = _error(cli("graph", "-u", "ana", "-p", p, "--max-nodes", "2"))
    assert "more than 2 memories" in big
