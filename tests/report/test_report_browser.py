"""The HTML report as a person sees it: rendered by Debian's chromium (driven by Playwright),
with real runs in a real SQLite store, one of them without a P90.

Not skipped when chromium is missing: it fails and says how to install it."""

from __future__ import annotations

import base64
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memfold import Memory
from report.support import RUNS

# No sandbox (root), no GPU, and no background connections (the network is closed here).
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--no-first-run",
]


def chromium_path() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        pytest.fail(
            "chromium not found: the report's screenshot test needs Debian's chromium "
            "(bash scripts/setup.sh installs it, or: apt-get install chromium)",
            pytrace=False,
        )
    return found


@pytest.fixture
def report_file(tmp_path: Path, report_mem: Memory) -> Path:
    path = tmp_path / "report.html"
    path.write_text(report_mem.review.report("7d", "html"), encoding="utf-8")
    return path


@pytest.fixture
def page(report_file: Path) -> Iterator[Any]:
    executable = chromium_path()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("playwright is missing: bash scripts/setup.sh installs the dev extra")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=executable, args=FLAGS)
        try:
            tab = browser.new_page(viewport={"width": 1000, "height": 900})
            tab.goto(report_file.as_uri())
            yield tab
        finally:
            browser.close()


def boxes(page: Any, selector: str) -> list[dict[str, Any]]:
    """Screen boxes of the matching elements, with their (or their group's) data-run and
    data-value, and their text."""
    result: list[dict[str, Any]] = page.eval_on_selector_all(
        selector,
        """els => els.map(e => { const b = e.getBoundingClientRect();
            const run = e.closest("[data-run]"), value = e.closest("[data-value]");
            return {run: run ? run.dataset.run : null, value: value ? value.dataset.value : null,
                    text: e.textContent, cx: b.x + b.width / 2, cy: b.y + b.height / 2,
                    top: b.y, bottom: b.y + b.height, w: b.width, h: b.height}; })""",
    )
    return result


def tick_scale(ticks: list[dict[str, Any]]) -> tuple[float, float]:
    """(screen y of value 0, pixels per unit), from the first and last y tick's line."""
    (lo, y_lo), (hi, y_hi) = ((float(t["value"]), t["cy"]) for t in (ticks[0], ticks[-1]))
    per = (y_lo - y_hi) / (hi - lo)
    return y_lo + lo * per, per


def test_axes_ticks_alignment_and_the_run_without_p90(page: Any, tmp_path: Path) -> None:
    p90_ticks = boxes(page, "#p90-chart .y-tick line:last-of-type")
    merge_ticks = boxes(page, "#merges-chart .y-tick line:last-of-type")
    p90_labels = [t["text"] for t in boxes(page, "#p90-chart .y-tick text")]
    merge_labels = [t["text"] for t in boxes(page, "#merges-chart .y-tick text")]
    assert p90_labels == ["0.75", "0.80", "0.85", "0.90", "0.95"]
    assert merge_labels == ["0", "5", "10", "15"]
    for labels in (boxes(page, "#p90-chart .y-tick text"), boxes(page, "#merges-chart text")):
        assert all(t["w"] > 0 and t["h"] > 0 for t in labels)  # laid out, not empty
    # ticks go up the axis as values grow
    assert [t["cy"] for t in p90_ticks] == sorted((t["cy"] for t in p90_ticks), reverse=True)
    assert [t["value"] for t in p90_ticks] == p90_labels
    assert [t["value"] for t in merge_ticks] == merge_labels

    runs = [f"#{i}" for i in range(1, len(RUNS) + 1)]
    for chart in ("#p90-chart", "#merges-chart"):
        x_ticks = boxes(page, f"{chart} .x-tick")
        assert [t["run"] for t in x_ticks] == runs
        assert [t["text"] for t in x_ticks] == runs  # every run labelled on the x axis
    assert {t["text"] for t in boxes(page, "#p90-chart .axis-title")} == {
        "P90 confidence",
        "review run",
    }

    # the P90 points sit at their values on the y axis ...
    zero, per = tick_scale(p90_ticks)
    points = {p["run"]: p for p in boxes(page, "#p90-chart .p90-point")}
    assert sorted(points) == ["#1", "#3", "#4", "#5"]
    for run, (p90, _) in zip(runs, RUNS, strict=True):
        if p90 is not None:
            assert points[run]["cy"] == pytest.approx(zero - p90 * per, abs=1.0)
    # ... the bars reach their values ...
    zero, per = tick_scale(merge_ticks)
    bars = {b["run"]: b for b in boxes(page, "#merges-chart .bar")}
    assert sorted(bars) == runs
    for run, (_, merged) in zip(runs, RUNS, strict=True):
        assert bars[run]["top"] == pytest.approx(zero - merged * per, abs=1.0)

    # ... and a run stands at the same screen x in both charts, and on its x tick.
    missing = boxes(page, "#p90-chart .p90-missing")
    p90_x = {p["run"]: p["cx"] for p in [*points.values(), *missing]}
    tick_x = {
        (chart, t["run"]): t["cx"]
        for chart in ("#p90-chart", "#merges-chart")
        for t in boxes(page, f"{chart} .x-tick line")
    }
    assert len({round(p["cx"]) for p in points.values()}) == 4
    for run in runs:
        assert p90_x[run] == pytest.approx(bars[run]["cx"], abs=0.5), run
        for chart in ("#p90-chart", "#merges-chart"):
            assert tick_x[chart, run] == pytest.approx(bars[run]["cx"], abs=0.5), run

    # the run without a P90 is marked, visibly, inside the plot
    assert [m["run"] for m in missing] == ["#2"]
    marker = page.locator('#p90-chart .p90-missing[data-run="#2"] text')
    assert marker.is_visible() and marker.text_content() == "no P90"
    box = boxes(page, '#p90-chart .p90-missing[data-run="#2"] text')[0]
    assert p90_ticks[-1]["cy"] <= box["top"] and box["bottom"] <= p90_ticks[0]["cy"]

    # the screenshot shows the charts: blue P90 points, green bars, the grey gap band
    shot = page.locator(".charts").screenshot(path=str(tmp_path / "charts.png"))
    counts = pixel_counts(page, shot)
    assert counts["total"] > 100_000
    assert counts["blue"] > 100 and counts["green"] > 2_000 and counts["gap"] > 1_000
    assert counts["dark"] > 500  # axis lines and tick labels
    assert counts["nonwhite"] / counts["total"] > 0.05


def pixel_counts(page: Any, png: bytes) -> dict[str, int]:
    """Count pixels by colour in the PNG, decoded by the browser's own canvas."""
    counts: dict[str, int] = page.evaluate(
        """async (src) => {
            const img = new Image(); img.src = src; await img.decode();
            const c = document.createElement("canvas");
            c.width = img.width; c.height = img.height;
            const g = c.getContext("2d"); g.drawImage(img, 0, 0);
            const d = g.getImageData(0, 0, c.width, c.height).data;
            const near = (i, r, gr, b) =>
                Math.abs(d[i] - r) + Math.abs(d[i + 1] - gr) + Math.abs(d[i + 2] - b) < 40;
            const n = {total: d.length / 4, blue: 0, green: 0, gap: 0, dark: 0, nonwhite: 0};
            for (let i = 0; i < d.length; i += 4) {
                if (near(i, 0x25, 0x63, 0xeb)) n.blue++;
                if (near(i, 0x16, 0xa3, 0x4a)) n.green++;
                if (d[i] === 0xf3 && d[i + 1] === 0xf4 && d[i + 2] === 0xf6) n.gap++;
                if (d[i] + d[i + 1] + d[i + 2] < 300) n.dark++;
                if (d[i] + d[i + 1] + d[i + 2] < 750) n.nonwhite++;
            }
            return n;
        }""",
        "data:image/png;base64," + base64.b64encode(png).decode("ascii"),
    )
    return counts
