"""``othellolab perft``, ``othellolab players`` and ``othellolab warm-up``."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer

from othellolab.core import Board, run_stoppable
from othellolab.core import kernels as _k

MAX_PERFT_DEPTH = 60
"""Deepest perft accepted: a whole 8x8 game (past about 15 plies it takes hours; Ctrl-C stops it)."""


def perft(
    depth: Annotated[
        int,
        typer.Argument(
            help=f"Plies to search (a pass counts as a ply), 0..{MAX_PERFT_DEPTH}.",
            min=0,
            max=MAX_PERFT_DEPTH,
        ),
    ],
    size: Annotated[int, typer.Option(help="Board size: 8, 6 or 4.")] = 8,
    position: Annotated[
        str | None, typer.Option(help="Start from this OBF position instead of the start.")
    ] = None,
) -> None:
    """Count the leaves of the game tree DEPTH plies deep, with time and leaves per second.

    Leaves at the last ply are counted in bulk (the legal-move count), as Edax does; a game
    that ends before DEPTH counts as one leaf.
    """
    board = Board.from_obf(position) if position else Board(size=size)
    _k.perft(board.player, board.opponent, 1, board.size)  # compile or load outside the timing
    t0 = time.perf_counter()
    leaves = run_stoppable(lambda: _k.perft(board.player, board.opponent, depth, board.size))
    dt = time.perf_counter() - t0
    rate = leaves / dt if dt > 0 else float("inf")
    typer.echo(
        f"perft({depth}) size {board.size}: {leaves} leaves in {dt:.3f} s ({rate / 1e6:.1f} M leaves/s)"
    )


def players(
    models: Annotated[
        list[Path] | None,
        typer.Option(
            "--models",
            help="Also list these models (as 'othellolab serve --models' takes them): a model "
            "directory, a training run, its models/ folder, or a folder of these.",
        ),
    ] = None,
) -> None:
    """List the players that specs can name, strongest first, with the games each plays and
    each option's range and default, then the models that 'model=NAME' names."""
    from othellolab.core import OthelloError
    from othellolab.nn.pretrained import ModelCatalog
    from othellolab.players import available_players
    from othellolab.players.registry import describe_options

    try:
        catalog = ModelCatalog(models or ())
    except OthelloError as e:
        raise typer.BadParameter(e.what, param_hint="--models") from None
    for entry in available_players():
        typer.echo(f"{entry.name:<12} {entry.help}")
        typer.echo(f"    games: {', '.join(entry.games())}")
        for key, text in describe_options(entry, models=catalog).items():
            typer.echo(f"    {key:<14} {text}")
        if entry.defaults:
            chosen = ",".join(f"{k}={v}" for k, v in entry.defaults.items())
            typer.echo(f"    as the strongest player: {entry.name}:{chosen}")
    typer.echo(
        "models that model=NAME names (or give a model directory's path), with the game each plays:"
    )
    for name in catalog.names():
        typer.echo(f"    {name:<24} {catalog.game_of(name) or '?'}")


def warm_up() -> None:
    """Compile the search players' kernels now (or load them from the cache), so that no first
    move or first solve stalls; ``make setup`` runs this once."""
    from othellolab.players.warmup import warm_up as run

    t0 = time.perf_counter()
    run(lambda name, seconds: typer.echo(f"  {name}: {seconds:.1f} s"))
    typer.echo(f"kernels ready in {time.perf_counter() - t0:.1f} s")
