"""search/list --filter, search --threshold/--offset, scopes, delete --all and id prefixes
from the command line, against a real store."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cli.support import Cli, Result
from memfold import Memory
from memfold.embed.local import LocalEmbedder


def ok_json(result: Result) -> Any:
    assert result.code == 0, result.err
    return json.loads(result.out)


def one_error(result: Result) -> str:
    assert result.code == 2 and len(result.err_lines) == 1, (result.out, result.err)
    assert result.err_lines[0].startswith("error: ") and "Traceback" not in result.err
    return result.err_lines[0]


@pytest.fixture
def tagged(db_path: Path, embedder: LocalEmbedder, config_file: Path) -> dict[str, str]:
    with Memory(db_path, embedder=embedder, consolidate="off") as mem:
        add = mem.add
        ids = {
            "standup": add(
                "Daily standup is at 9:30", user_id="sam", metadata={"topic": "work", "prio": 3}
            ).memory.id,
            "review": add(
                "Code review every Tuesday", user_id="sam", metadata={"topic": "work", "prio": 1}
            ).memory.id,
            "tea": add("Sam drinks green tea", user_id="sam", metadata={"topic": "food"}).memory.id,
            "bot": add("Sam asked the bot for jokes", user_id="sam", agent_id="bot").memory.id,
            "ana": add("Ana keeps a bike in the garage", user_id="ana", session_id="s1").memory.id,
        }
    return {**ids, "path": str(db_path)}


def test_list_and_search_filters(cli: Cli, tagged: dict[str, str]) -> None:
    p = tagged["path"]
    listed = ok_json(cli("list", "-p", p, "-u", "sam", "--filter", '{"topic": "work"}', "--json"))
    assert [m["id"] for m in listed] == [tagged["standup"], tagged["review"]]
    hot = '{"topic": "work", "prio": {"$gt": 2}}'
    hits = ok_json(cli("search", "meetings at work", "-p", p, "-u", "sam", "-f", hot, "--json"))
    assert [h["id"] for h in hits] == [tagged["standup"]]
    empty = cli("list", "-p", p, "-u", "sam", "--filter", '{"topic": "travel"}')
    assert empty.code == 0
    assert empty.out.strip() == 'no active memories for user \'sam\' matching {"topic": "travel"}'


def test_search_threshold_and_offset(cli: Cli, tagged: dict[str, str]) -> None:
    p = tagged["path"]
    asked = ("--fields", "vector_score,metadata", "--json")
    ranked = ok_json(cli("search", "green tea", "-p", p, "-u", "sam", *asked))
    assert ranked[0]["id"] == tagged["tea"] and len(ranked) == 3
    assert list(ranked[0]) == ["id", "text", "score", "created_at", "vector_score", "metadata"]
    page2 = ok_json(
        cli("search", "green tea", "-p", p, "-u", "sam", "-k", "1", "--offset", "1", "--json")
    )
    assert [h["id"] for h in page2] == [ranked[1]["id"]]
    bar = (ranked[0]["vector_score"] + ranked[1]["vector_score"]) / 2
    strict = ok_json(
        cli("search", "green tea", "-p", p, "-u", "sam", "--threshold", str(bar), "--json")
    )
    assert [h["id"] for h in strict] == [tagged["tea"]]
    none = cli("search", "green tea", "-p", p, "-u", "sam", "--threshold", "0.999")
    assert none.code == 0 and "(cosine >= 0.999)" in none.out


def test_scopes(cli: Cli, tagged: dict[str, str], tmp_path: Path) -> None:
    p = tagged["path"]
    rows = ok_json(cli("scopes", "-p", p, "--json"))
    got = {(r["user_id"], r["agent_id"], r["session_id"], r["active"]) for r in rows}
    assert got == {("ana", None, "s1", 1), ("sam", "bot", None, 1), ("sam", None, None, 3)}
    assert len(rows) == 3
    table = cli("scopes", "-p", p)
    assert table.code == 0 and all(len(line) <= 80 for line in table.out.splitlines())
    assert "bot" in table.out and "s1" in table.out
    only = ok_json(cli("scopes", "-p", p, "-u", "ana", "--json"))
    assert len(only) == 1 and only[0]["session_id"] == "s1"
    nobody = cli("scopes", "-p", p, "-u", "nobody")
    assert nobody.out.strip() == "no scope of user 'nobody' holds memories"


def test_delete_all_of_a_scope_is_undoable(cli: Cli, tagged: dict[str, str]) -> None:
    p = tagged["path"]
    done = ok_json(cli("delete", "--all", "-u", "sam", "-p", p, "--json"))
    assert sorted(done["deleted"]) == sorted(tagged[k] for k in ("standup", "review", "tea", "bot"))
    assert ok_json(cli("list", "-p", p, "-u", "sam", "--json")) == []
    assert len(ok_json(cli("list", "-p", p, "-u", "ana", "--session", "s1", "--json"))) == 1
    again = cli("delete", "--all", "-u", "sam", "-p", p)
    assert again.code == 0 and "nothing archived" in again.out
    for log_id in done["log_ids"]:
        assert cli("undo", str(log_id), "-p", p).code == 0
    assert len(ok_json(cli("list", "-p", p, "-u", "sam", "--json"))) == 3
    text = cli("delete", "--all", "-u", "sam", "--agent", "bot", "-p", p).out
    assert "archived 1 memory of user 'sam', agent 'bot'" in text and "memfold undo" in text


def test_ids_as_list_shows_them(cli: Cli, tagged: dict[str, str], tmp_path: Path) -> None:
    p = tagged["path"]
    short = tagged["tea"][:8]
    assert short in cli("list", "-p", p, "-u", "sam").out
    assert ok_json(cli("get", short, "-p", p, "--json"))["id"] == tagged["tea"]
    assert cli("history", short, "-p", p).code == 0
    assert (
        ok_json(cli("update", short, "--importance", "0.9", "-p", p, "--json"))["memory"]["id"]
        == tagged["tea"]
    )
    twins = tmp_path / "twins.jsonl"
    rows = [{"id": f"abcdef{n}", "text": f"twin {n}", "user_id": "t"} for n in (1, 2)]
    twins.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert cli("import", str(twins), "-p", p).code == 0
    error = one_error(cli("get", "abcdef", "-p", p))
    assert "ambiguous" in error and "abcdef1" in error and "abcdef2" in error
    assert "too short" in one_error(cli("get", tagged["tea"][:3], "-p", p))


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("list", "--filter", "{topic: work}"), "--filter is not valid JSON"),
        (("list", "--filter", '["work"]'), "--filter must be a JSON object"),
        (("search", "x", "--filter", '{"prio": {"$near": 2}}'), "$near"),
        (("search", "x", "--threshold", "2"), "threshold"),
        (("search", "x", "--threshold", "0.5", "--mode", "keyword"), "keyword"),
        (("search", "x", "--offset", "-1"), "offset"),
        (("delete", "--all"), "--all needs --user, --agent or --session"),
        (("delete", "{tea}", "--all", "-u", "sam"), "not both"),
        (("delete", "{tea}", "-u", "sam"), "go with --all"),
        (("delete",), "give a memory id"),
        (("scopes", "-u", "a|b"), "user_id"),
    ],
)
def test_bad_filters_thresholds_and_scopes(
    cli: Cli, tagged: dict[str, str], args: tuple[str, ...], says: str
) -> None:
    before = ok_json(cli("list", "-p", tagged["path"], "-u", "sam", "--json"))
    filled = [a.replace("{tea}", tagged["tea"]) for a in args]
    assert says in one_error(cli(*filled, "-p", tagged["path"]))
    assert ok_json(cli("list", "-p", tagged["path"], "-u", "sam", "--json")) == before
