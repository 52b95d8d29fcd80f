"""``othellolab play``: a game in the terminal against any registered player."""

from __future__ import annotations

import random
from typing import Annotated

import typer

from othellolab.core import BLACK, WHITE


def play(
    opponent: Annotated[
        str | None, typer.Option(help="Player spec, e.g. 'greedy' (default: the strongest).")
    ] = None,
    color: Annotated[str, typer.Option(help="Your colour: black, white or random.")] = "black",
    size: Annotated[int, typer.Option(help="Board size: 8, 6 or 4.")] = 8,
) -> None:
    """Play a game in the terminal against an AI."""
    from othellolab.players import make_player, strongest_player_spec
    from othellolab.ui.terminal import play_terminal

    spec = opponent or strongest_player_spec()
    try:
        player = make_player(spec)
    except ValueError as e:
        raise typer.BadParameter(str(e), param_hint="--opponent") from None
    choice = color.lower()
    if choice not in ("black", "white", "random"):
        raise typer.BadParameter("expected black, white or random", param_hint="--color")
    human = {"black": BLACK, "white": WHITE}.get(choice, random.choice((BLACK, WHITE)))
    if size not in (8, 6, 4):
        raise typer.BadParameter("expected 8, 6 or 4", param_hint="--size")
    with player:
        play_terminal(player, human=human, size=size)
