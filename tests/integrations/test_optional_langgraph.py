"""langgraph stays optional: without it, ``import memfold`` and the tool schemas work and
the LangGraph store fails with one clear error naming ``memfold[langgraph]``. Runs in a
fresh interpreter in which any import of langgraph is refused."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

SCRIPT = textwrap.dedent(
    """
    import importlib.abc, sys

    class Refuse(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] == "langgraph":
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None

    sys.meta_path.insert(0, Refuse())
    import memfold
    from memfold.integrations.tools import tool_schemas
    from memfold.errors import MemfoldError, MissingExtra
    assert len(tool_schemas()) == 5
    try:
        import memfold.integrations.langgraph
    except MissingExtra as exc:
        assert isinstance(exc, ImportError) and isinstance(exc, MemfoldError)
        print("MESSAGE " + str(exc))
    else:
        raise SystemExit("imported without langgraph")
    print("LOADED " + ",".join(sorted(m for m in sys.modules if m.startswith("langgraph"))))
    """
)


def test_the_store_without_langgraph_names_the_extra(tmp_path: Path) -> None:
    script = tmp_path / "no_langgraph.py"
    script.write_text(SCRIPT, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=240,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    message = done.stdout.split("MESSAGE ", 1)[1].splitlines()[0]
    assert message == (
        "the LangGraph store needs the 'langgraph' extra (langgraph is not installed): "
        "pip install 'memfold[langgraph]'"
    )
    assert done.stdout.split("LOADED ", 1)[1].strip() == ""
