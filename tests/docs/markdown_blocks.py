"""The fenced code blocks of a Markdown page, as the docs tests run them.

A ``python``, ``bash`` or ``sh`` block is an example, and runs. A ``text`` block right
after an example (blank lines between allowed) is that example's output: the example
must print exactly that, where ``...`` stands for any text (ids, times, scores). A line
``<!-- docs-test: skip: REASON -->`` right above a block leaves that block out, and
``<!-- docs-test: skip-page: REASON -->`` a whole page; the reason is required.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass
from pathlib import Path

RUN = {"python": "python", "bash": "bash", "sh": "bash"}
_FENCE = re.compile(r"^(\s*)```(\w*)\s*$")
_SKIP = re.compile(r"^\s*<!-- docs-test: skip: (.+?) -->\s*$")
_SKIP_PAGE = re.compile(r"^\s*<!-- docs-test: skip-page: (.+?) -->\s*$", re.MULTILINE)


@dataclass(frozen=True)
class Block:
    page: str
    line: int  # 1-based line of the opening fence
    lang: str
    code: str
    expected: str | None = None
    skip: str | None = None

    @property
    def runs(self) -> bool:
        return self.lang in RUN and self.skip is None

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"


def page_skip(text: str) -> str | None:
    found = _SKIP_PAGE.search(text)
    return found.group(1) if found else None


def blocks(path: Path, root: Path) -> list[Block]:
    """Every fenced block of the page at ``path``, each with its output block if any."""
    lines = path.read_text(encoding="utf-8").split("\n")
    page = str(path.relative_to(root))
    raw: list[tuple[int, str, str, str | None]] = []
    i = 0
    while i < len(lines):
        opening = _FENCE.match(lines[i])
        if opening is None:
            i += 1
            continue
        indent, lang = opening.groups()
        end = i + 1
        while end < len(lines) and not re.match(rf"^{indent}```\s*$", lines[end]):
            end += 1
        code = textwrap.dedent("\n".join(lines[i + 1 : end])) + "\n"
        above = next((ln for ln in reversed(lines[:i]) if ln.strip()), "")
        skipped = _SKIP.match(above)
        raw.append((i + 1, lang, code, skipped.group(1) if skipped else None))
        i = end + 1
    found: list[Block] = []
    for n, (line, lang, code, skip) in enumerate(raw):
        if lang == "text":
            continue
        expected = None
        if lang in RUN and n + 1 < len(raw) and raw[n + 1][1] == "text":
            between = lines[line : raw[n + 1][0] - 1]
            closing = next(k for k, ln in enumerate(between) if re.match(r"^\s*```\s*$", ln))
            if not any(ln.strip() for ln in between[closing + 1 :]):
                expected = raw[n + 1][2]
        found.append(Block(page, line, lang, code, expected, skip))
    return found


def matches(expected: str, actual: str) -> bool:
    """``actual`` is ``expected`` line for line (trailing spaces aside), ``...`` any text."""
    want = "\n".join(ln.rstrip() for ln in expected.strip("\n").split("\n"))
    got = "\n".join(ln.rstrip() for ln in actual.strip("\n").split("\n"))
    pattern = ".*?".join(re.escape(part) for part in want.split("..."))
    return re.fullmatch(pattern, got, flags=re.DOTALL) is not None
