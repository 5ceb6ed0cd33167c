"""The report's two charts (P90 per run, merges per run) as inline SVG: no plotting dependency.

Both charts share one ``Frame``: the same size, margins and one band per run, so a run sits
at the same x in both and the charts line up when stacked. Each has a labelled y axis with
ticks, run labels on the x axis, and axis titles. A run without a P90 keeps its place: a
grey band labelled "no P90" marks the gap, and the P90 line breaks there.

Elements carry classes and ``data-`` attributes (``y-tick``, ``x-tick``, ``p90-point``,
``p90-missing``, ``bar``) so a test can find them in the DOM.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from html import escape

from markupsafe import Markup

_FONT = 'font-family="system-ui, sans-serif" font-size="11"'
_P90_STEP = 0.05  # the finest P90 tick step: labels print two decimals
_MIN_LABELLED_BAND = 14.0  # px: bars in narrower bands carry no value label
_BLUE, _GREEN, _GREY, _INK = "#2563eb", "#16a34a", "#9ca3af", "#374151"


@dataclass(frozen=True, slots=True)
class Frame:
    """Chart geometry, in SVG pixels. One frame for both charts keeps their x axes aligned."""

    width: int = 640
    height: int = 210
    left: int = 64
    right: int = 72
    top: int = 14
    bottom: int = 48
    max_x_labels: int = 16

    @property
    def plot_w(self) -> float:
        return float(self.width - self.left - self.right)

    @property
    def plot_h(self) -> float:
        return float(self.height - self.top - self.bottom)

    @property
    def baseline(self) -> float:
        return float(self.height - self.bottom)


FRAME = Frame()


# pure policy --------------------------------------------------------------------------------
def nice_ticks(
    lo: float, hi: float, count: int = 5, *, integer: bool = False, min_step: float = 0.0
) -> list[float]:
    """Round tick values covering ``[lo, hi]``: steps of 1, 2, 2.5 or 5 times a power of ten
    (no 2.5 for integers), never finer than ``min_step`` (1 for integers)."""
    lo, hi = min(lo, hi), max(lo, hi)
    if hi == lo:
        pad = abs(lo) * 0.1 or 1.0
        lo, hi = (lo, lo + pad) if lo == 0 else (lo - pad, hi + pad)
    raw = (hi - lo) / max(1, count - 1)
    mag = 10 ** math.floor(math.log10(raw))
    steps = (1.0, 2.0, 5.0, 10.0) if integer else (1.0, 2.0, 2.5, 5.0, 10.0)
    step = next(m * mag for m in steps if m * mag >= raw * (1 - 1e-9))
    step = max(step, 1.0 if integer else 0.0, min_step)
    start = math.floor(lo / step + 1e-9) * step
    stop = math.ceil(hi / step - 1e-9) * step
    n = round((stop - start) / step)
    return [round(start + i * step, 10) for i in range(n + 1)]


def pad_ticks(ticks: list[float], floor: float, ceiling: float, least: int = 4) -> list[float]:
    """Add a step below and above (within ``[floor, ceiling]``) while there are few ticks."""
    step = ticks[1] - ticks[0] if len(ticks) > 1 else 0.0
    while step > 0 and len(ticks) < least:
        grown = [
            t for t in (ticks[0] - step, ticks[-1] + step) if floor - 1e-9 <= t <= ceiling + 1e-9
        ]
        if not grown:
            break
        ticks = sorted({round(t, 10) for t in [*ticks, *grown]})
    return ticks


def x_centers(n: int, frame: Frame = FRAME) -> list[float]:
    """The x of each run: the middle of its band. The same for every chart with this frame."""
    band = frame.plot_w / max(1, n)
    return [frame.left + (i + 0.5) * band for i in range(n)]


def y_scale(ticks: Sequence[float], frame: Frame = FRAME) -> Callable[[float], float]:
    lo, hi = ticks[0], ticks[-1]
    span = (hi - lo) or 1.0
    return lambda v: frame.baseline - (v - lo) / span * frame.plot_h


def label_stride(n: int, frame: Frame = FRAME) -> int:
    """Label every k-th run so that run labels never overlap."""
    return max(1, math.ceil(n / frame.max_x_labels))


# drawing ------------------------------------------------------------------------------------
def p90_chart(
    runs: Sequence[tuple[str, float | None]],
    refs: Sequence[tuple[str, float]],
    frame: Frame = FRAME,
) -> Markup:
    """P90 per run: points joined where consecutive, dashed reference lines, marked gaps."""
    if not runs:
        return _empty("no review runs in this period", "P90 per run", frame)
    domain = [v for _, v in runs if v is not None] + [r for _, r in refs] or [0.0, 1.0]
    ticks = pad_ticks(nice_ticks(min(domain), max(domain), min_step=_P90_STEP), 0.0, 1.0)
    y = y_scale(ticks, frame)
    xs = x_centers(len(runs), frame)
    parts = [_axes(frame, ticks, y, "{:.2f}", "P90 confidence", [n for n, _ in runs])]
    for name, ref in refs:
        parts.append(
            f'<line class="ref" x1="{frame.left}" x2="{frame.left + frame.plot_w:.1f}" '
            f'y1="{y(ref):.1f}" y2="{y(ref):.1f}" stroke="{_GREY}" stroke-dasharray="5 4"/>'
            f'<text x="{frame.left + frame.plot_w + 4:.1f}" y="{y(ref) + 4:.1f}" {_FONT} '
            f'fill="{_INK}">{escape(name)} {ref:.2f}</text>'
        )
    segment: list[str] = []
    for x, (_, v) in zip(xs, runs, strict=True):
        if v is None:
            parts.append(_polyline(segment))
            segment = []
        else:
            segment.append(f"{x:.1f},{y(v):.1f}")
    parts.append(_polyline(segment))
    band = frame.plot_w / len(runs)
    for x, (name, v) in zip(xs, runs, strict=True):
        run = escape(name)
        if v is None:
            mid = frame.top + frame.plot_h / 2
            parts.append(
                f'<g class="p90-missing" data-run="{run}">'
                f'<rect x="{x - band * 0.3:.1f}" y="{frame.top}" width="{band * 0.6:.1f}" '
                f'height="{frame.plot_h:.1f}" fill="#f3f4f6"/>'
                f'<text x="{x:.1f}" y="{mid:.1f}" {_FONT} fill="#4b5563" text-anchor="middle" '
                f'dominant-baseline="central" transform="rotate(-90 {x:.1f} {mid:.1f})">'
                f"no P90</text>"
                f"<title>run {run}: no P90 (no pair classified DUPLICATE)</title></g>"
            )
        else:
            parts.append(
                f'<circle class="p90-point" data-run="{run}" data-value="{v:.3f}" '
                f'cx="{x:.1f}" cy="{y(v):.1f}" r="4" fill="{_BLUE}">'
                f"<title>run {run}: P90 {v:.3f}</title></circle>"
            )
    return _svg("".join(parts), "P90 per run", frame)


def merges_chart(runs: Sequence[tuple[str, float]], frame: Frame = FRAME) -> Markup:
    """Merges per run: one bar per run, its value above it (a run with none shows 0)."""
    if not runs:
        return _empty("no review runs in this period", "merges per run", frame)
    ticks = nice_ticks(0.0, max(1.0, *(v for _, v in runs)), integer=True)
    y = y_scale(ticks, frame)
    xs = x_centers(len(runs), frame)
    band = frame.plot_w / len(runs)
    parts = [_axes(frame, ticks, y, "{:g}", "merges", [n for n, _ in runs])]
    for x, (name, v) in zip(xs, runs, strict=True):
        run = escape(name)
        top = y(v)
        parts.append(
            f'<rect class="bar" data-run="{run}" data-value="{v:g}" x="{x - band * 0.3:.1f}" '
            f'y="{top:.1f}" width="{band * 0.6:.1f}" height="{frame.baseline - top:.1f}" '
            f'fill="{_GREEN}"><title>run {run}: {v:g} merges</title></rect>'
        )
        if band >= _MIN_LABELLED_BAND:  # narrower: the value is in the bar's tooltip only
            parts.append(
                f'<text x="{x:.1f}" y="{top - 4:.1f}" {_FONT} fill="{_INK}" '
                f'text-anchor="middle">{v:g}</text>'
            )
    return _svg("".join(parts), "merges per run", frame)


def _axes(
    frame: Frame,
    ticks: Sequence[float],
    y: Callable[[float], float],
    fmt: str,
    y_title: str,
    runs: Sequence[str],
) -> str:
    right = frame.left + frame.plot_w
    parts = []
    for t in ticks:
        parts.append(
            f'<g class="y-tick" data-value="{fmt.format(t)}">'
            f'<line x1="{frame.left}" x2="{right:.1f}" y1="{y(t):.1f}" y2="{y(t):.1f}" '
            f'stroke="#e5e7eb"/>'
            f'<line x1="{frame.left - 5}" x2="{frame.left}" y1="{y(t):.1f}" y2="{y(t):.1f}" '
            f'stroke="{_INK}"/>'
            f'<text x="{frame.left - 8}" y="{y(t) + 4:.1f}" {_FONT} fill="{_INK}" '
            f'text-anchor="end">{fmt.format(t)}</text></g>'
        )
    stride = label_stride(len(runs), frame)
    for i, (x, name) in enumerate(zip(x_centers(len(runs), frame), runs, strict=True)):
        label = (
            f'<text x="{x:.1f}" y="{frame.baseline + 16:.1f}" {_FONT} fill="{_INK}" '
            f'text-anchor="middle">{escape(name)}</text>'
            if i % stride == 0
            else ""
        )
        parts.append(
            f'<g class="x-tick" data-run="{escape(name)}" data-x="{x:.1f}">'
            f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{frame.baseline:.1f}" '
            f'y2="{frame.baseline + 5:.1f}" stroke="{_INK}"/>{label}</g>'
        )
    mid_y = frame.top + frame.plot_h / 2
    parts.append(
        f'<line x1="{frame.left}" x2="{frame.left}" y1="{frame.top}" y2="{frame.baseline:.1f}" '
        f'stroke="{_INK}"/>'
        f'<line x1="{frame.left}" x2="{right:.1f}" y1="{frame.baseline:.1f}" '
        f'y2="{frame.baseline:.1f}" stroke="{_INK}"/>'
        f'<text class="axis-title" x="14" y="{mid_y:.1f}" {_FONT} fill="{_INK}" '
        f'text-anchor="middle" transform="rotate(-90 14 {mid_y:.1f})">{escape(y_title)}</text>'
        f'<text class="axis-title" x="{frame.left + frame.plot_w / 2:.1f}" '
        f'y="{frame.height - 8}" {_FONT} fill="{_INK}" text-anchor="middle">review run</text>'
    )
    return "".join(parts)


def _polyline(points: Sequence[str]) -> str:
    if len(points) < 2:
        return ""
    return f'<polyline fill="none" stroke="{_BLUE}" stroke-width="2" points="{" ".join(points)}"/>'


def _empty(message: str, title: str, frame: Frame) -> Markup:
    return _svg(
        f'<text class="empty" x="{frame.width / 2}" y="{frame.height / 2}" {_FONT} '
        f'fill="#6b7280" text-anchor="middle">{escape(message)}</text>',
        title,
        frame,
    )


def _svg(body: str, title: str, frame: Frame) -> Markup:
    return Markup(
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{frame.width}" height="{frame.height}" '
        f'viewBox="0 0 {frame.width} {frame.height}" role="img" aria-label="{escape(title)}">'
        f"<title>{escape(title)}</title>{body}</svg>"
    )
