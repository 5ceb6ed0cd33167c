"""The ``memfold`` command line (typer + rich), one module per group of commands.

``app`` is the Typer app; ``main`` is the console script's entry point.
"""

from importlib import import_module

from typer.models import CommandInfo, TyperInfo

from memfold.cli.app import app, main

# Each module registers its commands on ``app``; this order is the order of --help.
for _module in (
    "records",
    "links",
    "edit",
    "forget",
    "lifecycle",
    "transfer",
    "migrate",
    "review",
    "chat",
    "tools",
    "serve",
    "keys",
    "mcp",
):
    import_module(f"memfold.cli.{_module}")

# Where each command shows in --help: what a user reaches for first, the developer's
# tools last. A command missing here fails tests/cli/test_cli_help.py.
PANELS = {
    "Memories": (
        "add",
        "search",
        "get",
        "list",
        "history",
        "links",
        "graph",
        "update",
        "delete",
        "feedback",
        "forget",
        "scopes",
        "stats",
    ),
    "Consolidation and review": ("log", "undo", "review", "report", "worker", "chat"),
    "Lifecycle": ("tick", "rehydrate"),
    "Service": ("serve", "mcp", "keys", "usage"),
    "Data and stores": ("export", "import", "reembed", "migrate", "vector-index"),
    "Developer": ("eval", "fake-llm", "demo"),
}
_ORDER = {name: n for n, name in enumerate(n for names in PANELS.values() for n in names)}
_PANEL_OF = {name: panel for panel, names in PANELS.items() for name in names}


def _name(info: CommandInfo | TyperInfo) -> str:
    callback = info.callback
    return str(info.name or (callback.__name__ if callback else ""))


_infos: list[CommandInfo | TyperInfo] = [*app.registered_commands, *app.registered_groups]
for _info in _infos:
    _info.rich_help_panel = _PANEL_OF.get(_name(_info), "Other")
# --help lists the panels in the order of their first command.
app.registered_commands.sort(key=lambda info: _ORDER.get(_name(info), len(_ORDER)))
app.registered_groups.sort(key=lambda info: _ORDER.get(_name(info), len(_ORDER)))

__all__ = ["PANELS", "app", "main"]
