"""The core never needs an extra: importing memfold, ``memfold demo`` and the record commands
run with every extra's packages unimportable (starlette, uvicorn, langgraph, pgserver,
psycopg, playwright), and the scripted LLM server then fails with one clear error naming
``memfold[testing]``. Each case runs in a fresh interpreter in which any import of those
packages is refused and recorded."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

BLOCKER = textwrap.dedent(
    """
    import importlib.abc, sys
    EXTRA_ONLY = {
        "starlette", "uvicorn", "fastapi", "mcp", "langgraph", "pgserver", "psycopg", "playwright"
    }
    tried = []

    class Refuse(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in EXTRA_ONLY:
                tried.append(name)
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None

    sys.meta_path.insert(0, Refuse())
    """
)


def run_blocked(body: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "blocked.py"
    script.write_text(BLOCKER + textwrap.dedent(body), encoding="utf-8")
    return subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=240,
        check=False,
    )


def test_core_commands_never_import_the_extras(tmp_path: Path) -> None:
    store = tmp_path / "core.db"
    body = f"""
    import json
    from pathlib import Path
    from memfold.cli import main
    from memfold import Memory

    def cli(*args):
        try:
            main(list(args))
        except SystemExit as exc:
            assert exc.code in (0, None), (args, exc.code)

    store = {str(store)!r}
    cli("demo")
    cli("add", "The user prefers tea in the morning", "--user", "sam", "--path", store)
    cli("add", "The user lives in Lyon", "--user", "sam", "--path", store)
    with Memory(store, consolidate="off") as mem:
        first = mem.list(user_id="sam")[0].id
    cli("search", "what does the user drink", "--user", "sam", "--path", store)
    cli("list", "--user", "sam", "--path", store)
    cli("get", first, "--path", store)
    cli("history", first, "--path", store)
    cli("update", first, "The user prefers green tea in the morning", "--path", store)
    cli("feedback", first, "used", "--path", store)
    cli("delete", first, "--path", store)
    cli("log", "--path", store)
    cli("stats", "--path", store)
    cli("export", str(Path(store).with_suffix(".jsonl")), "--path", store)
    cli("report", "--format", "html", "--path", store)
    cli("review", "status", "--path", store)
    leaked = sorted(m for m in sys.modules if m.split(".")[0] in EXTRA_ONLY)
    print("RESULT " + json.dumps({{"tried": tried, "leaked": leaked}}))
    """
    done = run_blocked(body, tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.rsplit("RESULT ", 1)[1])
    assert result == {"tried": [], "leaked": []}
    assert "Lyon" in done.stdout and "green tea" in done.stdout  # they really ran


def test_scripted_server_without_its_extra_names_the_extra(tmp_path: Path) -> None:
    body = """
    from memfold.errors import MemfoldError, MissingExtra
    try:
        from memfold.testing.fake_llm import FakeLLMServer
    except MissingExtra as exc:
        assert isinstance(exc, ImportError) and isinstance(exc, MemfoldError)
        assert exc.extra == "testing"
        print("MESSAGE " + str(exc))
    else:
        raise SystemExit("imported without starlette/uvicorn")
    """
    done = run_blocked(body, tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    message = done.stdout.split("MESSAGE ", 1)[1].strip()
    assert "pip install 'memfold[testing]'" in message
    assert "starlette" in message or "uvicorn" in message


def test_cli_fake_llm_without_its_extra_is_one_error_line(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text("[]", encoding="utf-8")
    body = f"""
    from memfold.cli import main
    main(["fake-llm", "--script", {str(script)!r}, "--port", "0"])
    """
    done = run_blocked(body, tmp_path)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("error: ") and "memfold[testing]" in lines[0]


@pytest.mark.parametrize(
    ("command", "extra"),
    [
        (["serve", "--path", "DB"], "server"),
        (["mcp", "--path", "DB"], "server"),
        (["migrate", "--to", "postgresql://127.0.0.1:1/none", "--from", "DB"], "postgres"),
    ],
    ids=["serve", "mcp", "migrate"],
)
def test_a_command_without_its_extra_is_one_error_line(
    tmp_path: Path, command: list[str], extra: str
) -> None:
    (tmp_path / "x.db").touch()  # migrate checks its source file first
    args = [str(tmp_path / "x.db") if a == "DB" else a for a in command]
    body = f"""
    from memfold.cli import main
    main({args!r})
    """
    done = run_blocked(body, tmp_path)
    assert done.returncode == 2, done.stderr[-3000:]
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("error: ") and f"pip install 'memfold[{extra}]'" in lines[0]


def test_extras_declared_and_runtime_free_of_them() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]

    def names(reqs: list[str]) -> set[str]:
        return {r.split("[")[0].split(">")[0].split("=")[0].split("<")[0].strip() for r in reqs}

    runtime = names(project["dependencies"])
    extras = {k: names(v) for k, v in project["optional-dependencies"].items()}
    assert not runtime & {"starlette", "uvicorn", "langgraph", "pgserver", "psycopg", "uv"}
    assert {"starlette", "uvicorn"} <= extras["testing"]
    assert {"starlette", "uvicorn"} <= extras["server"]
    assert "psycopg" in extras["postgres"]  # the server for the tests is dev's (pgserver)
    assert "langgraph" in extras["langgraph"]
    dev = project["optional-dependencies"]["dev"]
    assert any(
        r.startswith("memfold[") and all(x in r for x in ("testing", "langgraph", "postgres"))
        for r in dev
    )
    assert "pgserver" in extras["dev"]
    every = [r for reqs in project["optional-dependencies"].values() for r in reqs]
    third_party = [r for r in every + project["dependencies"] if not r.startswith("memfold[")]
    unbounded = [r for r in third_party if ">=" not in r and "==" not in r]
    assert not unbounded, f"requirements without a lower bound: {unbounded}"
