"""``memfold --help`` guides: commands in panels (memories first, developer tools last),
help text wrapped to the terminal, not to the source's line breaks; actions shown by
what they did."""

from __future__ import annotations

from pathlib import Path

from typer.models import CommandInfo, TyperInfo

from cli.support import Cli
from memfold import Memory
from memfold.cli import PANELS, app


def test_every_command_has_a_panel() -> None:
    named = {name for names in PANELS.values() for name in names}
    infos: list[CommandInfo | TyperInfo] = [*app.registered_commands, *app.registered_groups]
    registered = {info.name or (info.callback.__name__ if info.callback else "") for info in infos}
    assert registered == named  # a new command is given its panel, an old one is not left


def test_help_shows_the_panels_in_order_within_80_columns(cli: Cli) -> None:
    result = cli("--help")
    assert result.code == 0
    out = result.out
    at = [out.index(f"─ {panel} ") for panel in PANELS]
    assert at == sorted(at)
    assert out.index(" add ") < out.index("─ Developer ") < out.index(" eval ")
    assert all(len(line) <= 80 for line in out.splitlines())


def test_help_text_is_wrapped_to_the_terminal_not_the_source(cli: Cli) -> None:
    # The docstring breaks after "usage,"; the terminal wraps where it must.
    out = cli("--help", columns=120).out
    assert "jobs, review, usage, conversations, API keys)" in out


def test_a_supersede_is_shown_as_one_and_logged_as_delete(cli: Cli, db_path: Path) -> None:
    path = str(db_path)
    assert cli("add", "Sam lives in Lyon.", "-u", "sam", "-p", path).code == 0
    added = cli("add", "Sam moved to Berlin.", "-u", "sam", "-p", path, "--consolidate", "sync")
    assert "decision: SUPERSEDE" in added.out, added.out
    shown = cli("log", "-p", path, columns=120).out
    assert "SUPERSEDE" in shown and "DELETE" not in shown, shown
    with Memory(db_path, consolidate="off") as mem:  # the API keeps the action's name
        assert "DELETE" in {e.action for e in mem.log(10)}


def test_an_option_with_fixed_choices_shows_them(cli: Cli) -> None:
    assert "<hybrid|vector|keyword>" in cli("search", "--help", columns=140).out
    assert "<read|write|admin>" in cli("keys", "create", "--help", columns=140).out
    wrong = cli("search", "x", "--mode", "fuzzy")
    assert wrong.code == 2 and "'fuzzy' is not one of" in wrong.err
