"""The Markdown report and the HTML page's text keep a run without a P90 in view."""

from __future__ import annotations

from memfold import Memory


def test_markdown_trend_and_table_keep_the_run_without_p90(report_mem: Memory) -> None:
    md = report_mem.review.report("7d", "md")
    assert "P90 trend: 0.870 -> no P90 -> 0.910 -> 0.780 -> 0.950" in md
    assert "| 2 |" in md and "| done | - |" in md


def test_html_page_has_both_charts_and_the_gap(report_mem: Memory) -> None:
    html = report_mem.review.report("7d", "html")
    assert 'id="p90-chart"' in html and 'id="merges-chart"' in html
    assert html.count('class="bar"') == 5 and html.count('class="p90-point"') == 4
    assert html.count('class="p90-missing" data-run="#2"') == 1
