"""Prompt files of the LLM judge, each with a version recorded in the log.

A prompt file is Markdown: a ``version: N`` header line, a line ``---``, then the
system prompt, then optionally worked examples as chat turns, each opened by a line
``=== user`` or ``=== assistant``. The system prompt and the examples go first in
every call, byte for byte the same, so a server that caches a prompt prefix
(llama.cpp, vLLM, OpenAI) evaluates them once; only the memories at the end vary.
Changing a prompt's wording means bumping its version, so every logged decision says
which wording produced it (``name@N``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib import resources

from memfold.errors import ConfigError

REPLY_FORMATS = ("json", "lines")
_TURN = re.compile(r"^=== (user|assistant)\s*$", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class Prompt:
    name: str
    version: str
    text: str
    # Worked examples: (role, content) chat turns sent after the system prompt.
    examples: tuple[tuple[str, str], ...] = ()
    # How the model answers: "json" (held to the task's schema) or "lines" (the prompt's
    # own one-line-per-item format, judge/reply_lines.py), from the ``reply:`` header.
    reply: str = "json"

    @property
    def label(self) -> str:
        """What the log records as ``prompt_version``: ``consolidation@1``."""
        return f"{self.name}@{self.version}"

    def messages(self, user: str) -> list[dict[str, str]]:
        """System prompt, examples, then ``user``: the stable prefix first."""
        return [
            {"role": "system", "content": self.text},
            *({"role": role, "content": content} for role, content in self.examples),
            {"role": "user", "content": user},
        ]


def parse_prompt(name: str, raw: str) -> Prompt:
    header, sep, body = raw.partition("\n---\n")
    fields: dict[str, str] = {}
    for line in header.splitlines():
        key, _, value = line.partition(":")
        fields[key.strip().lower()] = value.strip()
    version, reply = fields.get("version"), fields.get("reply", "json")
    if not sep or not version or not body.strip():
        raise ConfigError(f"prompt {name!r} needs a 'version:' header, a '---' line and a body")
    if reply not in REPLY_FORMATS:
        raise ConfigError(f"prompt {name!r}: reply must be one of {', '.join(REPLY_FORMATS)}")
    parts = _TURN.split(body)
    system, turns = parts[0], parts[1:]
    examples = tuple(
        (role, content.strip()) for role, content in zip(turns[::2], turns[1::2], strict=True)
    )
    roles = [role for role, _ in examples]
    if roles != ["user", "assistant"] * (len(roles) // 2) or any(not c for _, c in examples):
        raise ConfigError(f"prompt {name!r}: examples must be non-empty user/assistant pairs")
    text = system.strip() + "\n"
    return Prompt(name=name, version=version, text=text, examples=examples, reply=reply)


@cache
def load_prompt(name: str) -> Prompt:
    """The packaged prompt ``<name>.md``."""
    resource = resources.files(__name__) / f"{name}.md"
    try:
        raw = resource.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"no prompt file {name}.md in memfold.judge.prompts") from None
    return parse_prompt(name, raw)
