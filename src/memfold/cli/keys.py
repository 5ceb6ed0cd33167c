"""``memfold keys create|list|revoke``: the service's API keys (engine/keys.py).

``create`` prints the token alone on stdout (so ``TOKEN=$(memfold keys create ...)``
works); it is shown once, only its hash is stored. Listings never show a token or a
hash, only the token's public prefix.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

import typer
from rich.table import Table
from rich.text import Text

from memfold import render
from memfold.cli.app import app
from memfold.cli.common import JsonOpt, PathOpt, open_existing, open_memory
from memfold.engine.keys import check_key_request, create_key, list_keys, revoke_key
from memfold.model import ApiKey

keys_app = typer.Typer(
    help="API keys of the service (memfold serve, memfold mcp): create, list, revoke.",
    no_args_is_help=True,
)


def scope_text(key: ApiKey) -> str:
    """The scope a key is bound to, in words; an admin key without a user: any."""
    if key.user_id is None:
        return "any"
    text = f"user {key.user_id!r}"
    return text if key.agent_id is None else f"{text}, agent {key.agent_id!r}"


def _minute(when: datetime) -> str:
    return when.strftime("%Y-%m-%d %H:%M")


@keys_app.command("create")
def keys_create(
    role: Annotated[
        Literal["read", "write", "admin"], typer.Option("--role", help="What the key may do.")
    ],
    user: Annotated[
        str | None,
        typer.Option("--user-id", help="The user the key is bound to (read and write: needed)."),
    ] = None,
    agent: Annotated[
        str | None, typer.Option("--agent-id", help="Bind the key to this agent of the user too.")
    ] = None,
    label: Annotated[str, typer.Option("--label", help="A note for listings.")] = "",
    path: PathOpt = None,
) -> None:
    """Create a key; print its token alone on stdout (shown once: store it now)."""
    # Checked before the store opens: bad input creates no store file.
    check_key_request(role, user, agent, label)
    with open_memory(path) as mem:
        key, token = create_key(mem.store, role=role, user_id=user, agent_id=agent, label=label)
    typer.echo(token)
    typer.echo(
        f"created {key.role.value} key {key.id} ({scope_text(key)}); the token above is "
        "shown only now",
        err=True,
    )


@keys_app.command("list")
def keys_list(
    include_revoked: Annotated[bool, typer.Option("--all", help="Revoked keys too.")] = False,
    path: PathOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """The keys, oldest first: id, prefix, role, scope, label, created, revoked."""
    with open_existing(path) as mem:
        keys = list_keys(mem.store, include_revoked=include_revoked)
    if as_json:
        render.print_json([k.to_dict() for k in keys])
        return
    if not keys:
        render.say("no API keys" if include_revoked else "no active API keys")
        return
    table = Table(title="API keys")
    for column in ("id", "prefix", "role"):  # whole: revoke takes the id or the prefix
        table.add_column(column, no_wrap=True)
    for column in ("scope", "label", "created", "revoked"):
        table.add_column(column, overflow="fold")
    for k in keys:
        table.add_row(
            render.short(k.id),
            k.prefix,
            k.role.value,
            Text(scope_text(k)),
            Text(k.label),
            _minute(k.created_at),
            "" if k.revoked_at is None else _minute(k.revoked_at),
        )
    render.console.print(table)


@keys_app.command("revoke")
def keys_revoke(
    key_id: Annotated[
        str, typer.Argument(help="The key's id (its first 8 characters do) or prefix (mf_...).")
    ],
    path: PathOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Revoke a key: its token is refused from now on (the row stays, for listings)."""
    with open_existing(path) as mem:
        key = revoke_key(mem.store, key_id)
    if as_json:
        render.print_json(key.to_dict())
        return
    assert key.revoked_at is not None  # revoke_key returns the revoked key
    when = _minute(key.revoked_at)
    render.say(f"revoked key {key.id} ({key.prefix}, {scope_text(key)}) at {when}")


app.add_typer(keys_app, name="keys")
