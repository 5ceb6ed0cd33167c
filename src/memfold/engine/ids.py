"""Memory ids given in full or by a unique prefix (what ``memfold list`` shows).

``resolve_id`` is the one place every API method that takes a memory id goes through
(``Memory._resolve_id`` binds it to the store and the configured minimum length).
"""

from __future__ import annotations

from memfold.errors import InvalidInput, NotFound
from memfold.policy.validate import clean_id
from memfold.store.base import Store
from memfold.store.erasure import ErasureStore

# Ambiguous prefixes name at most this many of their matches.
_SHOWN = 5


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


def _erased_note(store: Store, memory_id: str) -> str | None:
    if not isinstance(store, ErasureStore):
        return None
    when = store.erased_ids([memory_id]).get(memory_id)
    return None if when is None else f"memory {memory_id} was erased ({when.isoformat()})"
