"""``python -m memfold.evaluation``: the same command as ``memfold eval``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)


@app.command()
def eval_(
    data: Annotated[Path, typer.Argument(help="bench-data folder.")] = Path("../shared/bench-data"),
    split: Annotated[str, typer.Option(help="dev | heldout (held-out: report only)")] = "dev",
    judge: Annotated[str, typer.Option(help="rules | llm (the settings' endpoint)")] = "rules",
    suite: Annotated[
        list[str] | None, typer.Option("--suite", help="pairs | locomo | beam (repeat)")
    ] = None,
    dataset: Annotated[
        list[str] | None, typer.Option("--dataset", help="sick | msrp | stsb | qqp (repeat)")
    ] = None,
    limit: Annotated[int | None, typer.Option(help="At most N pairs per data set.")] = None,
    max_convs: Annotated[
        int | None, typer.Option(help="At most N LoCoMo conversations / BEAM chats.")
    ] = None,
    out: Annotated[Path, typer.Option(help="Folder or .json file for results.")] = Path("results"),
) -> None:
    """Quality of consolidation on public data sets (pairs, LoCoMo, BEAM)."""
    from memfold.evaluation.runner import DEFAULT_DATASETS, SUITES, run_eval

    try:
        run_eval(
            data,
            split=split,
            judge=judge,
            suites=suite or SUITES,
            datasets=dataset or DEFAULT_DATASETS,
            limit=limit,
            max_convs=max_convs,
            out=out,
        )
    except (ValueError, FileNotFoundError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None


if __name__ == "__main__":
    app()
