"""Idempotency keys: a write sent again with the same key is done once.

A client-chosen key (the IETF draft "The Idempotency-Key HTTP Header Field", as
Stripe's keys) names one attempt at one write. The first request with a key claims it
in the store (a 'running' row holding the request's fingerprint, a SHA-256 of what was
asked), runs, and stores its outcome; a retry with the same key and the same request
gets that outcome back without running again; the same key with another request is
refused; a retry while the first still runs is refused as in use. Whatever the first
outcome (an error too), it is the key's: to send another request, use another key.

Keys belong to an owner: the REST caller's API key (``key:`` + its id;
memfold.server.idempotency) or ``Memory.add``'s scope (``scope:`` + its key;
``add_once``), so two tenants' equal keys are independent and one never sees the
other's outcome. A key lives ``server.idempotency_ttl_s`` (a day) from its first
request; expired rows are purged by later claims.

The write and its stored outcome are two transactions (the write runs through the
engine's own): a process that dies between them, or a store that fails to record the
outcome, leaves the claim 'running'. A retry is then refused as in use until
``server.idempotency_claim_ttl_s`` (a day by default) passes, and only then runs again:
the choice errs on the side of never doing a write twice.
"""

from __future__ import annotations

import hashlib
import json
import logging
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from enum import Enum
from typing import Any

from memfold.config import ServerSettings
from memfold.engine.context import Context
from memfold.engine.conversation.add import MemoryEvent, MessagesAddResult
from memfold.errors import ConflictError, InvalidInput, NotFound
from memfold.model import Action, AddResult, Area, Category, Decision, JSONDict, Scope
from memfold.store.base import IdempotencyEntry, Store

log = logging.getLogger(__name__)

RUNNING, DONE = "running", "done"
KEY_OWNER, SCOPE_OWNER = "key:", "scope:"
_JSON = "application/json"

Added = AddResult | MessagesAddResult


def clean_idempotency_key(raw: object, max_chars: int) -> str:
    """The key as given: 1 to ``max_chars`` printable ASCII characters (space to '~'),
    not blank; else InvalidInput saying what is wrong."""
    if not isinstance(raw, str):
        raise InvalidInput(f"the idempotency key must be a string, got {type(raw).__name__}")
    if not raw.strip():
        raise InvalidInput("the idempotency key is empty")
    if len(raw) > max_chars:
        raise InvalidInput(
            f"the idempotency key has {len(raw)} characters, more than {max_chars} "
            "(server.idempotency_key_max_chars)"
        )
    bad = next((c for c in raw if not " " <= c <= "~"), None)
    if bad is not None:
        raise InvalidInput(
            f"the idempotency key may hold printable ASCII characters only, not {bad!r}"
        )
    return raw


def fingerprint(*parts: bytes) -> str:
    """SHA-256 of the parts, each length-prefixed (no two part lists hash alike)."""
    digest = hashlib.sha256()
    for part in parts:
        digest.update(len(part).to_bytes(8, "big"))
        digest.update(part)
    return digest.hexdigest()


@dataclass(frozen=True, slots=True)
class Claimed:
    """A key this request holds: finish it with the outcome, or release it."""

    owner: str
    key: str
    token: str
    created_at: datetime


def claim(
    store: Store, cfg: ServerSettings, now: datetime, owner: str, key: str, request_digest: str
) -> Claimed | IdempotencyEntry:
    """Claim ``key`` of ``owner`` for a request with fingerprint ``request_digest``; when it is
    held already, its row (the caller compares the fingerprint and the state)."""
    token = secrets.token_hex(16)
    expires = now + timedelta(seconds=cfg.idempotency_claim_ttl_s)
    found = store.claim_idempotency_key(
        owner, key, fingerprint=request_digest, claim=token, now=now, expires_at=expires
    )
    return Claimed(owner, key, token, now) if found is None else found


def finish(
    store: Store,
    cfg: ServerSettings,
    held: Claimed,
    status: int,
    body: str,
    content_type: str | None = _JSON,
) -> bool:
    """Store the outcome, kept ``idempotency_ttl_s`` from the first request."""
    expires = held.created_at + timedelta(seconds=cfg.idempotency_ttl_s)
    return store.finish_idempotency_key(
        held.owner,
        held.key,
        claim=held.token,
        status=status,
        content_type=content_type,
        body=body,
        expires_at=expires,
    )


def release(store: Store, held: Claimed) -> None:
    """The request did not run: the key is free again."""
    store.release_idempotency_key(held.owner, held.key, claim=held.token)


# Memory.add(idempotency_key=...) -------------------------------------------------------


def add_once(
    ctx: Context, scope: Scope, key: object, args: Mapping[str, Any], run: Callable[[], Added]
) -> Added:
    """``run()`` (the add with ``args``) once for ``key`` in ``scope``: a second call
    with the same key and arguments gets the first result back (``replayed`` set; its
    memories as they are now), with other arguments InvalidInput, while the first still
    runs ConflictError; a first call that raised makes every retry raise ConflictError
    naming that error (it may have stored part of its work)."""
    cfg = ctx.settings.server
    clean = clean_idempotency_key(key, cfg.idempotency_key_max_chars)
    request_digest = fingerprint(b"Memory.add", _canonical(args))
    got = claim(ctx.store, cfg, ctx.clock(), SCOPE_OWNER + scope.key(), clean, request_digest)
    if isinstance(got, IdempotencyEntry):
        return _replay(ctx.store, got, request_digest)
    try:
        result = run()
    except Exception as exc:
        failed = {"error": {"type": type(exc).__name__, "message": str(exc)}}
        _keep(ctx.store, cfg, got, 500, failed)
        raise
    _keep(ctx.store, cfg, got, 200, _encode(result))
    return result


def _keep(store: Store, cfg: ServerSettings, held: Claimed, status: int, body: JSONDict) -> None:
    """``finish``, where a failure to store the outcome is logged, not raised: the add's
    own result (or error) is what the caller gets; the key stays claimed (see the
    module docstring)."""
    try:
        finish(store, cfg, held, status, json.dumps(body, ensure_ascii=False))
    except Exception:
        log.exception("could not store the outcome of idempotency key %r", held.key)


def _canonical(args: Mapping[str, Any]) -> bytes:
    try:
        text = json.dumps(args, sort_keys=True, default=_plain, ensure_ascii=False)
    except (TypeError, ValueError):  # keys that do not sort: the call's own repr
        text = repr(sorted(args.items(), key=lambda kv: kv[0]))
    return text.encode("utf-8", "surrogatepass")


def _plain(value: object) -> object:
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, timedelta):
        return value.total_seconds()
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, Mapping):
        return dict(value)
    tolist = getattr(value, "tolist", None)  # a numpy vector
    if callable(tolist):
        return tolist()
    if isinstance(value, set | frozenset):
        return sorted(value, key=repr)
    return repr(value)  # nothing add takes (it refuses it): not iterated, not consumed


def _encode_one(result: AddResult) -> JSONDict:
    decision = None if result.decision is None else result.decision.to_dict()
    return {
        "memory_id": result.memory.id,
        "decision": decision,
        "log_id": result.log_id,
        "job_id": result.job_id,
        "warnings": list(result.warnings),
    }


def _encode(result: Added) -> JSONDict:
    if isinstance(result, MessagesAddResult):
        added = [_encode_one(a) for a in result.added]
        events = [e.to_dict() for e in result.results]
        return {"kind": "messages", "results": events, "added": added}
    return {"kind": "text", **_encode_one(result)}


def _replay(store: Store, entry: IdempotencyEntry, request_digest: str) -> Added:
    if entry.fingerprint != request_digest:
        raise InvalidInput(
            f"the idempotency key {entry.key!r} was used for another add in this scope "
            "(other arguments); a key names one add: use a new key"
        )
    if entry.state != DONE:
        raise ConflictError(
            f"an add with the idempotency key {entry.key!r} is still running (since "
            f"{entry.created_at.isoformat()}); retry when it is done"
        )
    try:
        stored = json.loads(entry.body or "")
    except ValueError:
        raise NotFound(
            f"the add with the idempotency key {entry.key!r} was done; what it returned "
            "is no longer kept (it quoted an erased memory)"
        ) from None
    if entry.status != 200:
        error = stored.get("error", {})
        raise ConflictError(
            f"the add with the idempotency key {entry.key!r} failed ({error.get('type')}: "
            f"{error.get('message')}) and is not run again, as it may have stored part of "
            "its work: check, then use a new key"
        )
    if stored.get("kind") == "messages":
        events = [
            MemoryEvent(
                e["id"],
                e["memory"],
                e["event"],
                Area(e["area"]),
                e.get("action"),
                tuple(e.get("replaces", ())),
            )
            for e in stored["results"]
        ]
        added = [_decode_one(store, entry.key, a) for a in stored["added"]]
        return MessagesAddResult(results=events, added=added, replayed=True)
    return _decode_one(store, entry.key, stored)


def _decode_one(store: Store, key: str, stored: JSONDict) -> AddResult:
    record = store.get_memory(stored["memory_id"])
    if record is None:
        raise NotFound(
            f"the add with the idempotency key {key!r} stored memory "
            f"{stored['memory_id']}, which has since been erased"
        )
    raw = stored.get("decision")
    return AddResult(
        record,
        decision=None if raw is None else _decision(raw),
        log_id=stored.get("log_id"),
        job_id=stored.get("job_id"),
        warnings=list(stored.get("warnings", ())),
        replayed=True,
    )


def _decision(raw: JSONDict) -> Decision:
    def enum(kind: Any, value: Any) -> Any:
        return None if value is None else kind(value)

    return Decision(
        action=Action(raw["action"]),
        target_ids=list(raw.get("target_ids", ())),
        text=raw.get("text"),
        area=enum(Area, raw.get("area")),
        category=enum(Category, raw.get("category")),
        importance=raw.get("importance"),
        confidence=raw.get("confidence", 0.0),
        reasoning=raw.get("reasoning", ""),
        judge=raw.get("judge", ""),
        model=raw.get("model"),
        downgraded_from=enum(Action, raw.get("downgraded_from")),
        downgrade_reasons=list(raw.get("downgrade_reasons", ())),
        contradicts=bool(raw.get("contradicts", False)),
    )
