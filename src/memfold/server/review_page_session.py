"""Who is looking at the review page, and whether a form post may act.

A browser cannot send a Bearer header from links and forms, so the page keeps the key in
a cookie: HttpOnly (no script reads it), SameSite=Strict (no other site's page sends
it), Secure over HTTPS, scoped to /review. Every request verifies the key again, so a
revoked key is logged out at its next click. A Bearer header works too (scripts, tests).

Form posts are also refused when their Origin header names another origin: SameSite
already keeps the cookie off cross-site posts, the Origin check covers a browser or a
proxy that gets that wrong, and login posts, which carry no cookie yet.
"""

from __future__ import annotations

from typing import NamedTuple
from urllib.parse import parse_qs, quote, unquote

from fastapi import Request
from fastapi.responses import RedirectResponse, Response

from memfold.engine.keys import verify_key
from memfold.errors import InvalidInput
from memfold.memory import Memory
from memfold.model import ApiKey, Role
from memfold.server.auth import bearer_token

COOKIE = "memfold_review_key"
FLASH_COOKIE = "memfold_review_flash"
PATH = "/review"
_FLASH_MAX_CHARS = 600


def presented_token(request: Request) -> str | None:
    """The key the request carries: a Bearer header first, else the page's cookie."""
    return bearer_token(request) or request.cookies.get(COOKIE)


class Refusal(NamedTuple):
    """Why a request may not use the page: ``message`` ("" when it carried no key at all)
    and the HTTP status to answer with (401: no, unknown or revoked key; 403: read key)."""

    message: str
    status: int


def page_key(memory: Memory, token: str | None) -> ApiKey | Refusal:
    """The key, when it is active and may use the page (write or admin)."""
    if not token:
        return Refusal("", 401)
    key = verify_key(memory.store, token)
    if key is None:
        return Refusal("That key is unknown or revoked.", 401)
    if not key.role.allows(Role.WRITE):
        message = f"A {key.role.value} key cannot use the review page: it needs write or admin."
        return Refusal(message, 403)
    return key


def own_origin(request: Request) -> str:
    return f"{request.url.scheme}://{request.url.netloc}"


def foreign_origin(request: Request) -> bool:
    """A post whose Origin header is present and not this server's (``null`` included)."""
    origin = request.headers.get("origin")
    return origin is not None and origin != own_origin(request)


async def form_fields(request: Request) -> dict[str, str]:
    """An urlencoded form's fields (the first value of each); a body over
    ``server.max_body_bytes`` or of another type is InvalidInput."""
    memory: Memory = request.app.state.memory
    limit = memory.settings.server.max_body_bytes
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise InvalidInput(f"the form is over {limit} bytes")
    if not body:
        return {}
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/x-www-form-urlencoded":
        raise InvalidInput("the review page takes urlencoded forms only")
    try:
        parsed = parse_qs(body.decode("utf-8"), keep_blank_values=True, strict_parsing=False)
    except UnicodeDecodeError:
        raise InvalidInput("the form is not UTF-8") from None
    return {name: values[0] for name, values in parsed.items()}


def set_key_cookie(response: Response, request: Request, token: str) -> None:
    response.set_cookie(
        COOKIE,
        token,
        path=PATH,
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
    )


def clear_key_cookie(response: Response) -> None:
    response.delete_cookie(COOKIE, path=PATH, httponly=True, samesite="strict")


def redirect(request: Request, to: str, flash: str = "", *, error: bool = False) -> Response:
    """303 to a page of /review (``to`` is always one of ours), with a one-time message."""
    response = RedirectResponse(to, status_code=303)
    if flash:
        text = ("!" if error else "") + flash[:_FLASH_MAX_CHARS]
        response.set_cookie(
            FLASH_COOKIE,
            quote(text, safe=""),
            path=PATH,
            httponly=True,
            samesite="strict",
            secure=request.url.scheme == "https",
        )
    return response


def take_flash(request: Request) -> tuple[str, bool]:
    """The message left by the last action and whether it is an error ("" when none);
    the caller clears the cookie on its response."""
    raw = unquote(request.cookies.get(FLASH_COOKIE, ""))
    if raw.startswith("!"):
        return raw[1:], True
    return raw, False


def clear_flash(request: Request, response: Response) -> None:
    if FLASH_COOKIE in request.cookies:
        response.delete_cookie(FLASH_COOKIE, path=PATH, httponly=True, samesite="strict")


SECURITY_HEADERS = {
    # No script at all; styles from our own stylesheet; forms post only to us.
    "Content-Security-Policy": (
        "default-src 'none'; style-src 'self'; img-src 'self'; "
        "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    ),
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    # Not no-referrer: under it Chromium sends "Origin: null" with our own form posts.
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}
