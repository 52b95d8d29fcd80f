"""``othellolab evaluate model MODEL... --data PATH``: held-out accuracy by game phase, value
calibration and behaviour around passes, written as a report with plots."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from othellolab.cli._config import examples

app = typer.Typer(help="Evaluate trained networks.", no_args_is_help=True)


@app.command(
    "model",
    epilog=examples(
        'othellolab evaluate model b6c48-all --data "$(othellolab data path wthor)" --years 2023',
        "othellolab evaluate model b6c48-all b8c64-all --data datasets/wthor --max-games 200",
    ),
)
def model(
    models: Annotated[
        list[str],
        typer.Argument(help="Model directories or shipped model names (several share a report)."),
    ],
    data: Annotated[
        list[Path],
        typer.Option(
            "--data",
            "-d",
            help="A dataset folder, a folder of WTHOR files (with --years) or game-record files; "
            "repeat for several.",
        ),
    ],
    split: Annotated[str, typer.Option(help="Split of a dataset folder.")] = "test",
    years: Annotated[
        str | None, typer.Option(help="Years of a WTHOR folder, e.g. '2023' or '2022-2023'.")
    ] = None,
    max_games: Annotated[int, typer.Option(help="Games per data source (0 = all).")] = 0,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out", "-o", help="Report folder (default: runs/eval-<first model's name>)."
        ),
    ] = None,
    batch_size: Annotated[int, typer.Option(help="Positions per forward pass.")] = 512,
    threads: Annotated[int, typer.Option(help="torch threads.")] = 1,
    device: Annotated[str, typer.Option(help="cpu or cuda.")] = "cpu",
    symmetries: Annotated[
        int,
        typer.Option(
            help="Average the network over this many of the board's symmetries (1-8; 8 "
            "costs 8 times the time and reads about a point more top-1)."
        ),
    ] = 1,
    quiet: Annotated[bool, typer.Option(help="No progress bar.")] = False,
) -> None:
    """Evaluate networks on held-out positions; writes report.md, metrics.json and plots."""
    from othellolab.datasets.heldout import load_positions
    from othellolab.measure.model import check_symmetries, measure_model, resolve_model
    from othellolab.measure.report import write_report

    check_symmetries(symmetries)
    dirs = [resolve_model(m) for m in models]
    import torch

    from othellolab.core import ConfigError
    from othellolab.nn.io import read_model_info

    torch.set_num_threads(threads)
    sizes = {read_model_info(d).config.size for d in dirs}
    if len(sizes) > 1:
        raise ConfigError(f"the models play different board sizes: {sorted(sizes)}")
    positions = load_positions(
        data, split=split, years=years, max_games=max_games, size=sizes.pop()
    )
    if not quiet:
        typer.echo(
            f"{positions.description}: {len(positions):,} positions of {positions.games:,} games",
            err=True,
        )
    evals = [
        measure_model(
            d,
            positions,
            batch_size=batch_size,
            progress=not quiet,
            device=device,
            symmetries=symmetries,
        )
        for d in dirs
    ]
    report = write_report(evals, positions, out or Path("runs", f"eval-{dirs[0].name}"))
    for ev in evals:
        m = ev.metrics["overall"]
        typer.echo(
            f"{ev.name}: top-1 {m['top1']:.3f} (uniform {m['uniform_top1']:.3f}), top-3 "
            f"{m['top3']:.3f}, policy CE {m['policy_ce']:.3f} (uniform {m['uniform_ce']:.3f}), "
            f"value MSE {m['value_mse']:.3f}, ECE {ev.metrics['calibration']['ece']:.3f}"
        )
        typer.echo(
            "  top-1 by empties: "
            + json.dumps(
                {
                    f"{p['empties'][0]}-{p['empties'][1]}": round(p["top1"], 3)
                    for p in ev.metrics["phases"]
                    if p["top1"] is not None
                }
            )
        )
    typer.echo(f"report: {report}")
