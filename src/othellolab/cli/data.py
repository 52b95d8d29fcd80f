"""``othellolab data list|download|path``: the public data sets (WTHOR, FFO endgame positions,
XOT openings), fetched into the user data folder that other commands look in
(``records.download``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from othellolab.cli._config import examples
from othellolab.records.download import (
    BUNDLED,
    DATA_ENV,
    SOURCES,
    base_url_of,
    data_home,
    data_path,
    dataset_files,
    download,
)

app = typer.Typer(
    help="Public data sets: list them, download them into the user data folder, print where "
    "one is.",
    no_args_is_help=True,
)

_DEST = typer.Option(
    "--dest",
    help=f"Data folder (default: ${DATA_ENV}, else the per-user data folder, "
    "XDG_DATA_HOME/othellolab/data on Linux).",
)


def _size(n: int) -> str:
    return f"{n / 1e6:.1f} MB" if n >= 1e6 else f"{n / 1e3:.0f} kB"


@app.command("list", epilog=examples("othellolab data list"))
def list_(dest: Annotated[Path | None, _DEST] = None) -> None:
    """List the data sets, their sources, sizes and what is already downloaded."""
    home = data_home(dest)
    typer.echo(f"data folder: {home}")
    for name, source in SOURCES.items():
        files = dataset_files(name)
        known = sum(f.size or 0 for f in files)
        here = sum((home / name / f.name).is_file() for f in files)
        env = f"OTHELLOLAB_{name.upper()}_URL"
        typer.echo(f"\n{name}: {source.title}")
        typer.echo(f"  source:  {base_url_of(name)} (override: --base-url or {env})")
        typer.echo(f"  home:    {source.home}; {source.licence}")
        unknown = sum(f.size is None for f in files)
        typer.echo(
            f"  files:   {len(files)}, {_size(known)}"
            + (f" + {unknown} of unknown size" if unknown else "")
            + f"; downloaded: {here} of {len(files)}"
        )
        if source.notes:
            typer.echo(f"  note:    {source.notes}")
        typer.echo(f"  get it:  othellolab data download {name}")
    typer.echo("\nnamed files (no download needed):")
    for name in sorted(BUNDLED):
        typer.echo(f"  {name}: {data_path(name, dest=dest)}")


@app.command(
    "download",
    epilog=examples(
        "othellolab data download wthor --years 2000-2023",
        "othellolab data download ffo xot",
    ),
)
def download_(
    names: Annotated[
        list[str], typer.Argument(metavar="NAME", help=f"Data sets: {', '.join(SOURCES)}.")
    ],
    years: Annotated[
        str | None,
        typer.Option(
            help="WTHOR years, e.g. 2000-2023 or 2001,2004 (default: every year with a "
            "recorded checksum). Only for wthor."
        ),
    ] = None,
    dest: Annotated[Path | None, _DEST] = None,
    base_url: Annotated[
        str | None,
        typer.Option(
            help="Fetch from this base URL instead (a mirror), laid out like the source; "
            "default: OTHELLOLAB_<NAME>_URL, else the source's."
        ),
    ] = None,
    no_verify: Annotated[
        bool,
        typer.Option("--no-verify", help="Keep files whose SHA-256 is not the recorded one."),
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bars.")] = False,
) -> None:
    """Download data sets into the data folder; an interrupted download resumes."""
    if years is not None and "wthor" not in [n.strip().lower() for n in names]:
        raise typer.BadParameter("years are for wthor only", param_hint="--years")
    for name in names:
        got = download(
            name,
            years=years if name.strip().lower() == "wthor" else None,
            dest=dest,
            base_url=base_url,
            verify=not no_verify,
            progress=not quiet,
            log=None if quiet else typer.echo,
        )
        typer.echo(f"{name}: {len(got)} files in {data_path(name, dest=dest)}")


@app.command("path", epilog=examples("othellolab data path wthor"))
def path(
    name: Annotated[str, typer.Argument(help="A data set or a named file (xot-small).")],
    dest: Annotated[Path | None, _DEST] = None,
) -> None:
    """Print the path that commands use for a data set or named file."""
    typer.echo(str(data_path(name, dest=dest)))
