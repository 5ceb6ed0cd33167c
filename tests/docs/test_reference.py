"""The generated pages are current: the settings and command references match the code,
the README's picture its source, and the benchmarks pages their recorded results."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("script", ["gen_reference.py", "draw_overview.py", "render_benchmarks.py"])
def test_the_generated_pages_are_current(script: str) -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / script), "--check"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert done.returncode == 0, done.stderr


def test_every_setting_and_command_is_in_the_reference() -> None:
    from typer.main import get_command

    from memfold.cli import app
    from memfold.config import Settings

    config = (ROOT / "docs" / "reference" / "config.md").read_text(encoding="utf-8")
    cli = (ROOT / "docs" / "reference" / "cli.md").read_text(encoding="utf-8")
    for section, info in Settings.model_fields.items():
        model = info.annotation
        assert model is not None and hasattr(model, "model_fields")
        for name in model.model_fields:
            assert f"`{section}.{name}" in config, f"{section}.{name}"
    for name in get_command(app).commands:  # type: ignore[attr-defined]
        assert f"### `memfold {name}`" in cli, name
