"""``othellolab dataset build|info``: game records -> training arrays, and their summary."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from othellolab.cli._config import examples

app = typer.Typer(help="Build and inspect training datasets.", no_args_is_help=True)


@app.command(
    "build",
    epilog=examples(
        'othellolab dataset build "$(othellolab data path wthor)" --out datasets/wthor',
        'othellolab dataset build "$(othellolab data path wthor)" --out datasets/tutorial '
        "--years 2015-2022 --dedup",
    ),
)
def build(
    sources: Annotated[
        list[Path], typer.Argument(help="Record files or folders (a folder means its .wtb files).")
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="Dataset folder to write.")],
    keep: Annotated[str, typer.Option(help="Whose moves: all, winner, black or white.")] = "all",
    passes: Annotated[bool, typer.Option(help="Include forced-pass positions.")] = True,
    dedup: Annotated[bool, typer.Option(help="Merge identical positions into a policy.")] = False,
    symmetries: Annotated[bool, typer.Option(help="Store all 8 symmetric images.")] = False,
    split: Annotated[str, typer.Option(help="Split games by 'hash' or 'year'.")] = "hash",
    val: Annotated[float, typer.Option(help="Fraction of games for val (hash split).")] = 0.05,
    test: Annotated[float, typer.Option(help="Fraction of games for test (hash split).")] = 0.05,
    seed: Annotated[int, typer.Option(help="Salt of the game hash (hash split).")] = 0,
    split_years: Annotated[
        str, typer.Option(help="Year split, e.g. 'train=1977-2012,val=2013,test=2014-2015'.")
    ] = "",
    years: Annotated[
        str | None, typer.Option(help="Keep only games of these years, e.g. '2001-2015'.")
    ] = None,
    score: Annotated[
        str, typer.Option(help="Result from the 'replay' or as 'recorded'.")
    ] = "replay",
    strict: Annotated[bool, typer.Option(help="Stop at a bad game (else skip and count).")] = True,
    overwrite: Annotated[bool, typer.Option(help="Replace a different existing dataset.")] = False,
) -> None:
    """Replay game records into a dataset folder (resumable; see docs/datasets.md)."""
    from othellolab.datasets.build import build_dataset

    report = build_dataset(
        sources,
        out,
        keep=keep,
        passes=passes,
        dedup=dedup,
        symmetries=symmetries,
        split=split,
        val_fraction=val,
        test_fraction=test,
        seed=seed,
        split_years=split_years,
        years=years,
        score=score,
        strict=strict,
        overwrite=overwrite,
        progress=True,
    )
    m = report.manifest
    if report.up_to_date:
        typer.echo(f"{out}: up to date")
    c = m["counts"]
    typer.echo(
        f"{out}: {c['games_used']} games, {c['rows']} rows "
        + ", ".join(f"{k} {v['rows']}" for k, v in m["splits"].items())
        + f" in {report.seconds:.1f} s"
    )


@app.command("info", epilog=examples("othellolab dataset info datasets/wthor"))
def info(
    root: Annotated[Path, typer.Argument(help="Dataset folder.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the whole manifest.")] = False,
) -> None:
    """Summarise a dataset: rows and games per split, options and counts."""
    from othellolab.datasets.batches import describe
    from othellolab.datasets.shards import read_manifest

    data = read_manifest(root) if as_json else describe(root)
    typer.echo(json.dumps(data, indent=2))
