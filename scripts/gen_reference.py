"""Write the generated reference pages of the docs from the code itself.

    .venv/bin/python scripts/gen_reference.py          # write docs/reference/*.md
    .venv/bin/python scripts/gen_reference.py --check  # exit 1 if a page is stale

- docs/reference/config.md: every setting of ``memfold.config.Settings``, section by
  section: its key, environment variable, type, default and bounds (read from the
  pydantic models), and the comment written above it in the source.
- docs/reference/cli.md: every command of ``memfold``, in the panels of ``--help``:
  its help, arguments and options with their choices and defaults (read from the
  Typer app; Typer carries its own copy of click, so its objects are read by their
  attributes rather than by click's classes).

tests/docs/test_reference.py fails when either page differs from what this writes.
"""

from __future__ import annotations

import argparse
import ast
import inspect
import sys
import textwrap
from pathlib import Path
from typing import Any, Literal, get_args, get_origin

import typer.main
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from memfold.cli import PANELS, app
from memfold.config import Settings

ROOT = Path(__file__).resolve().parent.parent
PAGES = ROOT / "docs" / "reference"


# --- settings ---------------------------------------------------------------------


def _comments_above_fields(model: type[BaseModel], path: list[str]) -> dict[str, str]:
    """The comment block right above each field in the model's class body. A field on
    the line right after a commented one shares its comment (the comment speaks of the
    group), shown as a pointer to the group's first field."""
    source = textwrap.dedent(inspect.getsource(model))
    lines = source.splitlines()
    found: dict[str, str] = {}
    cls = ast.parse(source).body[0]
    assert isinstance(cls, ast.ClassDef)
    head: str | None = None
    previous_end = -1
    for node in cls.body:
        if not (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)):
            head, previous_end = None, -1
            continue
        block: list[str] = []
        row = node.lineno - 2
        while row >= 0 and lines[row].strip().startswith("#"):
            block.insert(0, lines[row].strip().lstrip("#").strip())
            row -= 1
        name = node.target.id
        if block:
            found[name] = " ".join(block)
            head = name
        elif head is not None and node.lineno == previous_end + 1:
            found[name] = f"see `{'.'.join([*path, head])}` above"
        else:
            head = None
        previous_end = node.end_lineno or node.lineno
    return found


def _type_name(annotation: Any) -> str:
    text = getattr(annotation, "__name__", None) if isinstance(annotation, type) else None
    shown = text or str(annotation)
    for prefix in ("typing.", "pathlib.", "memfold.model.records.", "memfold.config."):
        shown = shown.replace(prefix, "")
    return shown


def _bounds(info: FieldInfo) -> str:
    shown = []
    for item in info.metadata:
        for name, symbol in (("ge", ">="), ("gt", ">"), ("le", "<="), ("lt", "<")):
            value = getattr(item, name, None)
            if value is not None:
                shown.append(f"{symbol} {value}")
    return ", ".join(shown)


def _default(info: FieldInfo) -> str:
    if info.default_factory is not None:
        try:
            value = info.default_factory()  # type: ignore[call-arg]
        except TypeError:
            return "(computed)"
        if isinstance(value, BaseModel):
            return "(section)"
        return f"`{value!r}`"
    return f"`{info.default!r}`"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _section_rows(model: type[BaseModel], path: list[str], out: list[str]) -> None:
    comments = _comments_above_fields(model, path)
    nested: list[tuple[str, type[BaseModel]]] = []
    rows = []
    for name, info in model.model_fields.items():
        annotation = info.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            nested.append((name, annotation))
            continue
        key = ".".join([*path, name])
        env = "MEMFOLD_" + "__".join(p.upper() for p in [*path, name])
        rows.append(
            f"| `{key}` | `{env}` | `{_cell(_type_name(annotation))}` | {_cell(_default(info))} "
            f"| {_bounds(info)} | {_cell(comments.get(name, ''))} |"
        )
    if rows:
        out += [f"## `{'.'.join(path)}`", ""]
        doc = inspect.getdoc(model)
        if doc and not doc.startswith("A settings section"):
            out += [doc, ""]
        out += [
            "| key | environment | type | default | bounds | what it is |",
            "|---|---|---|---|---|---|",
            *rows,
            "",
        ]
    for name, sub in nested:
        _section_rows(sub, [*path, name], out)


def config_page() -> str:
    out = [
        "# Settings reference",
        "",
        "<!-- Generated by scripts/gen_reference.py from memfold.config.Settings: do not",
        "edit by hand (tests/docs/test_reference.py fails when it is stale). -->",
        "",
        "Every threshold and default of memfold, one table per section. Set them as",
        'arguments (`Settings(consolidation={"destructive_threshold": 0.92})`), as',
        "environment variables (the column below), or in the TOML config file",
        "(`MEMFOLD_CONFIG`, else `<user config dir>/memfold/config.toml`); the",
        "[configuration page](../configuration.md) says how they combine. A setting left",
        "blank below is explained by the comment above it in its section.",
        "",
    ]
    for name, info in Settings.model_fields.items():
        annotation = info.annotation
        assert isinstance(annotation, type) and issubclass(annotation, BaseModel)
        _section_rows(annotation, [name], out)
    return "\n".join(out).rstrip() + "\n"


# --- commands ---------------------------------------------------------------------


def _param_row(param: Any) -> str:
    if param.param_type_name == "option":
        names = ", ".join(f"`{n}`" for n in [*param.opts, *param.secondary_opts])
    else:
        names = f"`{(param.metavar or param.name or '').upper()}`"
    annotation = param.type_descriptor.annotation
    if getattr(param, "is_flag", False):
        shown_type = "flag"
    elif get_origin(annotation) is Literal:
        shown_type = " \\| ".join(f"`{c}`" for c in get_args(annotation))
    else:
        shown_type = f"`{_type_name(annotation)}`"
    default = param.default
    shown_default = (
        "" if default in (None, False, (), []) or callable(default) else f"`{default!r}`"
    )
    help_text = getattr(param, "help", None) or ""
    required = " (required)" if param.required else ""
    return f"| {names}{required} | {shown_type} | {shown_default} | {_cell(help_text)} |"


def _command_section(name: str, command: Any) -> list[str]:
    out = [f"### `memfold {name}`", ""]
    if command.help:
        out += [inspect.cleandoc(command.help).split("\n\n")[0].replace("\n", " "), ""]
    params = [p for p in command.params if p.name != "help"]
    if params:
        out += ["| argument or option | type | default | help |", "|---|---|---|---|"]
        out += [_param_row(p) for p in params]
        out.append("")
    for sub_name, sub in sorted(getattr(command, "commands", {}).items()):
        out += _command_section(f"{name} {sub_name}", sub)
    return out


def cli_page() -> str:
    root: Any = typer.main.get_command(app)
    out = [
        "# Command reference",
        "",
        "<!-- Generated by scripts/gen_reference.py from the memfold command line: do not",
        "edit by hand (tests/docs/test_reference.py fails when it is stale). -->",
        "",
        "Every `memfold` command, in the groups `memfold --help` shows. `memfold COMMAND",
        "--help` prints the same in the terminal; the [command line page](../cli.md) shows",
        "them at work.",
        "",
    ]
    for panel, names in PANELS.items():
        out += [f"## {panel}", ""]
        for name in names:
            out += _command_section(name, root.commands[name])
    return "\n".join(out).rstrip() + "\n"


PAGE_WRITERS = {"config.md": config_page, "cli.md": cli_page}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a page is stale")
    args = parser.parse_args(argv)
    PAGES.mkdir(parents=True, exist_ok=True)
    stale = []
    for file_name, write in PAGE_WRITERS.items():
        target = PAGES / file_name
        text = write()
        current = target.read_text(encoding="utf-8") if target.exists() else ""
        if current == text:
            continue
        if args.check:
            stale.append(str(target.relative_to(ROOT)))
        else:
            target.write_text(text, encoding="utf-8")
    if stale:
        print(f"stale: {', '.join(stale)}: run scripts/gen_reference.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
