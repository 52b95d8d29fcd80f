"""``othellolab perft`` and ``othellolab players``."""

from __future__ import annotations

import time
from typing import Annotated

import typer

from othellolab.core import Board, OthelloError
from othellolab.core import kernels as _k


def perft(
    depth: Annotated[int, typer.Argument(help="Plies to search (a pass counts as a ply).", min=0)],
    size: Annotated[int, typer.Option(help="Board size: 8, 6 or 4.")] = 8,
    position: Annotated[
        str | None, typer.Option(help="Start from this OBF position instead of the start.")
    ] = None,
) -> None:
    """Count the leaves of the game tree DEPTH plies deep, with time and leaves per second.

    Leaves at the last ply are counted in bulk (the legal-move count), as Edax does; a game
    that ends before DEPTH counts as one leaf.
    """
    try:
        board = Board.from_obf(position) if position else Board(size=size)
    except (OthelloError, ValueError) as e:
        raise typer.BadParameter(str(e)) from None
    _k.perft(board.player, board.opponent, 1, board.size)  # compile or load outside the timing
    t0 = time.perf_counter()
    leaves = _k.perft(board.player, board.opponent, depth, board.size)
    dt = time.perf_counter() - t0
    rate = leaves / dt if dt > 0 else float("inf")
    typer.echo(
        f"perft({depth}) size {board.size}: {leaves} leaves in {dt:.3f} s ({rate / 1e6:.1f} M leaves/s)"
    )


def players() -> None:
    """List the players that specs can name, strongest first, with their options."""
    from othellolab.players import available_players

    for entry in available_players():
        opts = ", ".join(f"{k}={v!r}" for k, v in entry.options().items())
        typer.echo(f"{entry.name:<12} {entry.help}" + (f"  [{opts}]" if opts else ""))
