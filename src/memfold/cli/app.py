"""The ``memfold`` Typer app and its entry point: bad input is one line on stderr, exit 2."""

from __future__ import annotations

import os
import sys
from typing import Annotated, Any

import typer

from memfold import render
from memfold.errors import MemfoldError

app = typer.Typer(
    help="memfold: long-term memory for LLM agents that consolidates itself safely.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    # Docstrings are wrapped for the source; markdown joins their lines for the terminal.
    rich_markup_mode="markdown",
)


def package_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("memfold")
    except PackageNotFoundError:  # run from a source tree
        from memfold import __version__

        return __version__


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"memfold {package_version()}")
        raise typer.Exit()


@app.callback()
def root(
    version: Annotated[
        bool,
        typer.Option(
            "--version", is_eager=True, callback=_print_version, help="Print the version."
        ),
    ] = False,
) -> None:
    """memfold: long-term memory for LLM agents that consolidates itself safely."""


def _fail(message: str, code: int = 2) -> None:
    first = message.strip().splitlines()[0] if message.strip() else "unknown error"
    typer.echo(f"error: {first}", err=True)
    sys.exit(code)


def main(argv: list[str] | None = None) -> Any:
    render.reset_consoles()  # read COLUMNS now (tests change it between runs)
    try:
        code = app(args=argv, standalone_mode=False)
    except typer.Abort:
        typer.echo("Aborted!", err=True)
        sys.exit(1)
    except KeyboardInterrupt:
        typer.echo("error: interrupted", err=True)
        sys.exit(130)
    except MemfoldError as exc:
        _fail(str(exc))
    except OSError as exc:  # a file or folder the command was given
        _fail(f"{exc.filename}: {exc.strerror}" if exc.filename and exc.strerror else str(exc))
    except Exception as exc:
        # A bad option or argument (click's UsageError; typer may vendor click, so it is
        # recognized by shape): one line too, not click's usage block.
        if hasattr(exc, "format_message") and hasattr(exc, "show"):
            if type(exc).__name__ == "NoArgsIsHelpError":
                exc.show()  # no arguments: the help text, as click prints it
                sys.exit(2)
            ctx = getattr(exc, "ctx", None)
            where = f" (see: {ctx.command_path} --help)" if ctx is not None else ""
            _fail(f"{exc.format_message()}{where}")
        if os.environ.get("MEMFOLD_DEBUG"):
            raise
        # A bug, not bad input: still one line (MEMFOLD_DEBUG=1 shows the traceback).
        _fail(f"internal error ({type(exc).__name__}): {exc} (MEMFOLD_DEBUG=1 for details)", 1)
    sys.exit(code if isinstance(code, int) and not isinstance(code, bool) else 0)
