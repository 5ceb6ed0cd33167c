"""A Python session for one page's examples: run each block as it comes, in one namespace.

Reads one JSON object a line on stdin, ``{"code": ..., "env": {...}}``: ``env`` is the
shell session's environment at that point of the page (what the reader exported), set
before the block runs. Writes one JSON object a line, ``{"stdout": ..., "error": ...}``.
Run by tests/docs/test_docs_examples.py in a fresh folder.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
import traceback
from typing import Any


def main() -> None:
    namespace: dict[str, Any] = {"__name__": "__docs__"}
    answer = sys.stdout
    for line in sys.stdin:
        request = json.loads(line)
        os.environ.clear()
        os.environ.update(request["env"])
        buffer = io.StringIO()
        error = None
        with contextlib.redirect_stdout(buffer):
            try:
                exec(compile(request["code"], "<example>", "exec"), namespace)
            except BaseException:  # the test reports whatever the example raised
                error = traceback.format_exc(limit=-3)
        answer.write(json.dumps({"stdout": buffer.getvalue(), "error": error}) + "\n")
        answer.flush()


if __name__ == "__main__":
    main()
