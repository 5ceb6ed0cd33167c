"""The ``memfold`` command line (typer + rich), one module per group of commands.

``app`` is the Typer app; ``main`` is the console script's entry point.
"""

from importlib import import_module

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

__all__ = ["app", "main"]
