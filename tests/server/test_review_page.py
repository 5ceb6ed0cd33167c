"""The review page (/review) in real Chromium against the real server on a loopback port.

One server (server.live), one store and one browser for the module; each test logs in
in a fresh browser context as its own user, whose held merge it created through a review
run with a scripted judge whose merge text the result check refuses (server.world).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta

import httpx
import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from memfold import Memory, Status
from memfold.embed.local import LocalEmbedder
from memfold.engine.keys import revoke_key
from memfold.engine.review.runs import BREAKER_KEY
from memfold.model import PairLabel, utcnow
from review.support import FACTS, ScriptedJudge, variant
from server.browser import chromium
from server.live import Live, live_server
from server.world import held_judge, world_settings


@dataclass
class Held:
    """One user's held merge: its queue item, the two memories it would merge (in the
    queue's order) and the fact they both state."""

    item_id: int
    a: str
    b: str
    fact: str


@dataclass
class Served:
    live: Live
    judge: ScriptedJudge

    @property
    def url(self) -> str:
        return self.live.base_url

    @property
    def memory(self) -> Memory:
        return self.live.memory

    def hold_merge(self, user: str, fact: str) -> Held:
        old = utcnow() - timedelta(hours=1)
        a = self.memory.add(fact, user_id=user, created_at=old).memory.id
        b = self.memory.add(variant(fact), user_id=user, created_at=old).memory.id
        self.judge.script(fact, variant(fact), PairLabel.DUPLICATE, 0.97)
        self.memory.review.run(user_id=user)
        (item,) = [
            h
            for h in self.memory.review.pending()["held"]
            if {h["memory_a"], h["memory_b"]} == {a, b}
        ]
        # a and b in the queue's order: the page shows memory_a on the left.
        return Held(int(item["id"]), str(item["memory_a"]), str(item["memory_b"]), fact)

    def key(self, role: str, user: str | None = None) -> str:
        return self.live.key(role, user)

    def item_status(self, item_id: int) -> str:
        item = self.memory.store.get_queue_item(item_id)
        assert item is not None
        return item.status


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory, embedder: LocalEmbedder) -> Iterator[Served]:
    path = tmp_path_factory.mktemp("review_page") / "memfold.db"
    judge = held_judge()
    with live_server(path, embedder, settings=world_settings(), judge=judge) as live:
        yield Served(live, judge)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as launched:
        yield launched


@pytest.fixture
def context(browser: Browser, served: Served) -> Iterator[BrowserContext]:
    ctx = browser.new_context(base_url=served.url)
    ctx.set_default_timeout(10_000)
    yield ctx
    ctx.close()


def log_in(page: Page, token: str) -> None:
    """With the keyboard: focus the key field, type, press Enter."""
    page.goto("/review")
    page.get_by_label("API key").focus()
    page.keyboard.type(token)
    with page.expect_navigation():
        page.keyboard.press("Enter")


def press(page: Page, selector: str) -> None:
    page.locator(selector).focus()
    page.keyboard.press("Enter")


def test_approve_a_held_merge_see_its_diff_and_undo_it(
    served: Served, context: BrowserContext
) -> None:
    held = served.hold_merge("ann", FACTS[0])
    page = context.new_page()
    log_in(page, served.key("write", "ann"))
    expect(page.locator("#flash")).to_contain_text("Logged in")
    item = page.locator(f"#item-{held.item_id}")
    expect(item.locator(".text-a")).to_have_text(served.memory.get(held.a).text)
    expect(item.locator(".text-b")).to_have_text(served.memory.get(held.b).text)
    expect(item.locator(".proposal")).to_have_text("Noted.")

    press(page, f"#approve-{held.item_id}")
    expect(page.locator("#flash")).to_contain_text(f"#{held.item_id} approved: applied")
    expect(page.locator(f"#item-{held.item_id}")).to_have_count(0)
    assert served.memory.get(held.a).status is Status.ARCHIVED
    assert served.memory.get(held.b).status is Status.ARCHIVED

    page.get_by_role("link", name="Log").click()
    (merge,) = [e for e in served.memory.log(20) if e.action == "MERGE" and held.a in e.input_ids]
    row = page.locator(f"#log-{merge.id}")
    expect(row.locator("ins")).to_have_text("Noted.")
    expect(row.locator("del")).to_contain_text(held.fact)
    expect(row).to_contain_text("active → archived")

    press(page, f"#undo-{merge.id}")
    expect(page.locator("#flash")).to_contain_text(f"Log #{merge.id} undone")
    expect(page.locator(f"#log-{merge.id}")).to_contain_text("undone by")
    # Undoing it again is refused with the undo's own message, and changes nothing.
    before = served.live.fingerprint()
    page.request.post(f"/review/log/{merge.id}/undo", max_redirects=0)
    page.reload()
    expect(page.locator("#flash.flash-error")).to_contain_text("was already undone")
    assert served.live.fingerprint() == before
    assert served.memory.get(held.a).status is Status.ACTIVE
    assert served.memory.get(held.b).status is Status.ACTIVE
    assert {served.memory.get(m).text for m in (held.a, held.b)} == {held.fact, variant(held.fact)}


def test_wrong_or_read_key_is_refused_and_changes_nothing(
    served: Served, context: BrowserContext
) -> None:
    held = served.hold_merge("bea", FACTS[1])
    read_key = served.key("read", "bea")
    before = served.live.fingerprint()
    page = context.new_page()
    for token, message in [
        ("mf_" + "x" * 43, "unknown or revoked"),
        (read_key, "read key cannot use the review page"),
    ]:
        log_in(page, token)
        expect(page.locator("#login-error")).to_contain_text(message)
        expect(page.get_by_label("API key")).to_be_visible()
    assert context.cookies() == []
    # A post without a key acts on nothing.
    answer = page.request.post(f"/review/items/{held.item_id}/approve", max_redirects=0)
    assert answer.status == 401
    assert served.live.fingerprint() == before


def test_a_second_users_key_neither_sees_nor_acts_on_the_first_users_item(
    served: Served, context: BrowserContext
) -> None:
    first = served.hold_merge("cyd", FACTS[2])
    second = served.hold_merge("dan", FACTS[3])
    page = context.new_page()
    dan = served.key("write", "dan")
    log_in(page, dan)
    expect(page.locator(f"#item-{second.item_id}")).to_be_visible()
    expect(page.locator(f"#item-{first.item_id}")).to_have_count(0)
    expect(page.locator("main")).not_to_contain_text(first.fact)
    # Posting the other user's item id: the same answer as an unknown id, nothing done.
    page.request.post(f"/review/items/{first.item_id}/approve", max_redirects=0)
    page.reload()
    expect(page.locator("#flash")).to_contain_text(f"no review item {first.item_id}")
    assert served.item_status(first.item_id) == "held"
    # The first user's logged merge is not in the second user's log.
    merge_id = served.memory.review.approve(first.item_id)
    page.get_by_role("link", name="Log").click()
    expect(page.get_by_role("heading", name="Change log")).to_be_visible()
    expect(page.locator(f"#log-{merge_id}")).to_have_count(0)
    expect(page.locator("main")).not_to_contain_text(first.fact)
    # A key revoked meanwhile is logged out at the next request.
    revoke_key(served.memory.store, dan[:11])
    page.reload()
    expect(page.locator("#login-error")).to_contain_text("unknown or revoked")
    assert all(c["name"] != "memfold_review_key" for c in context.cookies())


def test_a_post_from_a_foreign_origin_is_refused(served: Served) -> None:
    held = served.hold_merge("eve", FACTS[4])
    token = served.key("write", "eve")
    with httpx.Client(base_url=served.url) as client:
        bearer = {"Authorization": f"Bearer {token}"}
        refused = client.post(
            f"/review/items/{held.item_id}/approve",
            headers={**bearer, "Origin": "http://evil.example"},
        )
        assert refused.status_code == 403 and "refused" in refused.text
        assert served.item_status(held.item_id) == "held"
        login = client.post(
            "/review/login", data={"key": token}, headers={"Origin": "http://evil.example"}
        )
        assert login.status_code == 403 and "set-cookie" not in login.headers
        # The same post from the server's own origin acts.
        done = client.post(
            f"/review/items/{held.item_id}/reject",
            headers={**bearer, "Origin": served.url},
            data={"reason": "not the same fact"},
        )
        assert done.status_code == 303
    assert served.item_status(held.item_id) == "rejected"


def test_admin_sees_the_plots_and_resumes_the_breaker(
    served: Served, context: BrowserContext
) -> None:
    served.hold_merge("fay", FACTS[5])  # a review run for the plots
    served.memory.store.set_meta(BREAKER_KEY, json.dumps({"open": True, "run_id": 1}))
    page = context.new_page()
    log_in(page, served.key("admin"))
    # The first Tab stop is the skip link; focused controls draw a visible outline.
    page.keyboard.press("Tab")
    expect(page.locator(".skip-link")).to_be_focused()
    page.locator("#resume").focus()
    assert page.locator("#resume").evaluate("e => getComputedStyle(e).outlineStyle") == "solid"
    expect(page.locator("#breaker-state")).to_contain_text("Open")
    press(page, "#resume")
    expect(page.locator("#breaker-state")).to_contain_text("Closed")
    assert served.memory.review.status()["breaker"]["open"] is False
    page.get_by_role("link", name="Report").click()
    expect(page.locator("#p90-chart svg .p90-point").first).to_be_visible()
    expect(page.locator("#merges-chart svg")).to_be_visible()
    press(page, "#logout")
    expect(page.get_by_label("API key")).to_be_visible()


def test_a_users_key_sees_the_plots_of_its_own_scope_only(
    served: Served, context: BrowserContext
) -> None:
    served.hold_merge("gus", FACTS[6])
    served.hold_merge("hal", FACTS[7])
    page = context.new_page()
    log_in(page, served.key("write", "gus"))
    page.get_by_role("link", name="Report").click()
    expect(page.locator("#report-scoped")).to_be_visible()
    expect(page.locator("#p90-chart svg .p90-point").first).to_be_visible()
    expect(page.locator("#merges-chart svg")).to_be_visible()
    table = page.locator(".charts table")
    expect(table).to_contain_text("u=gus|a=|s=")
    expect(table).not_to_contain_text("hal")  # another tenant's run is not listed
    assert "Pairs queued" not in page.content()  # store-wide totals: unbound keys only
