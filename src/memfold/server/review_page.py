"""The review page at ``/review``: plain HTML forms, no JavaScript, for write and admin keys.

Pages: the queue (``/review``: held merges, contradictions, supersedes, flagged memories,
the breaker), the log with before/after diffs (``/review/log``) and the report's plots
(``/review/report``). Actions are form posts that answer 303 back to their page with a
one-time message: approve, reject, undo, resume (admin), log in, log out. Who may see
what: review_page_views.py; the cookie and the Origin check: review_page_session.py.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib.resources import files
from typing import Any

import jinja2
from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from starlette.concurrency import run_in_threadpool

from memfold.errors import InvalidInput, MemfoldError
from memfold.memory import Memory
from memfold.model import ApiKey, Role, shown_action
from memfold.policy.validate import clean_int
from memfold.server import review_page_views as views
from memfold.server.review_page_session import (
    SECURITY_HEADERS,
    Refusal,
    clear_flash,
    clear_key_cookie,
    foreign_origin,
    form_fields,
    page_key,
    presented_token,
    redirect,
    set_key_cookie,
    take_flash,
)
from memfold.server.visibility import owned_item, owned_log

router = APIRouter(prefix="/review", include_in_schema=False)

_templates = jinja2.Environment(
    loader=jinja2.PackageLoader("memfold.server", "templates"),
    autoescape=True,
    trim_blocks=True,
    lstrip_blocks=True,
)
_templates.filters["shown_action"] = shown_action
_CSS = files("memfold.server").joinpath("templates", "review.css").read_text("utf-8")

QUEUE, LOG, REPORT = "/review", "/review/log", "/review/report"


def _memory(request: Request) -> Memory:
    memory: Memory = request.app.state.memory
    return memory


def _page(
    request: Request, template: str, *, status: int = 200, key: ApiKey | None = None, **data: Any
) -> HTMLResponse:
    flash, flash_error = take_flash(request)
    html = _templates.get_template(template).render(
        key=key,
        is_admin=key is not None and key.role is Role.ADMIN,
        path=request.url.path,
        flash=flash,
        flash_error=flash_error,
        **data,
    )
    response = HTMLResponse(html, status_code=status, headers=SECURITY_HEADERS)
    clear_flash(request, response)
    return response


def _login(request: Request, error: str = "", status: int = 200) -> HTMLResponse:
    response = _page(request, "review_login.html.j2", status=status, error=error)
    if error:
        clear_key_cookie(response)  # a revoked or refused key is logged out
    return response


def _refused_origin(request: Request) -> HTMLResponse:
    return _page(
        request,
        "review_refused.html.j2",
        status=403,
        reason="This form was posted from another site's page, so it was refused.",
    )


async def _viewer(request: Request) -> ApiKey | Refusal:
    return await run_in_threadpool(page_key, _memory(request), presented_token(request))


def _refused_page(request: Request, refusal: Refusal) -> HTMLResponse:
    """The login form: plain when no key came, else with why the key was refused."""
    if not refusal.message:
        return _login(request)
    return _login(request, refusal.message, refusal.status)


# pages -----------------------------------------------------------------------------------


@router.get("", response_class=HTMLResponse)
async def queue_page(request: Request) -> Response:
    key = await _viewer(request)
    if isinstance(key, Refusal):
        return _refused_page(request, key)
    memory = _memory(request)
    pending = await run_in_threadpool(views.queue, memory, key)
    breaker = await run_in_threadpool(views.breaker, memory, key)
    return _page(request, "review_queue.html.j2", key=key, queue=pending, status_info=breaker)


@router.get("/log", response_class=HTMLResponse)
async def log_page(request: Request) -> Response:
    key = await _viewer(request)
    if isinstance(key, Refusal):
        return _refused_page(request, key)
    rows = await run_in_threadpool(views.log_rows, _memory(request), key)
    return _page(request, "review_log.html.j2", key=key, rows=rows)


@router.get("/report", response_class=HTMLResponse)
async def report_page(request: Request, since: str | None = None) -> Response:
    key = await _viewer(request)
    if isinstance(key, Refusal):
        return _refused_page(request, key)
    memory = _memory(request)
    period = since or memory.settings.server.review_report_since
    data: dict[str, Any] = {"since_asked": period, "report": None, "scoped": None, "error": ""}
    try:
        if key.user_id is None:
            data["report"] = await run_in_threadpool(views.report, memory, period)
        else:  # runs over every scope: the key's own scopes' rows only
            data["scoped"] = await run_in_threadpool(views.scoped_report, memory, period, key)
    except InvalidInput as exc:
        data["error"] = str(exc)
    return _page(
        request, "review_report.html.j2", key=key, status=400 if data["error"] else 200, **data
    )


@router.get("/static/review.css")
async def stylesheet() -> Response:
    return Response(_CSS, media_type="text/css", headers={"Cache-Control": "max-age=300"})


# log in and out --------------------------------------------------------------------------


@router.post("/login")
async def login(request: Request) -> Response:
    if foreign_origin(request):
        return _refused_origin(request)
    try:
        fields = await form_fields(request)
    except InvalidInput as exc:
        return _login(request, str(exc), 400)
    token = fields.get("key", "").strip()
    if not token:
        return _login(request, "Paste a write or admin key.", 400)
    key = await run_in_threadpool(page_key, _memory(request), token)
    if isinstance(key, Refusal):
        return _login(request, key.message, key.status)
    response = redirect(request, QUEUE, f"Logged in with key {key.prefix}… ({key.role.value}).")
    set_key_cookie(response, request, token)
    return response


@router.post("/logout")
async def logout(request: Request) -> Response:
    if foreign_origin(request):
        return _refused_origin(request)
    response = redirect(request, QUEUE, "Logged out.")
    clear_key_cookie(response)
    return response


# actions ---------------------------------------------------------------------------------


async def _act(
    request: Request, back: str, action: Callable[[Memory, ApiKey, dict[str, str]], str]
) -> Response:
    """Check origin and key, run ``action`` off the event loop, and go back to ``back``
    with its message, or with the error it raised (which changed nothing)."""
    if foreign_origin(request):
        return _refused_origin(request)
    key = await _viewer(request)
    if isinstance(key, Refusal):
        message = key.message or "Log in first: this action needs a write or admin key."
        return _login(request, message, key.status)
    try:
        fields = await form_fields(request)
        message = await run_in_threadpool(action, _memory(request), key, fields)
    except MemfoldError as exc:
        return redirect(request, back, str(exc), error=True)
    return redirect(request, back, message)


@router.post("/items/{item_id}/approve")
async def approve(request: Request, item_id: int) -> Response:
    def run(memory: Memory, key: ApiKey, fields: dict[str, str]) -> str:
        owned_item(key, memory, clean_int(item_id, "review item id", minimum=1))
        log_id = memory.review.approve(item_id)
        done = "applied" if log_id is not None else "acknowledged"
        logged = "" if log_id is None else f" (log #{log_id})"
        return f"Review item #{item_id} approved: {done}{logged}."

    return await _act(request, QUEUE, run)


@router.post("/items/{item_id}/reject")
async def reject(request: Request, item_id: int) -> Response:
    def run(memory: Memory, key: ApiKey, fields: dict[str, str]) -> str:
        owned_item(key, memory, clean_int(item_id, "review item id", minimum=1))
        log_id = memory.review.reject(item_id, fields.get("reason", "").strip())
        logged = "" if log_id is None else f" (log #{log_id})"
        return f"Review item #{item_id} rejected{logged}."

    return await _act(request, QUEUE, run)


@router.post("/log/{log_id}/undo")
async def undo(request: Request, log_id: int) -> Response:
    def run(memory: Memory, key: ApiKey, fields: dict[str, str]) -> str:
        owned_log(key, memory, clean_int(log_id, "log_id", minimum=1))
        written = memory.undo(log_id)
        return f"Log #{log_id} undone (undo log {', '.join(f'#{i}' for i in written)})."

    return await _act(request, LOG, run)


@router.post("/resume")
async def resume(request: Request) -> Response:
    def run(memory: Memory, key: ApiKey, fields: dict[str, str]) -> str:
        if key.role is not Role.ADMIN:
            raise InvalidInput("Resuming the breaker needs an admin key.")
        memory.review.resume()
        return "Circuit breaker closed: review runs merge again."

    return await _act(request, QUEUE, run)
