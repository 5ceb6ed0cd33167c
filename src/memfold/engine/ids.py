"""Memory ids given in full or by a unique prefix (what ``memfold list`` shows).

``resolve_id`` is the one place every API method that takes a memory id goes through
(``Memory._resolve_id`` binds it to the store and the configured minimum length);
``resolve_visible_id`` is the service's, for a key that sees only some scopes.
"""

from __future__ import annotations

from collections.abc import Callable

from memfold.errors import InvalidInput, NotFound
from memfold.model import MemoryRecord
from memfold.policy.validate import clean_id
from memfold.store.base import Store
from memfold.store.erasure import ErasureStore

# Ambiguous prefixes name at most this many of their matches.
_SHOWN = 5
# A caller who may see only some scopes: ids read per prefix before the others' are
# left out (a 6-hex-digit prefix shared by 64 ids takes ~10^9 memories).
_SCAN = 64


def resolve_id(store: Store, value: object, *, min_chars: int, what: str = "memory id") -> str:
    """The full id of the memory ``value`` names: the id itself, or the one id that
    starts with it (``min_chars`` characters or more; any status).

    Raises InvalidInput for a non-string, a prefix shorter than ``min_chars`` or one
    that several ids start with (naming them), NotFound when nothing matches (saying
    so when the id was erased by ``forget``)."""
    given = clean_id(value, what)
    if store.get_memory(given) is not None:
        return given
    if len(given) < min_chars:
        erased = _erased_note(store, given)
        if erased:
            raise NotFound(erased)
        raise InvalidInput(
            f"{what} {given!r} is too short: give the full id or a prefix of at least "
            f"{min_chars} characters"
        )
    found = store.ids_with_prefix(given, _SHOWN + 1)
    if len(found) == 1:
        return found[0]
    if not found:
        raise NotFound(_erased_note(store, given) or f"no memory with id {given!r}")
    shown = ", ".join(found[:_SHOWN]) + (", ..." if len(found) > _SHOWN else "")
    raise InvalidInput(
        f"{what} prefix {given!r} is ambiguous: it matches {shown}; give more characters"
    )


def resolve_visible_id(
    store: Store,
    value: object,
    *,
    min_chars: int,
    visible: Callable[[MemoryRecord], bool],
    what: str = "memory id",
) -> MemoryRecord | None:
    """The memory ``value`` names among those ``visible`` to the caller (a service key):
    the id itself, or the one visible id starting with it. None where none is visible,
    so another tenant's id reads as unknown; an ambiguous prefix names visible ids only.
    InvalidInput for a prefix shorter than ``min_chars``, whatever is stored."""
    given = clean_id(value, what)
    stored = store.get_memory(given)
    if stored is not None:
        return stored if visible(stored) else None
    if len(given) < min_chars:
        raise InvalidInput(
            f"{what} {given!r} is too short: give the full id or a prefix of at least "
            f"{min_chars} characters"
        )
    found = [store.get_memory(i) for i in store.ids_with_prefix(given, _SCAN)]
    seen = [r for r in found if r is not None and visible(r)]
    if len(seen) <= 1:
        return seen[0] if seen else None
    shown = ", ".join(r.id for r in seen[:_SHOWN]) + (", ..." if len(seen) > _SHOWN else "")
    raise InvalidInput(
        f"{what} prefix {given!r} is ambiguous: it matches {shown}; give more characters"
    )


def _erased_note(store: Store, memory_id: str) -> str | None:
    if not isinstance(store, ErasureStore):
        return None
    when = store.erased_ids([memory_id]).get(memory_id)
    return None if when is None else f"memory {memory_id} was erased ({when.isoformat()})"
