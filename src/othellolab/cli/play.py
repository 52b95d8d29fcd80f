"""``othellolab play``: a game in the terminal against any registered player of that game."""

from __future__ import annotations

import random
from typing import Annotated

import typer

from othellolab.core import BLACK, WHITE

SHOGI_OPPONENT = "shogi-alphabeta"
"""The default opponent at animal shogi."""


def play(
    opponent: Annotated[
        str | None,
        typer.Option(
            help="Player spec, e.g. 'greedy' (default: the strongest; at animal shogi, "
            f"{SHOGI_OPPONENT!r}). It must play the game (see 'othellolab players')."
        ),
    ] = None,
    color: Annotated[
        str,
        typer.Option(
            help="Your colour: black, white or random; at animal shogi first (black) or "
            "second (white)."
        ),
    ] = "black",
    size: Annotated[int, typer.Option(help="Board size: 8, 6 or 4 (Othello only).")] = 8,
    game: Annotated[str, typer.Option(help="The game: othello or animal-shogi.")] = "othello",
) -> None:
    """Play a game in the terminal against an AI."""
    from othellolab.core.games import get_game
    from othellolab.players import make_game_player, strongest_player_spec
    from othellolab.ui.terminal import play_terminal, play_terminal_shogi

    try:
        rules = get_game(game).name
    except ValueError:
        raise typer.BadParameter("expected othello or animal-shogi", param_hint="--game") from None
    shogi = rules == "animal-shogi"
    choice = color.lower()
    sides = ("black", "white", "random") + (("first", "second") if shogi else ())
    if choice not in sides:
        expected = "first, second or random" if shogi else "black, white or random"
        raise typer.BadParameter(f"expected {expected}", param_hint="--color")
    first = {"black": True, "first": True, "white": False, "second": False}.get(choice)
    if first is None:
        first = random.choice((True, False))
    if shogi and size != 8:
        raise typer.BadParameter("animal shogi has one board (3 x 4)", param_hint="--size")
    if size not in (8, 6, 4):
        raise typer.BadParameter("expected 8, 6 or 4", param_hint="--size")
    spec = opponent or (SHOGI_OPPONENT if shogi else strongest_player_spec())
    try:
        player = make_game_player(spec, rules)
    except ValueError as e:
        raise typer.BadParameter(str(e), param_hint="--opponent") from None
    with player:
        if shogi:
            play_terminal_shogi(player, human=0 if first else 1)
        else:
            play_terminal(player, human=BLACK if first else WHITE, size=size)
