"""``othellolab play``: a game in the terminal against any registered player of that game."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from othellolab.core.games import Game


def play(
    opponent: Annotated[
        str | None,
        typer.Option(
            help="Player spec, e.g. 'greedy' (default: the game's default player, with its "
            "recommended options). It must play the game (see 'othellolab "
            "players')."
        ),
    ] = None,
    color: Annotated[
        str,
        typer.Option(
            help="Your side: the game's names for it (black or white at Othello; first or "
            "second), or random; black and white name the first and second player of any game."
        ),
    ] = "black",
    size: Annotated[
        int | None, typer.Option(help="Board size, for a game of several (Othello: 8, 6 or 4).")
    ] = None,
    game: Annotated[str, typer.Option(help="The game: a registered name.")] = "othello",
) -> None:
    """Play a game in the terminal against an AI (from a checkout, `make play-terminal` starts
    one). At your turn type a move, or: hint (the AI's move for you, with its evaluation and
    unit), undo (back to your previous move), help, quit."""
    from othellolab.core.errors import ConfigError
    from othellolab.core.games import game_names, get_game
    from othellolab.players import make_player
    from othellolab.ui.terminal import play_terminal

    try:
        rules = get_game(game, size=size)
    except ConfigError as e:
        if e.option == "size":
            raise typer.BadParameter(e.what, param_hint="--size") from None
        raise typer.BadParameter(
            f"expected {' or '.join(game_names())}", param_hint="--game"
        ) from None
    choice = color.lower()
    names = {
        n.lower(): i for i, n in (*enumerate(rules.side_names), *enumerate(rules.side_choices))
    }
    names |= {"black": 0, "white": 1}
    if choice == "random":
        human = random.choice((0, 1))
    elif choice in names:
        human = names[choice]
    else:
        a, b = rules.side_choices
        raise typer.BadParameter(f"expected {a}, {b} or random", param_hint="--color")
    try:
        player = make_player(with_cores(opponent or default_opponent(rules)), rules.name)
    except ValueError as e:
        raise typer.BadParameter(str(e), param_hint="--opponent") from None
    with player:
        play_terminal(player, game=rules, human=human)


def default_opponent(game: Game) -> str:
    """The game's ``default_player`` (the boards' default opponent), with its player's
    recommended options where the spec leaves them out."""
    from othellolab.players.registry import get_entry, parse_spec

    name, options = parse_spec(game.default_player)
    merged = {**get_entry(name).defaults, **options}
    return name + (":" + ",".join(f"{k}={v}" for k, v in merged.items()) if merged else "")


def with_cores(spec: str) -> str:
    """``spec`` with ``threads`` set to the machine's cores where its player takes ``threads``
    and the spec leaves it out: a game in the terminal has the machine to itself (the arena
    and the web server keep one thread a search)."""
    from othellolab.core.errors import ConfigError
    from othellolab.players.registry import unset_option
    from othellolab.players.search.parallel_solve import default_threads

    try:
        extra = unset_option(spec, "threads", default_threads())
    except ConfigError:
        return spec  # make_player reports it
    if not extra:
        return spec
    sep = ":" if ":" not in spec else ("" if spec.rstrip().endswith(":") else ",")
    return f"{spec.rstrip()}{sep}threads={extra['threads']}"
