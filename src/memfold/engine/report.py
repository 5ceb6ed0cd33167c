"""The weekly self-improvement report over review runs and the consolidation log.

Markdown or HTML (jinja2 templates in ``memfold/templates``). The HTML plots (P90 trend,
merges per run) are inline SVG drawn here from the numbers: no plotting dependency.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from html import escape

import jinja2
from markupsafe import Markup

from memfold.engine.context import Context
from memfold.engine.review import breaker_state, parse_since
from memfold.errors import InvalidInput
from memfold.model import JSONDict, utcnow
from memfold.policy.review import past_cold_start

_W, _H, _PAD = 480, 160, 28

_env = jinja2.Environment(
    loader=jinja2.PackageLoader("memfold", "templates"),
    autoescape=jinja2.select_autoescape(enabled_extensions=("html.j2",)),
    keep_trailing_newline=True,
)


def report_data(ctx: Context, since: datetime) -> JSONDict:
    store = ctx.store
    cfg = ctx.settings.review
    runs = store.list_review_runs(since)
    summary = store.queue_summary(since)
    rows: list[JSONDict] = []
    trips: list[JSONDict] = []
    held_events = 0
    for run in runs:
        counts = run.counts
        gates: JSONDict = next(
            (d["gates"] for d in counts.get("decisions", []) if "gates" in d), {}
        )
        bands = sorted({str(g.get("band")) for g in gates.values()})
        rows.append(
            {
                "id": run.id,
                "started": run.started_at.strftime("%Y-%m-%d %H:%M"),
                "status": run.status,
                "p90": run.p90,
                "p90_text": "-" if run.p90 is None else f"{run.p90:.3f}",
                "band": ",".join(bands) or "-",
                "queued": counts.get("queued", 0),
                "classified": counts.get("classified", 0),
                "merged": counts.get("merged", 0),
                "held": counts.get("held", 0),
            }
        )
        for event in run.breaker.get("events", []):
            if event.get("tripped"):
                trips.append(event)
            else:
                held_events += 1
    total_feedback = store.feedback_total()
    ended = summary["ended"]
    return {
        "since": since.strftime("%Y-%m-%d %H:%M UTC"),
        "generated": utcnow().strftime("%Y-%m-%d %H:%M UTC"),
        "totals": {
            "queued": summary["queued"],
            "classified": sum(summary["classified"].values()),
            "by_label": dict(sorted(summary["classified"].items())),
            "merged": store.count_review_changes(since, ["MERGE"]),
            "superseded": store.count_review_changes(since, ["SUPERSEDE"]),
            "held": ended.get("held", 0),
            "rejected": ended.get("rejected", 0),
            "dropped": ended.get("dropped", 0),
            "held_events": held_events,
        },
        "runs": rows,
        "p90_trend": " -> ".join(r["p90_text"] for r in rows if r["p90"] is not None),
        "gate_floor": cfg.gate_floor,
        "gate_high": cfg.gate_high,
        "feedback": {
            "records": total_feedback,
            "cold_start": cfg.feedback_cold_start,
            "active": past_cold_start(total_feedback, cfg),
            "since": store.feedback_total(since),
        },
        "breaker_open": bool(breaker_state(ctx).get("open")),
        "trips": trips,
        "llm": {
            "calls": sum(r.llm_calls for r in runs),
            "prompt_tokens": sum(r.prompt_tokens for r in runs),
            "completion_tokens": sum(r.completion_tokens for r in runs),
        },
    }


def report(ctx: Context, since: datetime | timedelta | str | None = "7d", fmt: str = "md") -> str:
    """The report as Markdown (``md``) or a standalone HTML page (``html``)."""
    if fmt not in ("md", "html"):
        raise InvalidInput(f"format must be md or html; got {fmt!r}")
    data = report_data(ctx, parse_since(since))
    if fmt == "md":
        return _env.get_template("report.md.j2").render(**data)
    cfg = ctx.settings.review
    p90s = [(str(r["id"]), r["p90"]) for r in data["runs"] if r["p90"] is not None]
    merges = [(str(r["id"]), float(r["merged"])) for r in data["runs"]]
    return _env.get_template("report.html.j2").render(
        **data,
        p90_svg=line_svg(p90s, refs=[cfg.gate_floor, cfg.gate_high], label="P90"),
        merges_svg=bar_svg(merges, label="merges"),
    )


def _scale(lo: float, hi: float, size: int) -> tuple[float, float]:
    span = (hi - lo) or 1.0
    return lo, (size - 2 * _PAD) / span


def line_svg(points: Sequence[tuple[str, float]], *, refs: Sequence[float], label: str) -> Markup:
    """A polyline of values over runs, with dashed reference lines (e.g. floor, high)."""
    if not points:
        return Markup(_frame(f"no {escape(label)} yet"))
    values = [v for _, v in points] + list(refs)
    lo, k = _scale(min(values), max(values), _H)
    step = (_W - 2 * _PAD) / max(1, len(points) - 1)

    def y(v: float) -> float:
        return _H - _PAD - (v - lo) * k

    coords = " ".join(f"{_PAD + i * step:.1f},{y(v):.1f}" for i, (_, v) in enumerate(points))
    parts = [
        f'<line x1="{_PAD}" x2="{_W - _PAD}" y1="{y(r):.1f}" y2="{y(r):.1f}" '
        f'stroke="#999" stroke-dasharray="4 3"/><text x="{_W - _PAD + 2}" y="{y(r) + 4:.1f}" '
        f'font-size="10">{r:.2f}</text>'
        for r in refs
    ]
    parts.append(f'<polyline fill="none" stroke="#2563eb" stroke-width="2" points="{coords}"/>')
    for i, (name, v) in enumerate(points):
        x = _PAD + i * step
        parts.append(
            f'<circle cx="{x:.1f}" cy="{y(v):.1f}" r="3" fill="#2563eb">'
            f"<title>run {escape(name)}: {v:.3f}</title></circle>"
            f'<text x="{x:.1f}" y="{_H - 8}" font-size="10" '
            f'text-anchor="middle">{escape(name)}</text>'
        )
    return Markup(_frame("".join(parts), escape(label)))


def bar_svg(bars: Sequence[tuple[str, float]], *, label: str) -> Markup:
    """One bar per run."""
    if not bars:
        return Markup(_frame(f"no {escape(label)} yet"))
    top = max(max(v for _, v in bars), 1.0)
    _, k = _scale(0.0, top, _H)
    width = (_W - 2 * _PAD) / len(bars)
    parts = []
    for i, (name, v) in enumerate(bars):
        x = _PAD + i * width
        h = v * k
        parts.append(
            f'<rect x="{x + width * 0.15:.1f}" y="{_H - _PAD - h:.1f}" width="{width * 0.7:.1f}" '
            f'height="{h:.1f}" fill="#16a34a"><title>run {escape(name)}: {v:g}</title></rect>'
            f'<text x="{x + width / 2:.1f}" y="{_H - _PAD - h - 3:.1f}" font-size="10" '
            f'text-anchor="middle">{v:g}</text>'
            f'<text x="{x + width / 2:.1f}" y="{_H - 8}" font-size="10" '
            f'text-anchor="middle">{escape(name)}</text>'
        )
    return Markup(_frame("".join(parts), escape(label)))


def _frame(body: str, label: str = "") -> str:
    axis = (
        f'<line x1="{_PAD}" y1="{_H - _PAD}" x2="{_W - _PAD}" y2="{_H - _PAD}" stroke="#444"/>'
        f'<text x="4" y="14" font-size="11">{label}</text>'
    )
    if not label:
        body = f'<text x="{_W / 2}" y="{_H / 2}" text-anchor="middle">{body}</text>'
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_W}" height="{_H}" '
        f'viewBox="0 0 {_W} {_H}" role="img">{axis}{body}</svg>'
    )
