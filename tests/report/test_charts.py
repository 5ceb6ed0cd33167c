"""The report's chart policy and SVG: round ticks, shared x positions, gaps kept, labels thinned."""

from __future__ import annotations

import re

import pytest

from memfold.engine.review.report_charts import (
    FRAME,
    label_stride,
    merges_chart,
    nice_ticks,
    p90_chart,
    pad_ticks,
    x_centers,
)

REFS = [("floor", 0.85), ("high", 0.9)]


@pytest.mark.parametrize(
    ("lo", "hi", "integer", "want"),
    [
        (0.78, 0.95, False, [0.75, 0.8, 0.85, 0.9, 0.95]),
        (0.0, 12.0, True, [0.0, 5.0, 10.0, 15.0]),
        (0.0, 1.0, True, [0.0, 1.0]),
        (0.0, 3.0, True, [0.0, 1.0, 2.0, 3.0]),
        (0.87, 0.87, False, [0.75, 0.8, 0.85, 0.9, 0.95, 1.0]),
        (0.8, 0.9, False, [0.8, 0.825, 0.85, 0.875, 0.9]),
        (0.0, 0.0, True, [0.0, 1.0]),
        (0.12, 0.99, False, [0.0, 0.25, 0.5, 0.75, 1.0]),
    ],
)
def test_nice_ticks_cover_the_range_in_round_steps(
    lo: float, hi: float, integer: bool, want: list[float]
) -> None:
    ticks = nice_ticks(lo, hi, integer=integer)
    assert ticks == pytest.approx(want)
    assert ticks[0] <= lo and ticks[-1] >= hi


def test_few_ticks_are_padded_within_bounds() -> None:
    assert pad_ticks([0.85, 0.9], 0.0, 1.0) == pytest.approx([0.8, 0.85, 0.9, 0.95])
    assert pad_ticks([0.95, 1.0], 0.0, 1.0) == pytest.approx([0.85, 0.9, 0.95, 1.0])
    assert pad_ticks([0.0, 0.5, 1.0], 0.0, 1.0) == [0.0, 0.5, 1.0]  # nowhere to grow
    assert pad_ticks([0.7, 0.8, 0.9, 1.0], 0.0, 1.0) == [0.7, 0.8, 0.9, 1.0]


def test_narrow_bars_keep_their_value_in_the_tooltip_only() -> None:
    wide = merges_chart([("#1", 7.0), ("#2", 3.0)])
    narrow = merges_chart([(f"#{i}", 7.0) for i in range(100)])
    assert f'<text x="{x_centers(2)[0]:.1f}"' in wide and ">7</text>" in wide
    assert ">7</text>" not in narrow and narrow.count("7 merges</title>") == 100


def attr(svg: str, cls: str, name: str) -> list[str]:
    return re.findall(rf'class="{cls}"[^>]*?{name}="([^"]*)"', svg)


def test_both_charts_put_each_run_at_the_same_x() -> None:
    runs = ["#1", "#2", "#3"]
    p90 = p90_chart(list(zip(runs, [0.9, None, 0.8], strict=True)), REFS)
    bars = merges_chart(list(zip(runs, [3.0, 0.0, 1.0], strict=True)))
    xs = [f"{x:.1f}" for x in x_centers(3)]
    assert attr(p90, "x-tick", "data-x") == xs == attr(bars, "x-tick", "data-x")
    assert attr(p90, "p90-missing", "data-run") == ["#2"]
    assert attr(p90, "p90-point", "data-run") == ["#1", "#3"]
    assert "no P90" in p90
    # the line breaks at the gap: two lone points draw no polyline
    assert "<polyline" not in p90
    assert attr(bars, "bar", "data-value") == ["3", "0", "1"]
    assert attr(p90, "y-tick", "data-value") == ["0.75", "0.80", "0.85", "0.90", "0.95"]
    assert attr(bars, "y-tick", "data-value") == ["0", "1", "2", "3"]


def test_consecutive_points_are_joined_and_an_all_missing_chart_keeps_its_axes() -> None:
    joined = p90_chart([("#1", 0.8), ("#2", 0.9), ("#3", None), ("#4", 0.85)], REFS)
    assert joined.count("<polyline") == 1
    none = p90_chart([("#1", None), ("#2", None)], REFS)
    assert attr(none, "p90-missing", "data-run") == ["#1", "#2"]
    assert attr(none, "y-tick", "data-value") == ["0.80", "0.85", "0.90", "0.95"]


def test_no_runs_says_so() -> None:
    for svg in (p90_chart([], REFS), merges_chart([])):
        assert "no review runs in this period" in svg and "y-tick" not in svg


def test_many_runs_thin_the_labels_not_the_ticks() -> None:
    runs = [(f"#{i}", float(i % 4)) for i in range(1, 41)]
    svg = merges_chart(runs)
    stride = label_stride(40)
    assert stride == 3 and 40 / stride <= FRAME.max_x_labels
    assert len(attr(svg, "x-tick", "data-run")) == 40
    labels = re.findall(r'<g class="x-tick"[^>]*>.*?<text[^>]*>([^<]*)</text>', svg)
    assert labels[:3] == ["#1", "#4", "#7"] and len(labels) == 14


def test_run_names_are_escaped() -> None:
    svg = merges_chart([("<b>", 1.0)])
    assert "<b>" not in svg and "&lt;b&gt;" in svg
