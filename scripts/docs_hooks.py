"""mkdocs hooks: the site's home page is the README, and its picture is drawn fresh.

The README lives at the repository root, where the forge shows it; the site shows the
same text as its home page, with the README's ``docs/`` links made relative to the
site. ``docs/index.md`` holds only a pointer, so the two never drift apart.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

import draw_overview  # noqa: E402  (a script beside this one, not a package)


def on_pre_build(config: Any) -> None:
    draw_overview.main([])


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    if page.file.src_uri != "index.md":
        return markdown
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    return re.sub(r"\]\(docs/", "](", readme)
