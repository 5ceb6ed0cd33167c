"""/docs and /redoc work offline: their scripts come from the package (fastapi-offline),
checked over HTTP and in real Chromium with every request off the loopback refused."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, Route, expect

from server.browser import chromium
from server.live import Live


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as launched:
        yield launched


def _offline_page(browser: Browser, live: Live) -> tuple[Page, list[str]]:
    """A page on the live server that may reach 127.0.0.1 only; the refused requests
    that a page needs to work (scripts, styles, data), not images or fonts."""
    refused: list[str] = []
    page = browser.new_context(base_url=live.base_url).new_page()
    page.set_default_timeout(15_000)

    def only_loopback(route: Route) -> None:
        if route.request.url.startswith(live.base_url):
            route.continue_()
        else:
            if route.request.resource_type not in ("image", "font"):
                refused.append(route.request.url)
            route.abort()

    page.route("**/*", only_loopback)
    return page, refused


@pytest.mark.parametrize("path", ["/docs", "/redoc"])
def test_the_docs_pages_load_their_assets_from_the_server(live: Live, path: str) -> None:
    client = live.client()
    html = client.get(path).text
    assets = re.findall(r'(?:src|href)="([^"]+\.(?:js|css|png))"', html)
    assert assets and all(a.startswith("/docs-assets/") for a in assets), assets
    for asset in assets:
        got = client.get(asset)
        assert got.status_code == 200 and len(got.content) > 1000, asset


def test_swagger_ui_renders_the_api_without_the_internet(browser: Browser, live: Live) -> None:
    page, refused = _offline_page(browser, live)
    page.goto("/docs")
    expect(page.locator(".opblock").first).to_be_visible()
    expect(page.get_by_text("/v1/memories/search").first).to_be_visible()
    assert refused == []


def test_redoc_renders_the_api_without_the_internet(browser: Browser, live: Live) -> None:
    page, refused = _offline_page(browser, live)
    page.goto("/redoc")
    heading = page.get_by_role("heading", name=re.compile("Add a memory"))
    expect(heading.first).to_be_visible()
    assert refused == []  # (ReDoc's own logo comes from its CDN: an image, refused)
