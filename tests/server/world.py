"""Two tenants on one live server, and the table of every REST endpoint.

Each user (alice, bob) owns a memory with an edit in the log, a held merge in the
review queue and a conversation; each has a read and a write key; one admin key is
bound to no user. ``ENDPOINTS`` names every ``/v1`` route (a test checks the app has no
other), each aimed at one user's resources, so a test can call it with the other
user's key.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import httpx

from memfold.config import ReviewSettings, ServerSettings, Settings
from memfold.model import PairLabel, utcnow
from review.support import FACTS, ScriptedJudge, variant
from server.live import Live

USERS = ("alice", "bob")
SESSION = "chat-1"


def world_settings(**server: Any) -> Settings:
    # A held merge from one pair: the gate needs one pair, small scopes are all queued.
    review = ReviewSettings(gate_min_pairs=1, max_daily_queue_share=1.0)
    return Settings(review=review, server=ServerSettings(**server))


def held_judge() -> ScriptedJudge:
    judge = ScriptedJudge()
    judge.merge = lambda memories: "Noted."  # too short: the result check holds the merge
    return judge


@dataclass
class Tenant:
    user: str
    read: str
    write: str
    memory_id: str
    memory_text: str
    log_id: int
    item_id: int
    pair: tuple[str, str]
    message: str


@dataclass
class World:
    live: Live
    judge: ScriptedJudge
    admin: str
    tenants: dict[str, Tenant] = field(default_factory=dict)

    def other(self, user: str) -> Tenant:
        return next(t for name, t in self.tenants.items() if name != user)


def build_world(live: Live, judge: ScriptedJudge) -> World:
    memory = live.memory
    world = World(live, judge, live.key("admin"))
    for n, user in enumerate(USERS):
        own = memory.add(f"{user.title()} keeps bees on the roof of her flat.", user_id=user)
        edited = memory.update(own.memory.id, text=f"{user.title()} keeps bees in the garden.")
        (row,) = memory.history(edited.id)[-1:]
        fact = FACTS[n]
        old = utcnow() - timedelta(hours=1)
        a = memory.add(fact, user_id=user, created_at=old).memory.id
        b = memory.add(variant(fact), user_id=user, created_at=old).memory.id
        judge.script(fact, variant(fact), PairLabel.DUPLICATE, 0.97)
        memory.review.run(user_id=user)
        (item,) = [
            h for h in memory.review.pending()["held"] if {h["memory_a"], h["memory_b"]} == {a, b}
        ]
        message = f"{user} says: my locker code is {4711 + n}"
        chat = memory.conversation(SESSION, user_id=user)
        chat.append("user", message)
        world.tenants[user] = Tenant(
            user,
            live.key("read", user),
            live.key("write", user),
            edited.id,
            edited.text,
            row.id,
            int(item["id"]),
            (a, b),
            message,
        )
    return world


Body = Callable[[Tenant], dict[str, Any] | None]


def _none(_: Tenant) -> None:
    return None


@dataclass(frozen=True)
class Endpoint:
    """One route aimed at ``owner``'s resources. ``scoped``: another user's key gets
    404 (False: the route names no scope; its listing is checked on its own)."""

    method: str
    path: str
    role: str
    scoped: bool = True
    params: Body = _none
    body: Body = _none

    @property
    def name(self) -> str:
        return f"{self.method} {self.path}"

    def call(self, client: httpx.Client, owner: Tenant) -> httpx.Response:
        url = self.path.format(
            memory_id=owner.memory_id,
            log_id=owner.log_id,
            item_id=owner.item_id,
            session_id=SESSION,
        )
        return client.request(self.method, url, params=self.params(owner), json=self.body(owner))


def _user(t: Tenant) -> dict[str, Any]:
    return {"user_id": t.user}


ENDPOINTS: tuple[Endpoint, ...] = (
    # memories
    Endpoint("POST", "/v1/memories", "write", body=lambda t: {"text": "x likes figs", **_user(t)}),
    Endpoint("GET", "/v1/memories", "read", params=_user),
    Endpoint("DELETE", "/v1/memories", "write", params=_user),
    Endpoint("POST", "/v1/memories/search", "read", body=lambda t: {"query": "bees", **_user(t)}),
    Endpoint("GET", "/v1/memories/{memory_id}", "read"),
    Endpoint("PUT", "/v1/memories/{memory_id}", "write", body=lambda t: {"text": "bees gone"}),
    Endpoint("DELETE", "/v1/memories/{memory_id}", "write"),
    Endpoint("GET", "/v1/memories/{memory_id}/history", "read"),
    Endpoint("POST", "/v1/memories/{memory_id}/feedback", "write", body=lambda t: {"kind": "used"}),
    Endpoint("GET", "/v1/memories/{memory_id}/links", "read"),
    Endpoint("GET", "/v1/graph", "read", params=_user),
    # the log
    Endpoint("GET", "/v1/log", "read", scoped=False),
    Endpoint("GET", "/v1/log", "read", params=lambda t: {"memory_id": t.memory_id}),
    Endpoint("GET", "/v1/log/{log_id}", "read"),
    Endpoint("POST", "/v1/log/{log_id}/undo", "write", body=lambda t: {"cascade": True}),
    # review
    Endpoint("GET", "/v1/review/status", "read", scoped=False),
    Endpoint("GET", "/v1/review/pending", "read", scoped=False),
    Endpoint("POST", "/v1/review/items/{item_id}/approve", "write"),
    Endpoint("POST", "/v1/review/items/{item_id}/reject", "write", body=lambda t: {"reason": "no"}),
    Endpoint("POST", "/v1/review/run", "write", body=_user),
    Endpoint("POST", "/v1/review/resume", "admin", scoped=False),
    # the lifecycle
    Endpoint("POST", "/v1/tick", "admin", scoped=False),
    # conversations
    Endpoint(
        "POST",
        "/v1/conversations/{session_id}/messages",
        "write",
        body=lambda t: {"messages": [{"role": "user", "content": "hi"}], **_user(t)},
    ),
    Endpoint("GET", "/v1/conversations/{session_id}/messages", "read", params=_user),
    Endpoint("GET", "/v1/conversations/{session_id}/export", "read", params=_user),
    Endpoint("GET", "/v1/conversations/{session_id}/summary", "read", params=_user),
    Endpoint(
        "POST",
        "/v1/conversations/{session_id}/notes",
        "write",
        body=lambda t: {"text": "likes figs", **_user(t)},
    ),
    Endpoint(
        "POST",
        "/v1/conversations/{session_id}/window",
        "write",
        body=lambda t: {"user_message": "what about bees?", **_user(t)},
    ),
)
