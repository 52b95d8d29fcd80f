"""``othellolab selfplay report RUN``: the report of a self-play run (curves and tables)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

app = typer.Typer(help="Self-play runs: reports.", no_args_is_help=True)


@app.command("report")
def report(
    run: Annotated[Path, typer.Argument(help="The run directory (runs/<name>).")],
) -> None:
    """Write RUN/report.md with PNG curves (losses, optimal-move rate and strength against
    CPU-hours) from RUN/metrics.jsonl."""
    from othellolab.training.selfplay.report import write_report

    path = write_report(run)
    typer.echo(f"report: {path}")
