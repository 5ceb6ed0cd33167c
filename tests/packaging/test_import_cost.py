"""Importing memfold (every CLI command, every worker process) must not load the LLM
client: openai alone costs about a second. It loads when an LLM is first used."""

from __future__ import annotations

import subprocess
import sys


def test_importing_memory_does_not_load_the_llm_client() -> None:
    code = (
        "import sys, memfold, memfold.memory, memfold.cli\n"
        "print(sorted(m for m in ('openai', 'memfold.llm.client') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert out.stdout.strip() == "[]", out.stdout
