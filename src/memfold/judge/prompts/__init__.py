"""Prompt files of the LLM judge, each with a version recorded in the log.

A prompt file is Markdown: a ``version: N`` header line, a line ``---``, then
the system prompt. Changing a prompt's wording means bumping its version, so
every logged decision says which wording produced it (``name@N``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import resources

from memfold.errors import ConfigError


@dataclass(frozen=True, slots=True)
class Prompt:
    name: str
    version: str
    text: str

    @property
    def label(self) -> str:
        """What the log records as ``prompt_version``: ``consolidation@1``."""
        return f"{self.name}@{self.version}"


def parse_prompt(name: str, raw: str) -> Prompt:
    header, sep, body = raw.partition("\n---\n")
    version = None
    for line in header.splitlines():
        key, _, value = line.partition(":")
        if key.strip().lower() == "version":
            version = value.strip()
    if not sep or not version or not body.strip():
        raise ConfigError(f"prompt {name!r} needs a 'version:' header, a '---' line and a body")
    return Prompt(name=name, version=version, text=body.strip() + "\n")


@cache
def load_prompt(name: str) -> Prompt:
    """The packaged prompt ``<name>.md``."""
    resource = resources.files(__name__) / f"{name}.md"
    try:
        raw = resource.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"no prompt file {name}.md in memfold.judge.prompts") from None
    return parse_prompt(name, raw)
