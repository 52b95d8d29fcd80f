"""``othellolab book build|show|extend``: the opening book of the search players."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from othellolab.cli._config import examples
from othellolab.core import square_name

app = typer.Typer(
    help="Opening books: build one from game records and the engine's searches, look up a "
    "line, extend one with more games or deeper searches.",
    no_args_is_help=True,
)


@app.command(
    "build",
    epilog=examples(
        'othellolab book build --out runs/book --wthor "$(othellolab data path wthor)" '
        "--max-games 2000"
    ),
)
def build(
    out: Annotated[Path, typer.Option("--out", "-o", help="Book folder (resumes its searches).")],
    wthor: Annotated[
        Path | None, typer.Option(help="Folder of WTHOR .wtb files (WTH_<year>.wtb).")
    ] = None,
    years: Annotated[str, typer.Option(help="WTHOR years (never 2023, the held-out year).")] = (
        "1977-2022"
    ),
    source: Annotated[
        list[Path] | None,
        typer.Option(help="More record files (Logistello's logbook.gam.gz, GGF, ...)."),
    ] = None,
    max_plies: Annotated[
        int, typer.Option(help="Deepest ply of a book position.", min=1, max=40)
    ] = 24,
    min_count: Annotated[
        int, typer.Option(help="Games that must reach a position for the book to keep it.", min=1)
    ] = 2,
    depth: Annotated[
        int, typer.Option(help="Search depth behind each move out of the book.", min=1, max=30)
    ] = 8,
    evaluation: Annotated[
        str,
        typer.Option(
            help="Evaluation of those searches: patterns, heuristic, discs or pattern weights "
            "(patterns-r1, a folder)."
        ),
    ] = "patterns",
    probcut: Annotated[
        float,
        typer.Option(
            help="Multi-ProbCut confidence of those searches (0 = none), with the weights' fit.",
            min=0.0,
            max=10.0,
        ),
    ] = 0.0,
    workers: Annotated[int, typer.Option(help="Processes searching at once.", min=1, max=256)] = 1,
    max_games: Annotated[int, typer.Option(help="Games per source (0 = all), for trials.")] = 0,
    quiet: Annotated[bool, typer.Option(help="No progress bar.")] = False,
) -> None:
    """Build a book: positions that games reach, valued by negamax over the engine's searches."""
    from othellolab.fitting.book import BookOptions, build_book

    options = BookOptions(
        wthor_dir=str(wthor) if wthor else None,
        years=years,
        sources=tuple(str(s) for s in source or ()),
        max_plies=max_plies,
        min_count=min_count,
        depth=depth,
        evaluation=evaluation,
        probcut=probcut,
        workers=workers,
        max_games=max_games,
        name=out.name,
        progress=not quiet,
    )
    book = build_book(out, options, log=typer.echo)
    typer.echo(f"{out}: {len(book):,} positions, start value {book.value_of_start():+d}")


@app.command(
    "extend",
    epilog=examples(
        "othellolab book extend runs/book --depth 12",
        "othellolab book extend runs/book --depth 12 --evaluation patterns-r1 --probcut 1.5 "
        "--workers 2",
    ),
)
def extend(
    folder: Annotated[Path, typer.Argument(help="A book folder that `book build` made.")],
    source: Annotated[
        list[Path] | None, typer.Option(help="More record files to add to the book's games.")
    ] = None,
    depth: Annotated[
        int | None,
        typer.Option(help="Search deeper behind the moves out of the book.", min=1, max=30),
    ] = None,
    min_count: Annotated[
        int | None, typer.Option(help="Keep positions that fewer games reach.", min=1)
    ] = None,
    evaluation: Annotated[
        str | None,
        typer.Option(help="Search with another evaluation (a name or pattern weights)."),
    ] = None,
    probcut: Annotated[
        float | None,
        typer.Option(help="Search with this ProbCut confidence (0 = none).", min=0.0, max=10.0),
    ] = None,
    workers: Annotated[int, typer.Option(help="Processes searching at once.", min=1, max=256)] = 1,
    quiet: Annotated[bool, typer.Option(help="No progress bar.")] = False,
) -> None:
    """Rebuild a book with more games, a deeper search or a lower game count (searches reused)."""
    from othellolab.fitting.book import extend_book

    book = extend_book(
        folder,
        sources=[str(s) for s in source or ()],
        depth=depth,
        min_count=min_count,
        evaluation=evaluation,
        probcut=probcut,
        workers=workers,
        progress=not quiet,
        log=typer.echo,
    )
    typer.echo(f"{folder}: {len(book):,} positions, start value {book.value_of_start():+d}")


@app.command(
    "show", epilog=examples("othellolab book show", "othellolab book show f5d6 --book runs/book")
)
def show(
    moves: Annotated[
        str, typer.Argument(help="A line from the start, e.g. f5d6c3 (empty: the start).")
    ] = "",
    book: Annotated[str, typer.Option(help="A shipped book's name or a book folder.")] = "",
) -> None:
    """The book's entry for a line and its moves with their values, best first."""
    from othellolab.core import Board
    from othellolab.players.search.book import load_book

    b = load_book(book or None)
    board = Board()
    for i in range(0, len(moves.strip()), 2):
        board = board.play(moves.strip()[i : i + 2])
    typer.echo(f"book {b.name}: {len(b):,} positions ({b.config.get('created', '?')})")
    typer.echo(board.diagram())
    entry = b.entry(board)
    if entry is None:
        typer.echo("not in the book")
        raise typer.Exit(0)
    typer.echo(
        f"value {entry['value']:+d} for the side to move; {entry['count']:,} games; "
        f"searched {entry['depth']} plies behind"
    )
    choice = b.choose(board)
    for m in b.moves(board):
        mark = " <- book move" if choice is not None and m.move == choice.move else ""
        typer.echo(f"  {square_name(m.move, 8)} {m.value:+d}{mark}")
    if choice is None:
        typer.echo("  the best move leaves the book: a player searches here")
