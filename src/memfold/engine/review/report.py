"""The weekly self-improvement report over review runs and the consolidation log.

Markdown or HTML (jinja2 templates in ``memfold/templates``). The HTML page's two charts
(P90 per run, merges per run; ``report_charts``) are inline SVG with aligned x axes.
"""

from __future__ import annotations

from datetime import datetime, timedelta

import jinja2

from memfold.engine.context import Context
from memfold.engine.review.report_charts import merges_chart, p90_chart
from memfold.engine.review.runs import breaker_state, parse_since
from memfold.errors import InvalidInput
from memfold.model import JSONDict, utcnow
from memfold.policy.review import gate_reasons, past_cold_start

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
                "why": gate_reasons(gates),
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
        "p90_trend": " -> ".join("no P90" if r["p90"] is None else r["p90_text"] for r in rows)
        if any(r["p90"] is not None for r in rows)
        else "",
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
    runs = data["runs"]
    return _env.get_template("report.html.j2").render(
        **data,
        p90_svg=p90_chart(
            [(f"#{r['id']}", r["p90"]) for r in runs],
            refs=[("floor", cfg.gate_floor), ("high", cfg.gate_high)],
        ),
        merges_svg=merges_chart([(f"#{r['id']}", float(r["merged"])) for r in runs]),
    )
