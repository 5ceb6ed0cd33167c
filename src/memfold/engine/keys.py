"""API keys of the service: create, verify, list, revoke (``memfold keys``, memfold.server).

A token is ``mf_`` + 43 url-safe characters (256 random bits). Only its SHA-256 is
stored: a slow password hash (argon2, bcrypt) guards low-entropy secrets people choose;
a 256-bit random token cannot be guessed, and a fast hash keeps every request cheap.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from memfold.errors import InvalidInput, NotFound
from memfold.model import ApiKey, Role, new_id, utcnow
from memfold.policy.validate import clean_enum, clean_id
from memfold.store.base import Store

TOKEN_PREFIX = "mf_"
# The public start of a token kept in listings: "mf_" + 8 characters.
_SHOWN_CHARS = len(TOKEN_PREFIX) + 8
_LABEL_MAX_CHARS = 200


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def check_key_request(
    role: object, user_id: object, agent_id: object, label: object
) -> tuple[Role, str | None, str | None, str]:
    """The cleaned role, user, agent and label of a new key; InvalidInput otherwise (the
    CLI checks before it opens, so bad input creates no store file)."""
    chosen = clean_enum(role, Role, "role")
    user = None if user_id is None else clean_id(user_id, "user_id")
    agent = None if agent_id is None else clean_id(agent_id, "agent_id")
    if chosen is not Role.ADMIN and user is None:
        raise InvalidInput(f"a {chosen.value} key needs a user_id (its scope)")
    if agent is not None and user is None:
        raise InvalidInput("agent_id needs a user_id")
    if not isinstance(label, str) or len(label) > _LABEL_MAX_CHARS or "\x00" in label:
        raise InvalidInput(f"label must be a string of at most {_LABEL_MAX_CHARS} characters")
    return chosen, user, agent, label


def create_key(
    store: Store,
    *,
    role: str | Role,
    user_id: str | None = None,
    agent_id: str | None = None,
    label: str = "",
) -> tuple[ApiKey, str]:
    """A new key and its token (shown once: only the hash is stored). Read and write
    keys are bound to a user (and, given an agent, to that agent); an admin key may
    name a user too, or none (any scope)."""
    chosen, user, agent, label = check_key_request(role, user_id, agent_id, label)
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    key = ApiKey(
        id=new_id(),
        prefix=token[:_SHOWN_CHARS],
        role=chosen,
        user_id=user,
        agent_id=agent,
        label=label,
        created_at=utcnow(),
    )
    store.insert_api_key(key, hash_token(token))
    return key, token


def verify_key(store: Store, token: object) -> ApiKey | None:
    """The active key this token belongs to; None for anything else (malformed,
    unknown, revoked)."""
    if not isinstance(token, str) or not token.startswith(TOKEN_PREFIX) or len(token) > 200:
        return None
    digest = hash_token(token)
    key = store.api_key_by_hash(digest)
    if key is None or not key.active:
        return None
    # The row was found by its hash; compare once more in constant time all the same.
    if not hmac.compare_digest(key.prefix, token[:_SHOWN_CHARS]):
        return None
    return key


def list_keys(store: Store, *, include_revoked: bool = False) -> list[ApiKey]:
    return store.list_api_keys(include_revoked=bool(include_revoked))


def revoke_key(store: Store, key_id: object) -> ApiKey:
    """Revoke by id, by the start of the id listings show (8 characters or more) or by
    the token's shown prefix; NotFound when nothing matches."""
    given = clean_id(key_id, "key id")
    matches = [
        k
        for k in store.list_api_keys(include_revoked=True)
        if given == k.prefix or k.id == given or (len(given) >= 8 and k.id.startswith(given))
    ]
    if not matches:
        raise NotFound(f"no API key {given!r}")
    if len(matches) > 1:
        raise InvalidInput(f"{given!r} names {len(matches)} keys; give the key id")
    revoked = store.revoke_api_key(matches[0].id, utcnow())
    if revoked is None:  # removed in between
        raise NotFound(f"no API key {given!r}")
    return revoked
