"""Section 5: bad input through the API, the REST service and the CLI.

Every case runs on its own copy of a small seeded store. A case is *accepted* when no
error is raised (the CLI exits 0, the service answers 2xx), or when the store (or, for
path cases, the file or folder named) changed: fingerprints before and after are
compared (every table dumped as SQL, or the file's bytes). The API must raise a
``MemfoldError``; the service must answer 4xx in its error shape (``{"error": {"code",
"message"}}``), never 5xx, and the seeded user's list and search must still answer 200
afterwards; the CLI must exit with code 2 and print exactly one line, starting with
``error:``, and no traceback.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from reliability.common import PYTHON, child_env, copy_db, fingerprint

CLI_TIMEOUT_S = 120.0


@dataclass(slots=True)
class Case:
    surface: str
    name: str
    accepted: bool
    changed: bool
    detail: str
    wrong_error: bool = False  # API: raised, but not a MemfoldError
    exit_code: int | None = None
    traceback: bool = False
    one_error_line: bool = True
    http_status: int | None = None  # REST: the answer's status (0: no answer)
    scope_broken: bool = False  # REST: the seeded user's list or search failed afterwards


ApiCall = Callable[[Any, "Ctx"], object]


@dataclass(slots=True)
class Ctx:
    folder: Path
    known_id: str
    max_chars: int


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


SURROGATE = "\ud800"  # a lone surrogate: no UTF-8 encoding, no database column holds it
BIG = 2**63  # one past the largest integer SQLite and PostgreSQL's bigint hold


def deep(levels: int) -> dict[str, Any]:
    value: dict[str, Any] = {"leaf": 1}
    for _ in range(levels):
        value = {"a": value}
    return value


def _api_cases() -> dict[str, ApiCall]:
    nan = math.nan
    chat = "s1"
    return {
        "empty text": lambda m, c: m.add(""),
        "whitespace text": lambda m, c: m.add(" \n\t "),
        "huge text": lambda m, c: m.add("x" * (c.max_chars + 1)),
        "NUL in text": lambda m, c: m.add("Alice likes\x00 tea"),
        "lone surrogate": lambda m, c: m.add("Alice likes \ud800 tea"),
        "int text": lambda m, c: m.add(123),
        "list user_id": lambda m, c: m.add("Alice likes tea", user_id=["alice"]),
        "importance -1": lambda m, c: m.add("Alice likes tea", importance=-1),
        "importance 2": lambda m, c: m.add("Alice likes tea", importance=2),
        "importance NaN": lambda m, c: m.add("Alice likes tea", importance=nan),
        "unknown area (add)": lambda m, c: m.add("Alice likes tea", area="attic"),
        "unknown area (search)": lambda m, c: m.search("tea", area="attic"),
        "k=0": lambda m, c: m.search("tea", k=0),
        "k='5' (str)": lambda m, c: m.search("tea", k="5"),
        "empty query": lambda m, c: m.search("  "),
        "unknown id (get)": lambda m, c: m.get("no-such-id"),
        "unknown id (update)": lambda m, c: m.update("no-such-id", text="Alice likes tea"),
        "unknown id (delete)": lambda m, c: m.delete("no-such-id"),
        "unknown id (history)": lambda m, c: m.history("no-such-id"),
        "unknown log id (undo)": lambda m, c: m.undo(10**9),
        "str log id (undo)": lambda m, c: m.undo("1"),
        "unknown feedback kind": lambda m, c: m.feedback(c.known_id, "loved"),
        "unknown status (list)": lambda m, c: m.list(status="bogus"),
        "NaN embedding": lambda m, c: m.add("Alice likes tea", embedding=[nan] * 384),
        "wrong-size embedding": lambda m, c: m.add("Alice likes tea", embedding=[0.1] * 3),
        "sources not a list": lambda m, c: m.add("Alice likes tea", sources=5),
        "metadata not JSON": lambda m, c: m.add("Alice likes tea", metadata={"x": object()}),
        "bad created_at": lambda m, c: m.add("Alice likes tea", created_at="yesterday-ish"),
        "add_many: one bad item": lambda m, c: m.add_many([{"text": "Bo likes jam"}, {"text": ""}]),
        "malformed JSONL import": lambda m, c: m.import_(
            _write(c.folder / "bad.jsonl", b'{"text": "ok", "user_id": "a"}\n{not json\n')
        ),
        "invalid UTF-8 import": lambda m, c: m.import_(
            _write(c.folder / "bad-utf8.jsonl", b'{"text": "caf\xff", "user_id": "a"}\n')
        ),
        "export onto the open store": lambda m, c: m.export(m.path),
        # issue 27: each raised OverflowError, UnicodeEncodeError, RecursionError,
        # AttributeError or TypeError, or was stored
        "ttl=1e12 (past the year 9999)": lambda m, c: m.add("Alice likes tea", ttl=1e12),
        "ttl=2**70": lambda m, c: m.add("Alice likes tea", ttl=2**70),
        "metadata 5000 levels deep": lambda m, c: m.add("Alice likes tea", metadata=deep(5000)),
        "metadata 260 levels deep": lambda m, c: m.add("Alice likes tea", metadata=deep(260)),
        "metadata 40 levels deep (update)": lambda m, c: m.update(c.known_id, metadata=deep(40)),
        "metadata 70 KB": lambda m, c: m.add("Alice likes tea", metadata={"k": "x" * 70_000}),
        "metadata key lone surrogate": lambda m, c: m.add("Alice", metadata={SURROGATE: 1}),
        "metadata NUL": lambda m, c: m.add("Alice likes tea", metadata={"k": "a\x00b"}),
        "message metadata 40 deep": lambda m, c: m.add(
            messages=[{"role": "user", "content": "hi", "metadata": deep(40)}], infer=False
        ),
        "user_id lone surrogate": lambda m, c: m.add("Alice likes tea", user_id=SURROGATE),
        "source lone surrogate": lambda m, c: m.add("Alice likes tea", sources=[SURROGATE]),
        "memory id lone surrogate (get)": lambda m, c: m.get(SURROGATE * 8),
        "reason lone surrogate (update)": lambda m, c: m.update(
            c.known_id, text="Alice likes coffee", reason=SURROGATE
        ),
        "feedback context lone surrogate": lambda m, c: m.feedback(c.known_id, "used", SURROGATE),
        "list offset=2**70": lambda m, c: m.list(user_id="alice", offset=2**70),
        "list limit=-5": lambda m, c: m.list(user_id="alice", limit=-5),
        "list area=5": lambda m, c: m.list(user_id="alice", area=5),
        "undo log id 2**63": lambda m, c: m.undo(BIG),
        "review approve 2**63": lambda m, c: m.review.approve(BIG),
        "transcript start 2**63": lambda m, c: m.conversation(chat, user_id="alice").transcript(
            BIG
        ),
        "filter value 2**63": lambda m, c: m.search("tea", user_id="alice", filters={"n": BIG}),
        "filter key lone surrogate": lambda m, c: m.list(filters={SURROGATE: 1}),
        "usage since a string": lambda m, c: m.usage("yesterday"),
        "report since 10**11 days back": lambda m, c: m.review.report("99999999999d"),
        "flush timeout NaN": lambda m, c: m.flush(nan),
        "export path bytes": lambda m, c: m.export(b"out.jsonl"),
    }


def _open_cases() -> dict[str, Callable[[Ctx, Any], tuple[Path, Callable[[], object]]]]:
    """Cases where opening the store (or building settings) is the bad input: the path
    whose fingerprint must not change, and the call."""
    from memfold import Memory, Settings

    def opened(path: Path, emb: Any) -> Callable[[], object]:
        return lambda: Memory(path, embedder=emb, consolidate="off").close()

    def toml(c: Ctx, emb: Any) -> tuple[Path, Callable[[], object]]:
        cfg = _write(c.folder / "bad.toml", b"[consolidation]\nbogus_threshold = 0.5\n")
        os.environ["MEMFOLD_CONFIG"] = str(cfg)
        return cfg, lambda: Settings()

    return {
        "path is a directory": lambda c, e: (c.folder, opened(c.folder, e)),
        "path is not SQLite": lambda c, e: (
            (p := _write(c.folder / "notes.txt", b"my notes, not a database\n" * 40)),
            opened(p, e),
        ),
        "missing parent folder": lambda c, e: (
            c.folder / "no" / "such",
            opened(c.folder / "no" / "such" / "m.db", e),
        ),
        "path with a lone surrogate": lambda c, e: (
            c.folder / "none",
            opened(c.folder / f"{SURROGATE}.db", e),
        ),
        "unknown mode": lambda c, e: (
            c.folder / "mode.db",
            lambda: Memory(c.folder / "mode.db", embedder=e, consolidate="weird").close(),
        ),
        "unknown config key (argument)": lambda c, e: (
            c.folder / "none",
            lambda: Settings(consolidation={"bogus_threshold": 0.5}),
        ),
        "unknown config section (argument)": lambda c, e: (
            c.folder / "none",
            lambda: Settings(consolidaton={"destructive_threshold": 0.5}),
        ),
        "unknown config key (file)": toml,
    }


def _cli_cases(c: Ctx, db: Path) -> dict[str, tuple[list[Any], dict[str, str]]]:
    p = ["--path", str(db)]
    cfg = _write(c.folder / "bad-cli.toml", b"[consolidation]\nbogus_threshold = 0.5\n")
    bad = _write(c.folder / "bad-cli.jsonl", b'{"text": "ok", "user_id": "a"}\n{not json\n')
    text = _write(c.folder / "notes-cli.txt", b"my notes, not a database\n" * 40)
    return {
        "empty text": (["add", "", *p], {}),
        "whitespace text": (["add", "   ", *p], {}),
        "huge text": (["add", "x" * (c.max_chars + 1), *p], {}),
        "invalid UTF-8 argument": ([b"add", b"caf\xff fact", *p], {}),
        "importance -1": (["add", "Alice likes tea", "--importance", "-1", *p], {}),
        "importance 2": (["add", "Alice likes tea", "--importance", "2", *p], {}),
        "importance nan": (["add", "Alice likes tea", "--importance", "nan", *p], {}),
        "unknown area": (["add", "Alice likes tea", "--area", "attic", *p], {}),
        "unknown id (get)": (["get", "no-such-id", *p], {}),
        "unknown log id (undo)": (["undo", "999999", *p], {}),
        "non-integer log id (undo)": (["undo", "abc", *p], {}),
        "k=0": (["search", "tea", "-k", "0", *p], {}),
        "k=abc": (["search", "tea", "-k", "abc", *p], {}),
        "unknown status": (["list", "--status", "bogus", *p], {}),
        "malformed JSONL import": (["import", str(bad), *p], {}),
        "missing import file": (["import", str(c.folder / "nope.jsonl"), *p], {}),
        "export onto the open store": (["export", str(db), *p], {}),
        "--path to a directory": (["stats", "--path", str(c.folder)], {}),
        "--path to a non-SQLite file": (["stats", "--path", str(text)], {}),
        "--path with a missing parent": (["add", "Alice likes tea", "--path",
                                          str(c.folder / "no" / "such" / "m.db")], {}),
        "unknown config key (file)": (["stats", *p], {"MEMFOLD_CONFIG": str(cfg)}),
        "unknown config key (env)": (["stats", *p], {"MEMFOLD_CONSOLIDATION__BOGUS": "1"}),
        "metadata 5000 levels deep": (["add", "x", "--metadata", _deep_json(5000), *p], {}),
        "metadata 40 levels deep": (["add", "x", "--metadata", _deep_json(40), *p], {}),
        "filter 5000 levels deep": (["list", "--filter", "[" * 5000 + "]" * 5000, *p], {}),
        "scope id not UTF-8": ([b"add", b"Alice likes tea", b"-u", b"\xff", *p], {}),
        "list offset past int64": (["list", "--offset", str(BIG), *p], {}),
        "undo log id past int64": (["undo", str(BIG), *p], {}),
        "review item past int64": (["review", "approve", str(BIG), *p], {}),
        "report since 10**11 days back": (["report", "--since", "99999999999d", *p], {}),
    }  # fmt: skip


def _deep_json(levels: int) -> str:
    return '{"a": ' * levels + "1" + "}" * levels


CLI_PATH_CASES = {
    "--path to a directory": lambda c: c.folder,
    "--path to a non-SQLite file": lambda c: c.folder / "notes-cli.txt",
    "--path with a missing parent": lambda c: c.folder / "no" / "such",
}


def _seed(folder: Path, embedder: Any) -> tuple[Path, str]:
    from memfold import Memory

    seed = folder / "seed.db"
    with Memory(seed, embedder=embedder, consolidate="sync") as mem:
        first = mem.add("Alice lives in Lyon with 3 cats.", user_id="alice")
        for text in ("Alice lives in Lyon with 3 cats", "Alice works at Acme since 2019."):
            mem.add(text, user_id="alice")
    return seed, first.memory.id


def run_bad_input(folder: Path, embedder: Any, *, cli: bool, small: bool) -> list[Case]:
    """Every API case and REST case (a few if ``small``); the CLI cases (each a process)
    only when ``cli``, a few if ``small``."""
    from memfold import Memory, Settings
    from memfold.errors import MemfoldError

    folder.mkdir(parents=True, exist_ok=True)
    seed, known = _seed(folder, embedder)
    ctx = Ctx(folder, known, Settings().store.max_text_chars)
    cases: list[Case] = []
    api = _api_cases()
    for name, call in api.items():
        db = folder / "case.db"
        _fresh(seed, db)
        before = fingerprint(db)
        error: BaseException | None = None
        with Memory(db, embedder=embedder, consolidate="sync") as mem:
            try:
                call(mem, ctx)
            except Exception as exc:
                error = exc
        cases.append(_api_case(name, error, before != fingerprint(db), MemfoldError))
    saved = dict(os.environ)
    for name, make in _open_cases().items():
        try:
            target, open_call = make(ctx, embedder)
            before = fingerprint(target)
            error = None
            try:
                open_call()
            except Exception as exc:
                error = exc
            cases.append(_api_case(name, error, before != fingerprint(target), MemfoldError))
        finally:
            os.environ.clear()
            os.environ.update(saved)
    cases += _run_rest(ctx, seed, embedder, small)
    if cli:
        cases += _run_cli(ctx, seed, small)
    return cases


def _fresh(seed: Path, db: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(str(db) + suffix).unlink(missing_ok=True)
    copy_db(seed, db)


def _api_case(name: str, error: BaseException | None, changed: bool, base: type) -> Case:
    detail = "no error" if error is None else f"{type(error).__name__}: {str(error)[:120]}"
    return Case(
        "api",
        name,
        accepted=error is None or changed,
        changed=changed,
        detail=detail,
        wrong_error=error is not None and not isinstance(error, base),
    )


def _run_cli(ctx: Ctx, seed: Path, small: bool) -> list[Case]:
    db = ctx.folder / "cli.db"
    cases = _cli_cases(ctx, db)
    if small:
        keep = ("empty text", "k=abc", "--path to a directory", "unknown config key (env)")
        cases = {k: v for k, v in cases.items() if k in keep}
    out = []
    for name, (args, extra_env) in cases.items():
        _fresh(seed, db)
        target = CLI_PATH_CASES[name](ctx) if name in CLI_PATH_CASES else db
        before = fingerprint(target)
        env = {**child_env(ctx.folder), **extra_env, "COLUMNS": "100"}
        proc = subprocess.run(
            [PYTHON, "-m", "memfold.cli", *args],
            env=env,
            cwd=ctx.folder,
            capture_output=True,
            timeout=CLI_TIMEOUT_S,
        )
        stdout = proc.stdout.decode("utf-8", "replace")
        stderr = proc.stderr.decode("utf-8", "replace")
        lines = [ln for ln in stderr.splitlines() if ln.strip()]
        changed = before != fingerprint(target)
        first = lines[0][:140] if lines else stdout.strip()[:140]
        out.append(
            Case(
                "cli",
                name,
                accepted=proc.returncode == 0 or changed,
                changed=changed,
                detail=f"exit {proc.returncode}: {first}",
                exit_code=proc.returncode,
                traceback="Traceback (most recent call last)" in stdout + stderr,
                one_error_line=proc.returncode == 2
                and len(lines) == 1
                and lines[0].startswith("error:"),
            )
        )
    return out


def summarize(cases: list[Case]) -> dict[str, Any]:
    api = [c for c in cases if c.surface == "api"]
    rest = [c for c in cases if c.surface == "rest"]
    cli = [c for c in cases if c.surface == "cli"]
    return {
        "api_cases": len(api),
        "api_accepted": sum(c.accepted for c in api),
        "api_wrong_error": sum(c.wrong_error for c in api),
        "rest_cases": len(rest),
        "rest_accepted": sum(c.accepted for c in rest),
        "rest_5xx": sum(c.http_status is not None and not 0 < c.http_status < 500 for c in rest),
        "rest_scope_broken": sum(c.scope_broken for c in rest),
        "cli_cases": len(cli),
        "cli_accepted": sum(c.accepted for c in cli),
        "cli_tracebacks": sum(c.traceback for c in cli),
        "cli_not_one_error_line": sum(not c.one_error_line for c in cli),
        "store_changed": sum(c.changed for c in cases),
        "cases": [asdict(c) for c in cases],
    }


# REST: (method, path, JSON body or raw JSON text). ``{mid}`` is the seeded memory's id.
# Raw text carries what a JSON client could not send from Python: a lone surrogate as the
# escape \\ud800 (valid JSON, no valid UTF-8).
RestCall = tuple[str, str, dict[str, Any] | str | None]
S = "\\ud800"


def _rest_cases() -> dict[str, RestCall]:
    return {
        "empty text": ("POST", "/v1/memories", {"text": " ", "user_id": "alice"}),
        "unknown area": ("POST", "/v1/memories", {"text": "x", "area": "attic"}),
        "list offset past int64": ("GET", f"/v1/memories?user_id=alice&offset={BIG}", None),
        "log id past int64": ("GET", f"/v1/log/{BIG}", None),
        "undo log id past int64": ("POST", f"/v1/log/{BIG}/undo", None),
        "review item past int64": ("POST", f"/v1/review/items/{BIG}/approve", None),
        "transcript start past int64": (
            "GET",
            f"/v1/conversations/s1/messages?user_id=alice&start={BIG}",
            None,
        ),
        "ttl=1e12": ("POST", "/v1/memories", {"text": "x", "user_id": "alice", "ttl": 1e12}),
        "metadata 260 levels deep (1.8 KB)": (
            "POST",
            "/v1/memories",
            {"text": "x", "user_id": "alice", "metadata": deep(260)},
        ),
        "metadata 40 levels deep (update)": ("PUT", "/v1/memories/{mid}", {"metadata": deep(40)}),
        "message metadata 40 levels deep": (
            "POST",
            "/v1/conversations/s1/messages",
            {
                "user_id": "alice",
                "messages": [{"role": "user", "content": "x", "metadata": deep(40)}],
            },
        ),
        "metadata NUL": ("POST", "/v1/memories", {"text": "x", "metadata": {"k": "a\x00b"}}),
        "filter value past int64": (
            "POST",
            "/v1/memories/search",
            {"query": "tea", "user_id": "alice", "filters": {"n": BIG}},
        ),
        "filters query 5000 levels deep": (
            "GET",
            "/v1/memories?user_id=alice&filters=" + "%5B" * 5000 + "%5D" * 5000,
            None,
        ),
        "user_id lone surrogate": ("POST", "/v1/memories", f'{{"text": "x", "user_id": "{S}"}}'),
        "source lone surrogate": ("POST", "/v1/memories", f'{{"text": "x", "sources": ["{S}"]}}'),
        "metadata key lone surrogate": (
            "POST",
            "/v1/memories",
            f'{{"text": "x", "user_id": "alice", "metadata": {{"{S}": 1}}}}',
        ),
        "filter key lone surrogate": (
            "POST",
            "/v1/memories/search",
            f'{{"query": "tea", "user_id": "alice", "filters": {{"{S}": 1}}}}',
        ),
        "reason lone surrogate": ("PUT", "/v1/memories/{mid}", f'{{"text": "y", "reason": "{S}"}}'),
        "feedback context lone surrogate": (
            "POST",
            "/v1/memories/{mid}/feedback",
            f'{{"kind": "used", "context": "{S}"}}',
        ),
        "system_prompt lone surrogate": (
            "POST",
            "/v1/conversations/s1/window",
            f'{{"user_id": "alice", "user_message": "tea?", "system_prompt": "{S}"}}',
        ),
    }


REST_SMALL = ("metadata 260 levels deep (1.8 KB)", "log id past int64", "user_id lone surrogate")


def _run_rest(ctx: Ctx, seed: Path, embedder: Any, small: bool) -> list[Case]:
    """Each case against the real app on a loopback port, over its own copy of the seed,
    with an admin key. Skipped without the server's packages (memfold[server])."""
    try:
        import httpx

        from memfold.server.run import start_server
    except ImportError:
        return []
    from memfold import Memory
    from memfold.engine.keys import create_key

    cases = _rest_cases()
    if small:
        cases = {k: v for k, v in cases.items() if k in REST_SMALL}
    db = ctx.folder / "rest.db"
    out = []
    for name, (method, path, body) in cases.items():
        _fresh(seed, db)
        with Memory(db, embedder=embedder, consolidate="off") as mem:
            token = create_key(mem.store, role="admin")[1]
            before = fingerprint(db)
            base_url, stop = start_server(mem)
            try:
                headers = {"Authorization": f"Bearer {token}"}
                with httpx.Client(base_url=base_url, headers=headers, timeout=60) as client:
                    url = path.format(mid=ctx.known_id)
                    raw = isinstance(body, str)
                    response = _answer(
                        client,
                        method,
                        url,
                        content=body.encode() if isinstance(body, str) else None,
                        json=None if raw else body,
                        headers={"content-type": "application/json"} if raw else None,
                    )
                # compared before the checks below (a search counts its hits)
                changed = before != fingerprint(db)
                # a new connection: a 500 may have closed the one above
                with httpx.Client(base_url=base_url, headers=headers, timeout=60) as client:
                    scope = {"user_id": "alice"}
                    listed = _answer(client, "GET", "/v1/memories", params=scope)
                    query = {"query": "tea", **scope}
                    found = _answer(client, "POST", "/v1/memories/search", json=query)
            finally:
                stop()
        broken = (listed[0], found[0]) != (200, 200)
        out.append(_rest_case(name, response, changed, broken))
    return out


def _answer(client: Any, method: str, url: str, **kw: Any) -> tuple[int, str]:
    """(status, body text) of one request; (0, why) when no answer came (a dropped
    connection counts as a failure of the service, as a 5xx does)."""
    import httpx

    try:
        response = client.request(method, url, **kw)
    except httpx.HTTPError as exc:
        return 0, f"no answer: {exc}"
    return int(response.status_code), str(response.text)


def _rest_case(name: str, answer: tuple[int, str], changed: bool, broken: bool) -> Case:
    status, text = answer
    try:
        error = json.loads(text).get("error") or {}
        message = str(error.get("message", ""))
        shaped = bool(error.get("code")) and bool(message)
    except (ValueError, AttributeError):
        message, shaped = text, False
    failed = status >= 500 or status == 0
    return Case(
        "rest",
        name,
        accepted=200 <= status < 400 or changed,
        changed=changed,
        detail=f"{status}: {message[:110]}",
        wrong_error=failed or (status >= 400 and not shaped),
        http_status=status,
        scope_broken=broken,
    )
