"""The ``memfold`` command line (typer + rich), one module per group of commands.

``app`` is the Typer app; ``main`` is the console script's entry point.
"""

from memfold.cli import edit, forget, records, review, tools, transfer  # noqa: F401
from memfold.cli.app import app, main

__all__ = ["app", "main"]
