"""``othellolab nboard --player SPEC``: any registered player as an NBoard engine on stdin and
stdout, for the NBoard GUI or any tool that speaks the protocol."""

from __future__ import annotations

import os
import sys
from typing import Annotated

import typer


def nboard(
    player: Annotated[
        str | None,
        typer.Option(help="Player spec to serve (default: the strongest registered player)."),
    ] = None,
    time: Annotated[
        float | None,
        typer.Option(help="Seconds per search, whatever depth the GUI sets (0.001-3600)."),
    ] = None,
    use_depth: Annotated[
        bool,
        typer.Option(
            "--gui-depth/--own-settings",
            help="Search to the GUI's 'set depth' (default) or keep the spec's own settings.",
        ),
    ] = True,
    name: Annotated[str | None, typer.Option(help="Engine name sent to the GUI.")] = None,
) -> None:
    """Serve a player as an NBoard engine on stdin/stdout (until 'quit' or end of input)."""
    import math

    from othellolab.core import ConfigError, Limit
    from othellolab.players import make_player, strongest_player_spec
    from othellolab.protocols.nboard_engine import serve

    if time is not None and not (math.isfinite(time) and 0.001 <= time <= 3600):
        raise ConfigError(f"{time!r} is not a number of seconds in [0.001, 3600]", option="--time")
    spec = player or strongest_player_spec()
    chooser = make_player(spec)
    serve(
        chooser,
        input=sys.stdin,
        output=sys.stdout,
        name=name or f"othellolab {chooser.name}",
        limit=Limit(time=time) if time is not None else None,
        use_depth=use_depth,
    )
    try:
        sys.stdout.flush()
    except BrokenPipeError:  # the reader closed the pipe: nothing left to say, no traceback
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
