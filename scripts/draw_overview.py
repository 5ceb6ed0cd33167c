"""Render the README's picture, docs/assets/overview.svg, from docs/assets/overview.toml.

    .venv/bin/python scripts/draw_overview.py          # write the SVG
    .venv/bin/python scripts/draw_overview.py --check  # exit 1 if the SVG is stale

The source names boxes (position, size, lines of text, a kind that picks the colours)
and arrows between them; this script only draws them, so the picture changes by
editing the TOML. The docs build runs it (scripts/docs_hooks.py).
"""

from __future__ import annotations

import argparse
import sys
import tomllib
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "docs" / "assets" / "overview.toml"
TARGET = ROOT / "docs" / "assets" / "overview.svg"

# fill, stroke per kind of box
COLOURS = {
    "path": ("#e8f1fb", "#3b73b9"),
    "judge": ("#fdf3e1", "#c98a1b"),
    "guard": ("#e6f5ea", "#2f8a4c"),
    "store": ("#f1ecf9", "#6b4fa3"),
    "refused": ("#f7f7f7", "#888888"),
}
LINE_HEIGHT = 15


def _box(box: dict[str, Any]) -> str:
    fill, stroke = COLOURS[box["kind"]]
    x, y, w, h = box["x"], box["y"], box["w"], box["h"]
    parts = [
        f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="8" '
        f'fill="{fill}" stroke="{stroke}" stroke-width="1.5"/>'
    ]
    lines = box["lines"]
    top = y + h / 2 - (len(lines) - 1) * LINE_HEIGHT / 2 + 4
    for i, line in enumerate(lines):
        weight = ' font-weight="bold"' if i == 0 else ""
        parts.append(
            f'<text x="{x + w / 2}" y="{top + i * LINE_HEIGHT}" text-anchor="middle"'
            f"{weight}>{escape(line)}</text>"
        )
    return "\n".join(parts)


def _edge(box: dict[str, Any], toward: dict[str, Any]) -> tuple[float, float]:
    """Where a line from ``box``'s centre toward ``toward``'s centre leaves ``box``."""
    cx, cy = box["x"] + box["w"] / 2, box["y"] + box["h"] / 2
    tx, ty = toward["x"] + toward["w"] / 2, toward["y"] + toward["h"] / 2
    dx, dy = tx - cx, ty - cy
    scale = min(
        (box["w"] / 2) / abs(dx) if dx else float("inf"),
        (box["h"] / 2) / abs(dy) if dy else float("inf"),
    )
    return cx + dx * scale, cy + dy * scale


def _arrow(arrow: dict[str, Any], boxes: dict[str, dict[str, Any]]) -> str:
    start, end = boxes[arrow["from"]], boxes[arrow["to"]]
    x1, y1 = _edge(start, end)
    x2, y2 = _edge(end, start)
    line = (
        f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
        'stroke="#555" stroke-width="1.5" marker-end="url(#head)"/>'
    )
    if "label" not in arrow:
        return line
    mx, my = (x1 + x2) / 2, (y1 + y2) / 2 - 6
    label = escape(arrow["label"])
    return (
        f'{line}\n<text x="{mx:.1f}" y="{my:.1f}" text-anchor="middle" '
        f'font-style="italic">{label}</text>'
    )


def render(source: dict[str, Any]) -> str:
    boxes = {box["id"]: box for box in source["box"]}
    band = source["band"]
    width, height = source["width"], source["height"]
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="Helvetica, Arial, sans-serif" '
        'font-size="12" fill="#222">',
        f"<title>{escape(source['title'])}</title>",
        '<defs><marker id="head" markerWidth="10" markerHeight="8" refX="9" refY="4" '
        'orient="auto"><path d="M0,0 L10,4 L0,8 z" fill="#555"/></marker></defs>',
        f'<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>',
        f'<text x="{width / 2}" y="28" text-anchor="middle" font-size="15" '
        f'font-weight="bold">{escape(source["title"])}</text>',
    ]
    out += [_arrow(arrow, boxes) for arrow in source["arrow"]]
    out += [_box(box) for box in source["box"]]
    out.append(
        f'<rect x="20" y="{band["y"]}" width="{width - 40}" height="{band["h"]}" rx="8" '
        'fill="#fff8d6" stroke="#b59b2a" stroke-width="1.5"/>'
    )
    for i, line in enumerate(band["lines"]):
        y = band["y"] + 24 + i * 20
        out.append(f'<text x="{width / 2}" y="{y}" text-anchor="middle">{escape(line)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the SVG is stale")
    args = parser.parse_args(argv)
    svg = render(tomllib.loads(SOURCE.read_text(encoding="utf-8")))
    if args.check:
        current = TARGET.read_text(encoding="utf-8") if TARGET.exists() else ""
        if current != svg:
            print(f"{TARGET} is stale: run scripts/draw_overview.py", file=sys.stderr)
            return 1
        return 0
    if not TARGET.exists() or TARGET.read_text(encoding="utf-8") != svg:
        TARGET.write_text(svg, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
