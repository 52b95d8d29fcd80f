"""``othellolab records stats|convert|validate``: game-record files from the command line."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from othellolab.cli._config import examples
from othellolab.core import OthelloError
from othellolab.records import (
    GameRecord,
    ReadReport,
    format_of,
    name_table,
    read_games,
    read_header,
    read_obf,
    write_games,
    write_names,
)

app = typer.Typer(help="Read, check and convert game records (WTHOR, GGF, transcripts, ...).")

Files = Annotated[
    list[Path], typer.Argument(help="Record files (.wtb, .ggf, .gam[.gz], .txt, .obf).")
]


FILE_ERRORS = (OthelloError, OSError)
"""What reading or writing one file may raise: a record error (every reader raises its format's
``RecordError`` for bad input), another othellolab error, or an OS error (missing, unreadable).
Each names the file; the command reports it and goes on with the next file, or exits 1."""


def _progress() -> Progress:
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        transient=True,
    )


def _is_obf(path: Path) -> bool:
    return ".obf" in [s.lower() for s in path.suffixes]


def _total(path: Path) -> int | None:
    try:
        return read_header(path).n_games if format_of(path) == "wthor" else None
    except FILE_ERRORS:
        return None


def _read(path: Path, report: ReadReport, progress: Progress) -> Iterator[Any]:
    """Games (or OBF entries) of one file, leniently, advancing a progress bar."""
    task = progress.add_task(path.name, total=None if _is_obf(path) else _total(path))
    items = (
        read_obf(path, lenient=True, report=report)
        if _is_obf(path)
        else read_games(path, lenient=True, report=report)
    )
    for n, item in enumerate(items, 1):
        if n % 1000 == 0:
            progress.update(task, completed=n)
        yield item
    progress.remove_task(task)


def _fail(path: Path, e: Exception) -> None:
    """Print a file-level error: ``FILE: reason`` for an OS error (not ``[Errno 2] ...``);
    record errors already name the file."""
    message = f"{e.filename or path}: {e.strerror or e}" if isinstance(e, OSError) else str(e)
    typer.secho(f"error: {message}", err=True, fg="red")


@app.command(
    epilog=examples(
        'othellolab records stats "$(othellolab data path wthor)"/WTH_2004.wtb',
        "othellolab records stats tests/data/fforum-1-19.obf",
    )
)
def stats(files: Files) -> None:
    """Games, years, players, results, mismatches and errors of record files; exit code 1 if
    a file could not be read (missing, unreadable, a bad header)."""
    report = ReadReport()
    years: Counter[int] = Counter()
    players: Counter[str] = Counter()
    results: Counter[str] = Counter()
    positions = 0
    failed = 0
    with _progress() as progress:
        for path in files:
            try:
                for item in _read(path, report, progress):
                    if isinstance(item, GameRecord):
                        _count(item, years, players, results)
                    else:
                        positions += 1
            except FILE_ERRORS as e:
                failed += 1
                _fail(path, e)
    games = report.games - positions
    typer.echo(
        f"files: {len(files) - failed}"
        + (f" ({failed} not read)" if failed else "")
        + f"  games: {games}"
        + (f"  positions: {positions}" if positions else "")
    )
    if years:
        span = f"{min(years)}-{max(years)}" if len(years) > 1 else str(min(years))
        typer.echo(f"years: {span} ({len(years)} years)")
    if players:
        top = ", ".join(f"{name} ({n})" for name, n in players.most_common(5))
        typer.echo(f"players: {len(players)} distinct; most games: {top}")
    if games:
        typer.echo(
            "results (replayed): "
            + ", ".join(
                f"{k} {results[k]} ({results[k] / games:.1%})"
                for k in ("black wins", "draws", "white wins")
            )
        )
    typer.echo(f"result mismatches: {len(report.mismatches)}")
    typer.echo(f"errors: {len(report.skipped) + failed}")
    for line in report.summary().splitlines()[1:]:
        typer.echo(line)
    if failed:
        raise typer.Exit(1)


def _count(
    game: GameRecord, years: Counter[int], players: Counter[str], results: Counter[str]
) -> None:
    year = game.headers.get("year")
    if isinstance(year, int):
        years[year] += 1
    for key in ("black", "white"):
        name = game.headers.get(key)
        if isinstance(name, str):
            players[name] += 1
    s = game.score
    results["black wins" if s > 0 else "white wins" if s < 0 else "draws"] += 1


@app.command(
    epilog=examples(
        'othellolab records validate "$(othellolab data path wthor)"/WTH_*.wtb --show 5'
    )
)
def validate(
    files: Files,
    show: Annotated[int, typer.Option(help="How many problems to print per kind.")] = 10,
) -> None:
    """Check that every game replays legally; exit code 1 if any game or file is bad.

    Games whose stored result disagrees with the replay are listed but are not errors.
    """
    report = ReadReport()
    failed = 0
    with _progress() as progress:
        for path in files:
            try:
                for _ in _read(path, report, progress):
                    pass
            except FILE_ERRORS as e:
                failed += 1
                _fail(path, e)
    for problem in report.skipped[:show]:
        typer.secho(f"error: {problem}", err=True, fg="red")
    for problem in report.mismatches[:show]:
        typer.echo(f"mismatch: {problem}")
    more = len(report.mismatches) - show
    if more > 0:
        typer.echo(f"... and {more} more mismatches")
    typer.echo(report.summary())
    if report.skipped or failed:
        raise typer.Exit(1)
    typer.echo("OK")


@app.command(
    epilog=examples(
        'othellolab records convert "$(othellolab data path wthor)"/WTH_2004.wtb games-2004.ggf'
    )
)
def convert(
    source: Annotated[Path, typer.Argument(help="File to read (format from its extension).")],
    target: Annotated[Path, typer.Argument(help="File to write (format from its extension).")],
    lenient: Annotated[bool, typer.Option(help="Skip bad games instead of stopping.")] = False,
) -> None:
    """Convert games between formats (WTHOR output also writes .JOU/.TRN name files)."""
    report = ReadReport()
    try:
        fmt = format_of(target)
        with _progress() as progress:
            task = progress.add_task(source.name, total=_total(source))
            games = []
            for n, game in enumerate(read_games(source, lenient=lenient, report=report), 1):
                games.append(game)
                if n % 1000 == 0:
                    progress.update(task, completed=n)
        options: dict[str, Any] = {}
        if fmt == "wthor" and any("black" in g.headers for g in games):
            players = name_table(games, "black,white")
            tournaments = name_table(games, "tournament")
            write_names(target.with_suffix(".JOU"), players)
            write_names(target.with_suffix(".TRN"), tournaments)
            options = {"players": players, "tournaments": tournaments}
        count = write_games(target, games, **options)
    except FILE_ERRORS as e:
        _fail(source, e)
        raise typer.Exit(1) from None
    typer.echo(f"wrote {count} games to {target} ({len(report.skipped)} skipped)")
