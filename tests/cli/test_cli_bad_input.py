"""Every bad input: one `error:` line on stderr, exit code 2, no traceback, nothing changed."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from cli.support import Cli

HUGE = "word " * 8000  # 40,000 characters: over store.max_text_chars
DEEP_40 = '{"a": ' * 40 + "1" + "}" * 40  # past store.max_metadata_depth (32)
DEEP_5000 = '{"a": ' * 5000 + "1" + "}" * 5000  # past what json.loads can read
NOT_UTF8 = "\udcff"  # the byte 0xff of a command line, as Python decodes it
MISSING_ID = "0123456789abcdef0123456789abcdef"

# {p}: the store, {sam}: a memory id, {tmp}: a scratch folder, {bad}/{wrongtype}: import
# files with a broken line / a field of the wrong type, {missing}: a store that is not there.
CASES: dict[str, tuple[str, ...]] = {
    "unknown id": ("get", MISSING_ID),
    "unknown id, history": ("history", MISSING_ID),
    "unknown id, update": ("update", MISSING_ID, "new text"),
    "unknown id, delete": ("delete", MISSING_ID),
    "unknown id, feedback": ("feedback", MISSING_ID, "used"),
    "unknown id, forget": ("forget", MISSING_ID, "--yes"),
    "too short a prefix": ("get", "{sam3}"),
    "unknown prefix": ("get", "zzzzzzzz"),
    "empty text": ("add", ""),
    "blank text": ("add", "   "),
    "huge text": ("add", HUGE),
    "NUL in text": ("add", "a\x00b"),
    "empty update text": ("update", "{sam}", "  "),
    "nothing to update": ("update", "{sam}"),
    "bad JSON metadata": ("add", "x", "--metadata", "{bad"),
    "metadata not an object": ("add", "x", "--metadata", "[1, 2]"),
    "bad JSON metadata, update": ("update", "{sam}", "--metadata", '{"a": }'),
    "bad filter JSON": ("list", "--filter", "{topic: work}"),
    "filter not an object": ("search", "tea", "--filter", '"work"'),
    "unknown filter operator": ("search", "tea", "--filter", '{"n": {"$near": 2}}'),
    "threshold out of range": ("search", "tea", "--threshold", "1.5"),
    "threshold not a number": ("search", "tea", "--threshold", "high"),
    "negative search offset": ("search", "tea", "--offset", "-3"),
    "delete --all without a scope": ("delete", "--all"),
    "delete without an id": ("delete",),
    "bad scope": ("list", "-u", "a|b"),
    "empty scope": ("add", "x", "-u", ""),
    "missing store": ("list", "-p", "{missing}"),
    "missing store, search": ("search", "tea", "-p", "{missing}"),
    "store is a folder": ("stats", "-p", "{tmp}"),
    "k = 0": ("search", "tea", "-k", "0"),
    "k not a number": ("search", "tea", "-k", "abc"),
    "limit 0": ("list", "--limit", "0"),
    "negative offset": ("list", "--offset", "-1"),
    "log limit 0": ("log", "--limit", "0"),
    "importance 3": ("add", "x", "--importance", "3"),
    "importance not a number": ("update", "{sam}", "--importance", "high"),
    "unknown area": ("add", "x", "--area", "attic"),
    "unknown category": ("add", "x", "--category", "gossip"),
    "unknown status": ("list", "--status", "lost"),
    "unknown search mode": ("search", "tea", "--mode", "fuzzy"),
    "unknown consolidate mode": ("add", "x", "--consolidate", "later"),
    "unknown feedback kind": ("feedback", "{sam}", "loved"),
    "undo not a number": ("undo", "abc"),
    "undo unknown row": ("undo", "999"),
    "report since": ("report", "--since", "soon"),
    "report format": ("report", "--format", "pdf"),
    "report into a missing folder": ("report", "-o", "{tmp}/no/such/report.md"),
    "review item unknown": ("review", "approve", "999"),
    "review item not a number": ("review", "reject", "first"),
    "forget with nothing": ("forget",),
    "forget without --yes": ("forget", "{sam}"),
    "forget an empty scope": ("forget", "--user", "nobody", "--yes"),
    "malformed import file": ("import", "{bad}"),
    "import field of wrong type": ("import", "{wrongtype}"),
    "import file missing": ("import", "{tmp}/none.jsonl"),
    "import a folder": ("import", "{tmp}"),
    "export onto the store": ("export", "{p}"),
    "export into a missing folder": ("export", "{tmp}/no/such/out.jsonl"),
    "unknown command": ("nosuchcommand",),
    "unknown option": ("stats", "--bogus"),
    "missing argument": ("add",),
    "fake-llm script missing": ("fake-llm", "--script", "{tmp}/none.json"),
    # issue 27: before, an "internal error" (exit 1) or stored
    "metadata 40 levels deep": ("add", "x", "--metadata", DEEP_40),
    "metadata 5000 levels deep": ("add", "x", "--metadata", DEEP_5000),
    "metadata deep, update": ("update", "{sam}", "--metadata", DEEP_40),
    "metadata over 64 KB": ("add", "x", "--metadata", '{"k": "' + "x" * 70_000 + '"}'),
    "metadata key a lone surrogate": ("add", "x", "--metadata", '{"\\ud800": 1}'),
    "metadata with NUL": ("add", "x", "--metadata", '{"k": "a\\u0000b"}'),
    "filter 5000 levels deep": ("list", "--filter", "[" * 5000 + "]" * 5000),
    "filter value past int64": ("search", "tea", "--filter", f'{{"n": {2**63}}}'),
    "scope id not UTF-8": ("add", "x", "-u", NOT_UTF8),
    "source not UTF-8": ("add", "x", "-s", NOT_UTF8),
    "reason not UTF-8": ("update", "{sam}", "new text", "--reason", NOT_UTF8),
    "memory id not UTF-8": ("get", NOT_UTF8 * 8),
    "list offset past int64": ("list", "--offset", str(2**63)),
    "list limit past int64": ("list", "--limit", str(2**70)),
    "log limit past int64": ("log", "--limit", str(2**70)),
    "undo past int64": ("undo", str(2**63)),
    "review item past int64": ("review", "approve", str(2**63)),
    "report since 10**11 days back": ("report", "--since", "99999999999d"),
}
NO_PATH = {
    "missing store",
    "missing store, search",
    "store is a folder",
    "unknown command",
    "fake-llm script missing",
}


def fingerprint(db: str) -> tuple[object, ...]:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        rows = con.execute("SELECT id, text, status, version FROM memories ORDER BY id").fetchall()
        logs = con.execute("SELECT count(*) FROM consolidation_log").fetchone()
        jobs = con.execute("SELECT count(*) FROM jobs").fetchone()
        return (rows, logs, jobs)
    finally:
        con.close()


@pytest.mark.parametrize("name", list(CASES))
def test_bad_input_is_one_error_line_and_exit_2(
    cli: Cli, store: dict[str, str], tmp_path: Path, name: str
) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "text": "ok", "user_id": "u"}\n{broken\n')
    wrongtype = tmp_path / "wrongtype.jsonl"
    wrongtype.write_text('{"id": "b", "text": 42, "user_id": "u"}\n')
    values = {
        "p": store["path"],
        "sam": store["sam"],
        "sam3": store["sam"][:3],
        "tmp": str(tmp_path),
        "bad": str(bad),
        "wrongtype": str(wrongtype),
        "missing": str(tmp_path / "typo.db"),
    }
    args = list(CASES[name])
    for key, value in values.items():
        args = [a.replace("{" + key + "}", value) for a in args]
    if name not in NO_PATH:
        args += ["-p", store["path"]]
    before = fingerprint(store["path"])
    files = sorted(p.name for p in tmp_path.iterdir())
    result = cli(*args)
    assert result.code == 2, (result.out, result.err)
    lines = result.err.splitlines()  # blank lines count too
    assert len(lines) == 1 and lines[0].startswith("error: "), result.err
    assert "Traceback" not in result.out + result.err
    assert result.out == ""
    assert fingerprint(store["path"]) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == files  # no store, no export
